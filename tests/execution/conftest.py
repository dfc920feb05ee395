"""Fixtures for cell runs: a workspace with a notebook, and a session that runs its cells."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.cell_notebooks import code, markdown, notebook

from jupyter_operator.engine import Operator


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "nb.ipynb").write_text(notebook(
        markdown("# Demo", id="m1"),
        code("x = 41\nprint('set x')", id="c1"),
        code("print(x + 1)", id="c2"),
        code("1/0", id="c3"),
    ))  # fmt: skip
    return root


@pytest.fixture
def op(ws: Path, tmp_path: Path) -> Iterator[Operator]:
    operator = Operator(ws, extensions=("nb",), journal_dir=tmp_path / "journal")
    try:
        yield operator
    finally:
        operator.close()
