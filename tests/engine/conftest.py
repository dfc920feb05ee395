"""Engine test fixtures: a workspace folder and an Operator whose journal lives outside it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from jupyter_operator.engine import Operator


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


@pytest.fixture
def make_operator(tmp_path: Path, root: Path) -> Callable[..., Operator]:
    def make(**kwargs: object) -> Operator:
        return Operator(root, journal_dir=tmp_path / "journal", **kwargs)  # type: ignore[arg-type]

    return make
