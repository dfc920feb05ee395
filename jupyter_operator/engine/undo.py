"""Undo: restore the bytes a path had before an applied change, deletes included.

Undo refuses (``ERR_STALE_PREVIEW``) when the path changed after the change it would undo, so it
never throws away work done since; a created file is moved to the trash rather than deleted.
"""

from __future__ import annotations

from ..protocol import OperatorError, codes
from ..workspace import HistoryEntry, Journal, Workspace
from .mutations import EDIT_LIMIT


def _pick(journal: Journal, entry_id: str | None) -> HistoryEntry:
    entries = journal.entries()
    if entry_id is None:
        live = [e for e in entries if not e.undone]
        if not live:
            raise OperatorError(codes.ERR_NOT_FOUND, "nothing to undo in this workspace.")
        return live[-1]
    for entry in entries:
        if entry.entry_id == entry_id:
            if entry.undone:
                raise OperatorError(codes.ERR_NOT_FOUND, f"{entry_id} was already undone.")
            return entry
    raise OperatorError(codes.ERR_NOT_FOUND, f"no history entry {entry_id} in this workspace.")


def undo(ws: Workspace, journal: Journal, entry_id: str | None = None) -> HistoryEntry:
    """Undo one entry (the latest not yet undone when ``entry_id`` is None)."""
    entry = _pick(journal, entry_id)
    current = ws.snapshot(entry.path, limit=EDIT_LIMIT)
    if entry.change == "delete":
        if current.exists:
            raise OperatorError(
                codes.ERR_STALE_PREVIEW,
                f"{entry.path} exists again; restoring it would overwrite that.",
            )
        trashed = sorted((journal.trash / entry.entry_id).iterdir())
        if len(trashed) != 1:
            raise OperatorError(codes.ERR_IO, f"the trash of {entry.entry_id} is missing.")
        ws.move_in(trashed[0], entry.path, expect=current)
    else:
        if current.sha256 != entry.after_sha256:
            raise OperatorError(
                codes.ERR_STALE_PREVIEW,
                f"{entry.path} changed after {entry.entry_id} was applied; undo would lose that.",
            )
        if entry.before_sha256 is None:
            ws.move_out(entry.path, journal.trash_slot(f"{entry.entry_id}-undo"), expect=current)
        else:
            ws.write(entry.path, journal.load_blob(entry.before_sha256), expect=current)
    journal.mark_undone(entry.entry_id)
    return entry.__class__(**{**entry.to_dict(), "undone": True})
