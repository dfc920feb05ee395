"""Undo and redo of any history entry, with the guards that keep later work safe.

Undo restores the bytes a path had before a change; redo applies the change again. Both refuse
with ``ERR_UNDO_CONFLICT`` (naming the entry in the way) when a later live change touched the same
path, or when the path is not in the state the change left (undo) or found (redo): they never
throw away work done since. Nothing is ever deleted for good: what undo or redo takes away goes to
the trash. Everything read back from the journal is checked first (``ERR_JOURNAL_CORRUPT``).
Undoing the creation of a file also removes the folders its write created, innermost first,
while they are empty (``remove_empty_parents``: only ``rmdir``, through the jail).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from typing import Literal

from ..protocol import OperatorError, codes
from ..workspace import (
    HistoryEntry,
    Journal,
    Snapshot,
    Workspace,
    path_key,
    paths_overlap,
    remove_empty_parents,
)
from .mutations import EDIT_LIMIT

#: Which way ``pick`` chooses: the entry to undo, or the undone one to apply again.
Direction = Literal["undo", "redo"]


def _conflict(message: str) -> OperatorError:
    return OperatorError(codes.ERR_UNDO_CONFLICT, message)


def _find(entries: list[HistoryEntry], entry_id: str) -> HistoryEntry:
    for entry in entries:
        if entry.entry_id == entry_id:
            return entry
    raise OperatorError(codes.ERR_NOT_FOUND, f"no history entry {entry_id} in this workspace.")


def _later_live(entries: list[HistoryEntry], entry: HistoryEntry) -> HistoryEntry | None:
    """The latest live change after ``entry`` to the same path (or a folder holding it)."""
    key = path_key(entry.path)
    index = entries.index(entry)
    found = [e for e in entries[index + 1 :]
             if not e.undone and paths_overlap(key, path_key(e.path))]  # fmt: skip
    return found[-1] if found else None


def _label(entry: HistoryEntry) -> str:
    return f"{entry.entry_id} ({entry.action} {entry.path})"


def pick(journal: Journal, entry_id: str | None, direction: Direction) -> HistoryEntry:
    """The entry an undo (``direction="undo"``) or redo would act on, with the refusals that
    do not depend on the file: already undone (not undone), a later live change in the way.

    Without ``entry_id``: the latest live entry (undo), the one undone last (redo).
    """
    undoing = direction == "undo"
    entries = journal.entries()
    if entry_id is None:
        candidates = [e for e in entries if e.undone != undoing]
        if not candidates:
            raise OperatorError(codes.ERR_NOT_FOUND, f"nothing to {direction} in this workspace.")
        entry = candidates[-1] if undoing else max(candidates, key=lambda e: e.undone_at or 0.0)
    else:
        entry = _find(entries, entry_id)
        if undoing and entry.undone:
            raise _conflict(f"{entry.entry_id} is already undone; redo it to apply it again.")
        if not undoing and not entry.undone:
            raise _conflict(f"{entry.entry_id} is not undone; there is nothing to redo.")
    later = _later_live(entries, entry)
    if later is not None:
        when = (f"again by {_label(later)}" if undoing
                else f"by {_label(later)} after {entry.entry_id} was undone")  # fmt: skip
        raise _conflict(f"{entry.path} was changed {when}; undo {later.entry_id} first.")
    return entry


def undo(ws: Workspace, journal: Journal, entry_id: str | None = None) -> HistoryEntry:
    """Undo one entry (the latest live one when ``entry_id`` is None)."""
    entry = pick(journal, entry_id, "undo")
    current = ws.snapshot(entry.path, limit=EDIT_LIMIT)
    if entry.change == "delete":
        _put_back(ws, journal, entry, current)
    else:
        if current.is_dir or current.sha256 != entry.after_sha256:
            raise _conflict(
                f"{entry.path} changed after {entry.entry_id} was applied; undoing it would lose "
                f"that change."
            )
        if entry.before_sha256 is None:
            with journal.trash_slot(f"{entry.entry_id}-u{entry.undo_count + 1}") as slot:
                ws.move_out(entry.path, slot, expect=current)
            # The folders the change created, while nothing else was put in them since.
            remove_empty_parents(ws, entry.path, entry.created_dirs)
        else:
            ws.write(entry.path, journal.load_blob(entry.before_sha256), expect=current)
    journal.mark_undone(entry.entry_id)
    return replace(entry, undone=True, redone=False, partial=False,
                   undo_count=entry.undo_count + 1)  # fmt: skip


def inverse(
    ws: Workspace, journal: Journal, entry_id: str | None = None
) -> tuple[HistoryEntry, Snapshot, bytes | None]:
    """What undoing an entry (the latest live one when ``entry_id`` is None) would do, without
    doing it: the entry, the path's current state and the bytes it would get back (None: the
    file it created goes away).

    A reply's ``/undo`` and an MCP client's ``undo`` are planned from this as an ordinary
    change (previewed, decided, and journaled like any write), so a model never changes a file
    without the person's approval. Raises like :func:`undo` when the undo would be refused.
    """
    entry = pick(journal, entry_id, "undo")
    current = ws.snapshot(entry.path, limit=EDIT_LIMIT)
    if entry.change == "delete":
        if entry.before_sha256 is None:
            raise _conflict(
                f"{entry.entry_id} deleted the folder {entry.path}; only a person can put a "
                f"folder back (History, %operator undo or jupyter-operator undo)."
            )
        if current.exists:
            raise _conflict(f"{entry.path} exists again; putting it back would overwrite that.")
        return entry, current, journal.load_blob(entry.before_sha256)
    if current.is_dir or current.sha256 != entry.after_sha256:
        raise _conflict(
            f"{entry.path} changed after {entry.entry_id} was applied; undoing it would lose "
            f"that change."
        )
    before = None if entry.before_sha256 is None else journal.load_blob(entry.before_sha256)
    return entry, current, before


def _put_back(ws: Workspace, journal: Journal, entry: HistoryEntry, current: Snapshot) -> None:
    """Move what a delete trashed back into place (only what is missing, after a partial one)."""
    with journal.trash_slot(entry.entry_id, create=False) as slot:
        name = journal.trashed_name(slot, entry.entry_id)
        if name is None:
            raise _conflict(
                f"the trash of {entry.entry_id} is empty; there is nothing to put back."
            )
        if current.exists and not (entry.partial and current.is_dir):
            raise _conflict(f"{entry.path} exists again; putting it back would overwrite that.")
        if entry.before_sha256 is not None and (
            journal.trashed_sha256(slot, name) != entry.before_sha256
        ):
            raise OperatorError(
                codes.ERR_JOURNAL_CORRUPT,
                f"the trashed copy of {entry.path} does not match {entry.entry_id}; nothing "
                f"was changed.",
            )
        ws.move_in((slot, name), entry.path, expect=current, merge=entry.partial)
        if entry.partial:
            journal.discard_trashed(slot, name)


def redo(ws: Workspace, journal: Journal, entry_id: str | None = None) -> HistoryEntry:
    """Apply an undone entry again (the one undone last when ``entry_id`` is None)."""
    entry = pick(journal, entry_id, "redo")
    current = ws.snapshot(entry.path, limit=EDIT_LIMIT)
    if not _found_as_before(entry, current):
        key = path_key(entry.path)
        entries = journal.entries()
        index = entries.index(entry)
        earlier = [e for e in entries[:index] if e.undone and paths_overlap(key, path_key(e.path))]
        if earlier:
            raise _conflict(
                f"{entry.path} is not as {entry.entry_id} found it: {_label(earlier[-1])} "
                f"is undone too; redo {earlier[-1].entry_id} first."
            )
        raise _conflict(
            f"{entry.path} changed since {entry.entry_id} was undone; redoing it would lose that "
            f"change."
        )
    if entry.change == "delete":
        with journal.trash_slot(entry.entry_id) as slot:
            if journal.trashed_name(slot, entry.entry_id) is not None:
                raise OperatorError(
                    codes.ERR_JOURNAL_CORRUPT,
                    f"the trash of {entry.entry_id} is not empty; nothing was changed.",
                )
            ws.move_out(entry.path, slot, expect=current)
    else:
        if entry.after_sha256 is None:
            raise OperatorError(codes.ERR_JOURNAL_CORRUPT, f"{entry.entry_id} has no saved copy.")
        ws.write(entry.path, journal.load_blob(entry.after_sha256), expect=current)
    journal.mark_redone(entry.entry_id)
    return replace(entry, undone=False, redone=True)


def _found_as_before(entry: HistoryEntry, current: Snapshot) -> bool:
    """True when the path is in the state ``entry`` was applied to."""
    if entry.change == "create":
        return not current.exists
    if entry.change == "modify":
        return current.exists and not current.is_dir and current.sha256 == entry.before_sha256
    if entry.before_sha256 is None:  # the delete of a folder
        return current.exists and current.is_dir
    return current.exists and not current.is_dir and current.sha256 == entry.before_sha256


def _left_as(entry: HistoryEntry, current: Snapshot) -> bool:
    """True when the path is in the state ``entry`` left it (what its undo expects)."""
    if entry.change == "delete":
        return not current.exists or (entry.partial and current.is_dir)
    return current.exists and not current.is_dir and current.sha256 == entry.after_sha256


def plan_group(ws: Workspace, journal: Journal, entry_ids: list[str],
               held: Collection[str] = ()) -> list[HistoryEntry]:  # fmt: skip
    """The live entries of a group (a run's changes) in the order an undo of the whole group
    takes them, newest first, after every check that does not change anything.

    Refused as a whole with ``ERR_UNDO_CONFLICT`` when a change outside the group touched one
    of its paths later, or a path is no longer as the group's last change to it left it (the
    stale guard of a single undo, for every path before any is touched). ``held``: ids of
    entries a page undoes (a notebook it holds open): their disk may lag the page, so the
    page's own guard (the source of each cell it rewrites) stands for the disk's.
    """
    entries = journal.entries()
    wanted = set(entry_ids)
    group = [e for e in entries if e.entry_id in wanted and not e.undone]
    if not group:
        raise OperatorError(codes.ERR_NOT_FOUND, "nothing of this run is left to undo.")
    members = {e.entry_id for e in group}
    for entry in group:
        key = path_key(entry.path)
        index = entries.index(entry)
        outside = [e for e in entries[index + 1 :]
                   if not e.undone and e.entry_id not in members
                   and paths_overlap(key, path_key(e.path))]  # fmt: skip
        if outside:
            later = outside[-1]
            raise _conflict(f"{entry.path} was changed again by {_label(later)}, outside this "
                            f"run; undo {later.entry_id} first. Nothing was changed.")  # fmt: skip
    for position, entry in enumerate(group):
        key = path_key(entry.path)
        if entry.entry_id in held or any(paths_overlap(key, path_key(e.path))
                                         for e in group[position + 1 :]):  # fmt: skip
            continue  # a later change of the run is undone first; it finds the path as checked
        if not _left_as(entry, ws.snapshot(entry.path, limit=EDIT_LIMIT)):
            raise _conflict(f"{entry.path} changed after {entry.entry_id} was applied; undoing "
                            f"the run would lose that change. Nothing was changed.")  # fmt: skip
    return list(reversed(group))


def undo_group(ws: Workspace, journal: Journal, entry_ids: list[str]) -> list[HistoryEntry]:
    """Undo every live entry of a group in one step, newest first (``plan_group``).

    Should one undo still fail (the disk changed during the undo), the ones done are applied
    again, newest last, so the group is undone entirely or not at all.
    """
    done: list[HistoryEntry] = []
    try:
        for entry in plan_group(ws, journal, entry_ids):
            done.append(undo(ws, journal, entry.entry_id))
    except OperatorError as exc:
        if not done:
            raise
        for entry in reversed(done):
            redo(ws, journal, entry.entry_id)
        raise OperatorError(exc.code, f"{exc.message} What the run's undo had restored was "
                            "applied again; nothing was changed.") from None  # fmt: skip
    return done
