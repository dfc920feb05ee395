"""Running the shipped notebooks with nbclient, and reading what their cells printed."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def execute(
    name: str, cwd: Path, clicks: dict[str, str] | None = None
) -> tuple[Any, dict[str, list[dict[str, Any]]]]:
    """Run a notebook with its kernel in ``cwd``; return it and the outputs of each cell by id.

    ``clicks`` stands for a person at the cards: cell id -> code run in the same kernel just
    before that cell (the decisions a person would click), so the shipped notebook holds the
    lesson only. The cells added are named ``clicks-<id>``.
    """
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    for before, source in (clicks or {}).items():
        index = next(i for i, cell in enumerate(nb.cells) if cell.get("id") == before)
        nb.cells.insert(index, new_code_cell(source, id=f"clicks-{before}"))
    NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}
    ).execute()
    return nb, {
        cell["id"]: cell.get("outputs", []) for cell in nb.cells if cell.cell_type == "code"
    }


def text(outputs: list[dict[str, Any]], streams: Iterable[str] = ("stdout", "stderr")) -> str:
    """What a cell printed on ``streams`` and showed as plain text; no output is an error."""
    wanted = set(streams)
    parts = []
    for out in outputs:
        assert out["output_type"] != "error", out
        if out["output_type"] == "stream":
            if out["name"] in wanted:
                parts.append(out["text"])
        elif "data" in out:
            parts.append(out["data"].get("text/plain", ""))
    return "".join(parts)


def code_cells(nb: Any) -> list[Any]:
    return [cell for cell in nb.cells if cell.cell_type == "code"]
