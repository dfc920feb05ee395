"""Fixtures for the notebook routes: the suite's workspace holding the demo notebook, and an
Operator with the cell actions on. The conftests of the folders that run cells import them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from jupyter_operator.engine import Operator
from support.cell_notebooks import demo


@pytest.fixture
def ws(root: Path) -> Path:
    """The suite's workspace holding ``nb.ipynb`` (``support.cell_notebooks.demo``)."""
    (root / "nb.ipynb").write_text(demo())
    return root


@pytest.fixture
def op(ws: Path, make_operator: Callable[..., Operator]) -> Iterator[Operator]:
    """An Operator with the cell actions on, journaled beside the workspace."""
    operator = make_operator(extensions=("nb",))
    try:
        yield operator
    finally:
        operator.close()
