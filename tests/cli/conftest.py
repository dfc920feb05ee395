"""The command line's tests: each runs with its own undo journal."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """The environment of a ``jupyter-operator`` subprocess: its journal in ``tmp_path``."""
    return dict(os.environ, JUPYTER_OPERATOR_JOURNAL_DIR=str(tmp_path / "journal"))
