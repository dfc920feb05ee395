"""What a cell change did to a notebook, cell by cell: what an open copy must take to match.

Pure: two versions of a notebook's text in, a list of changes out (cells with ids only).
"""

from __future__ import annotations

import json
from typing import Any


def _cells(data: bytes | None) -> list[dict[str, Any]] | None:
    try:
        doc = json.loads(data or b"")
    except (ValueError, UnicodeDecodeError):
        return None
    cells = doc.get("cells") if isinstance(doc, dict) else None
    return [c for c in cells if isinstance(c, dict)] if isinstance(cells, list) else None


def _source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def cell_changes(before: bytes | None, after: bytes | None) -> list[dict[str, Any]]:
    """Each changed, added or moved cell as it is in ``after`` (``id``, ``index``,
    ``cell_type``, ``source``), and each deleted one with ``source`` None."""
    old, new = _cells(before), _cells(after)
    if old is None or new is None:
        return []
    old_cells = {c.get("id"): (i, c) for i, c in enumerate(old) if isinstance(c.get("id"), str)}
    found: list[dict[str, Any]] = []
    seen = set()
    for index, cell in enumerate(new):
        cell_id = cell.get("id")
        if not isinstance(cell_id, str):
            continue
        seen.add(cell_id)
        earlier = old_cells.get(cell_id)
        source = _source(cell)
        if (earlier is None or earlier[0] != index or _source(earlier[1]) != source
                or earlier[1].get("cell_type") != cell.get("cell_type")):  # fmt: skip
            found.append({"id": cell_id, "index": index, "cell_type": cell.get("cell_type"),
                          "source": source})  # fmt: skip
    for cell_id, (index, cell) in old_cells.items():
        if cell_id not in seen:
            found.append({"id": cell_id, "index": index, "cell_type": cell.get("cell_type"),
                          "source": None})  # fmt: skip
    return found
