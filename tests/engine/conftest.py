"""Fixtures for the engine's notebook routes: a workspace holding a standard notebook."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cell_notebooks import standard


@pytest.fixture
def nb_path(root: Path) -> Path:
    """``root/nb.ipynb``: the standard notebook (``support.cell_notebooks.standard``)."""
    path = root / "nb.ipynb"
    path.write_text(standard(), encoding="utf-8")
    return path
