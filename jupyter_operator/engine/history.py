"""Keeping cards and results true after undo and redo.

When a history entry that an item of a run applied is undone, the item's status becomes
``"undone"`` and its result for the model says so (``UNDONE_SUMMARY``, code ``ERR_UNDONE``); a
redo puts back the ``"applied"`` status and the original result. The run's subscribers are then
called, so every card showing the item updates. Items are found by (journal folder, entry id)
across every session of this process (the server undoes through a session of its own); the
registry holds weak references, so finished runs are not kept alive by it.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..protocol import Result, codes
from ..workspace import HistoryEntry, Journal

if TYPE_CHECKING:
    from .decidable import DecidableRun
    from .items import Item

#: What the model is told about a change the person undid (``docs/protocol.md``).
UNDONE_MESSAGE = "the person undid this change; the file is as it was before."
UNDONE_SUMMARY = f"Undone ({codes.ERR_UNDONE}): {UNDONE_MESSAGE}"


@dataclass
class _Applied:
    run: weakref.ReferenceType[DecidableRun[Item]]
    item: weakref.ReferenceType[Item]
    result: Result  # the result the apply produced, given back on redo
    summary: str


_TRACKED: dict[tuple[str, str], _Applied] = {}
_GUARD = threading.Lock()


def track(journal: Journal, run: DecidableRun[Item], *items: Item) -> None:
    """Remember that each of ``items`` of ``run`` applied the entry ``item.entry_id`` (items
    that applied nothing are skipped)."""
    records = {(str(journal.path), item.entry_id): _Applied(
        weakref.ref(run), weakref.ref(item), item.result, item.summary)
        for item in items if item.entry_id is not None and item.result is not None}  # fmt: skip
    if not records:
        return
    with _GUARD:
        for key in [k for k, v in _TRACKED.items() if v.item() is None]:
            del _TRACKED[key]  # forget items whose runs are gone
        _TRACKED.update(records)


def settle(journal: Journal, entry: HistoryEntry) -> Item | None:
    """Make the item that applied ``entry`` (if this process has it) match the entry's state.

    Returns the item after its run's subscribers were called, or None.
    """
    with _GUARD:
        record = _TRACKED.get((str(journal.path), entry.entry_id))
    if record is None:
        return None
    run, item = record.run(), record.item()
    if run is None or item is None:
        return None
    with run._lock:
        # An undo and a redo that cross may find the item settled already.
        if entry.undone:
            if item.status != "undone":
                item.move_to("undone")
            item.result = Result.failure(item.id, codes.ERR_UNDONE, UNDONE_MESSAGE)
            item.summary = UNDONE_SUMMARY
            item.error_code = codes.ERR_UNDONE
        else:
            if item.status != "applied":
                item.move_to("applied")
            item.result = record.result
            item.summary = record.summary
            item.error_code = None
    run._notify(item)
    return item
