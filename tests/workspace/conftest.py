"""Fixtures for the workspace layer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from jupyter_operator.workspace import Workspace

from .sandbox import Sandbox


@pytest.fixture(autouse=True)
def _journal_beside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Workspaces reserve (and lock files under) the journal folder: keep it out of the home.
    monkeypatch.setenv("JUPYTER_OPERATOR_JOURNAL_DIR", str(tmp_path / "journal"))


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    return Sandbox(tmp_path)


@pytest.fixture
def ws(sandbox: Sandbox) -> Iterator[Workspace]:
    with Workspace(sandbox.root) as workspace:
        yield workspace
