"""Small notebooks for the tests of the notebook cell actions (``nb.*``), built as JSON.

Importable from every test module (``tests`` is on pytest's ``pythonpath``):
``from support.cell_notebooks import notebook, code, markdown, cells_of``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def code(source: str, id: str | None = None, outputs: list[dict[str, Any]] | None = None,
         execution_count: int | None = None) -> dict[str, Any]:  # fmt: skip
    """A code cell (``id`` None: no id field, as in nbformat 4.4)."""
    cell: dict[str, Any] = {
        "cell_type": "code", "execution_count": execution_count, "metadata": {},
        "outputs": outputs or [], "source": source,
    }  # fmt: skip
    if id is not None:
        cell["id"] = id
    return cell


def markdown(source: str, id: str | None = None) -> dict[str, Any]:
    """A markdown cell."""
    cell: dict[str, Any] = {"cell_type": "markdown", "metadata": {}, "source": source}
    if id is not None:
        cell["id"] = id
    return cell


def notebook(*cells: dict[str, Any], minor: int = 5) -> str:
    """A notebook's text as JupyterLab writes it (one-space indent, sorted keys)."""
    doc = {
        "cells": list(cells),
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                    "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": minor,
    }  # fmt: skip
    import nbformat

    return nbformat.writes(nbformat.from_dict(doc)) + "\n"


def standard(minor: int = 5) -> str:
    """Three cells: a heading, a code cell with output, a second code cell."""
    ids = (lambda i: i) if minor >= 5 else (lambda i: None)
    out = [{"output_type": "stream", "name": "stdout", "text": "1\n"}]
    return notebook(
        markdown("# Title", ids("intro")),
        code("x = 1\nprint(x)", ids("load"), outputs=out, execution_count=1),
        code("y = x + 1", ids("calc")),
        minor=minor,
    )


def demo() -> str:
    """A heading (``m1``), a cell that sets ``x`` (``c1``), one that prints ``x + 1`` (``c2``)
    and one that raises (``c3``): the notebook the cell-run tests run."""
    return notebook(
        markdown("# Demo", id="m1"),
        code("x = 41\nprint('set x')", id="c1"),
        code("print(x + 1)", id="c2"),
        code("1/0", id="c3"),
    )


def cells_of(path: Path) -> list[tuple[str | None, str, str]]:
    """(id, type, source) of each cell of the notebook at ``path``."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    return [
        (c.get("id"), c["cell_type"], "".join(c["source"]) if isinstance(c["source"], list)
         else c["source"]) for c in doc["cells"]
    ]  # fmt: skip
