"""Small notebooks for tests of cell diffs (engine, widgets, server, browser)."""

from __future__ import annotations

import nbformat
from nbformat import v4


def notebook(*sources: str, ids: bool = True) -> str:
    """A valid nbformat 4.5 notebook of code cells (markdown for sources starting with '#'),
    with stable ids ``cell-0``, ``cell-1``, ..."""
    nb = v4.new_notebook()
    for n, source in enumerate(sources):
        make = v4.new_markdown_cell if source.startswith("#") else v4.new_code_cell
        cell = make(source)
        cell.id = f"cell-{n}"
        nb.cells.append(cell)
    nbformat.validate(nb)
    return nbformat.writes(nb)


def with_source(text: str, index: int, source: str) -> str:
    """``text`` with cell ``index``'s source replaced, written as Jupyter saves it."""
    nb = nbformat.reads(text, as_version=nbformat.NO_CONVERT)
    nb.cells[index].source = source
    return nbformat.writes(nb)


SAMPLE = ("# Analysis", "import math\nradius = 2\narea = math.pi * radius**2", "print(area)")
