"""Fixtures for the dialect tests: a workspace folder and an Operator journaled outside it."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_operator.engine import Operator, Policy


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


@pytest.fixture
def operator(tmp_path: Path, root: Path) -> Operator:
    """Default policy: reads run, every change and every command asks."""
    op = Operator(root, journal_dir=tmp_path / "journal")
    yield op
    op.close()


@pytest.fixture
def trusting(tmp_path: Path, root: Path) -> Operator:
    """File operations run without asking (to see their bare response events)."""
    op = Operator(root, journal_dir=tmp_path / "journal", policy=Policy(auto=frozenset({"all"})))
    yield op
    op.close()
