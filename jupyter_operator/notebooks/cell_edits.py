"""The smallest cell edits that turn one version of a notebook into another, for an open copy.

An approved change to a notebook open in a page is not written to the file under it: the page
applies these edits to its own notebook model (``labextension/src/livecells.ts``), so the
person's unsaved edits elsewhere stay. Cells are matched by id; a notebook whose cells lack
unique ids has no such edits (None) and goes to the disk.

Each cell the edits delete or rewrite carries a guard: the sha256 of its source as the preview
saw it. The page refuses the whole change when a guarded cell's source is no longer that
(the person edited it since the preview); any other cell may have changed freely.

Pure: two versions of a notebook's bytes in, a JSON-ready dict out.
"""

from __future__ import annotations

import hashlib
import json
from bisect import bisect_left
from typing import Any

#: The fields of a cell an edit may set, besides its source.
FIELDS = ("cell_type", "metadata", "outputs", "execution_count", "attachments")


def source_hash(source: str) -> str:
    """The guard of a cell: sha256 of its source text (lines joined), hex."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value or "")


def _cells(data: bytes | None) -> list[dict[str, Any]] | None:
    try:
        doc = json.loads(data or b"")
    except (ValueError, UnicodeDecodeError):
        return None
    cells = doc.get("cells") if isinstance(doc, dict) else None
    if not isinstance(cells, list) or not all(isinstance(c, dict) for c in cells):
        return None
    ids = [c.get("id") for c in cells]
    if not all(isinstance(i, str) and i for i in ids) or len(set(ids)) != len(ids):
        return None
    return cells


def _kept(order: list[int]) -> set[int]:
    """The positions (in ``order``) of a longest increasing run: the cells that need no move."""
    tails: list[int] = []
    tail_at: list[int] = []
    parent = [-1] * len(order)
    for pos, value in enumerate(order):
        k = bisect_left(tails, value)
        if k == len(tails):
            tails.append(value)
            tail_at.append(pos)
        else:
            tails[k], tail_at[k] = value, pos
        parent[pos] = tail_at[k - 1] if k else -1
    kept: set[int] = set()
    pos = tail_at[-1] if tail_at else -1
    while pos >= 0:
        kept.add(pos)
        pos = parent[pos]
    return kept


def _cell(cell: dict[str, Any]) -> dict[str, Any]:
    """A cell as the page inserts it: its source as one string."""
    return {**cell, "source": _text(cell.get("source"))}


def cell_edits(before: bytes | None, after: bytes | None) -> dict[str, Any] | None:
    """The edits from ``before`` to ``after`` (both a notebook's bytes), or None when either is
    not a notebook whose cells all have unique ids.

    ``{"ops": [...], "guards": {cell id: source sha256}, "sources": {cell id: new source}}``,
    ops in the order the page applies them: ``delete`` (id), then in the new order ``insert``
    (a whole cell, placed ``after`` the cell with that id, or first when None; ``index`` when
    that cell is gone), ``move`` (id, ``after``) and ``set`` (id, ``fields``: source and any of
    ``FIELDS`` that changed). ``sources``: what each inserted or rewritten cell holds after.
    """
    old, new = _cells(before), _cells(after)
    if old is None or new is None:
        return None
    old_at = {c["id"]: i for i, c in enumerate(old)}
    new_ids = {c["id"] for c in new}
    ops: list[dict[str, Any]] = []
    guards: dict[str, str] = {}
    sources: dict[str, str] = {}
    for cell in old:
        if cell["id"] not in new_ids:
            ops.append({"op": "delete", "id": cell["id"]})
            guards[cell["id"]] = source_hash(_text(cell.get("source")))
    common = [i for i, c in enumerate(new) if c["id"] in old_at]
    kept = {common[k] for k in _kept([old_at[new[i]["id"]] for i in common])}
    previous: str | None = None
    for index, cell in enumerate(new):
        cell_id = cell["id"]
        if cell_id not in old_at:
            ops.append({"op": "insert", "after": previous, "index": index, "cell": _cell(cell)})
            sources[cell_id] = _text(cell.get("source"))
        else:
            if index not in kept:
                ops.append({"op": "move", "id": cell_id, "after": previous, "index": index})
            was = old[old_at[cell_id]]
            fields = {key: cell.get(key) for key in FIELDS if was.get(key) != cell.get(key)}
            if _text(was.get("source")) != _text(cell.get("source")):
                fields["source"] = _text(cell.get("source"))
            if fields:
                ops.append({"op": "set", "id": cell_id, "fields": fields})
                guards[cell_id] = source_hash(_text(was.get("source")))
                sources[cell_id] = _text(cell.get("source"))
        previous = cell_id
    return {"ops": ops, "guards": guards, "sources": sources}
