"""Mutations: planned into exact bytes and a diff first, applied only after approval.

Planning reads the file once (a ``Snapshot``) and computes the new bytes in memory; nothing is
written. Applying writes exactly those bytes, and only if the file still has the sha256 it had
when the preview was made (the workspace layer checks, else ``ERR_STALE_PREVIEW``).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import replace

from ..protocol import Command, OperatorError, Result, codes, resolve_style
from ..workspace import (
    DERIVED_DIFF_BYTES,
    MAX_PLANNED_BYTES,
    HistoryEntry,
    Journal,
    PartialDelete,
    Snapshot,
    TextFile,
    Workspace,
    apply_edits,
    apply_patch,
    check_size,
    decode_text,
    delete_region,
    diff_with_stats,
    encode_text,
    history_diff,
    insert_region,
    is_notebook,
    path_key,
    paths_overlap,
    replace_region,
    utf8_len,
    validate_notebook,
)
from . import cell_actions as cells
from .items import Item, Proposal

EDIT_LIMIT = MAX_PLANNED_BYTES  # the largest file a mutation is planned over, and may plan
LISTING_LIMIT = 200  # entries shown when a directory is about to be deleted

Transform = Callable[[str, Command], str]


def _region(fn: Callable[..., str]) -> Transform:
    def transform(text: str, cmd: Command) -> str:
        p = cmd.params
        style = resolve_style(p.style, p.path)
        if cmd.action == "fs.insertRegion":
            return fn(text, style, p.marker_id, p.anchor, p.content, p.position, p.occurrence)
        if cmd.action == "fs.replaceRegion":
            return fn(text, style, p.marker_id, p.content)
        return fn(text, style, p.marker_id)

    return transform


TRANSFORMS: dict[str, Transform] = {
    "fs.patch": lambda text, cmd: apply_patch(text, cmd.params.patch, path=cmd.params.path),
    "fs.applyEdits": lambda text, cmd: apply_edits(text, cmd.params.edits),
    "fs.insertRegion": _region(insert_region),
    "fs.replaceRegion": _region(replace_region),
    "fs.deleteRegion": _region(delete_region),
}


def _is_root(path: str) -> bool:
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    return not parts


def _describe(change: str, added: int, removed: int) -> str:
    counts = f"+{added} -{removed} lines"
    if change == "create":
        return f"new file, {counts}"
    if change == "delete":
        return f"delete, {counts}"
    return counts if added or removed else "no change"


def _directory_listing(ws: Workspace, path: str) -> tuple[str, int]:
    """A diff-like listing of what deleting a directory moves to the trash.

    The count is exact (every entry at every depth); the workspace refuses a folder holding a
    protected path or more entries than its limit.
    """
    tree = ws.tree_listing(path, shown=LISTING_LIMIT)
    lines = [f"-{rel}/" if is_dir else f"-{rel} ({size} bytes)"
             for rel, is_dir, size in tree.entries]  # fmt: skip
    more = [f"-... and {tree.count - len(lines)} more"] if tree.count > len(lines) else []
    head = f"--- a/{path_key(path)}/\n+++ /dev/null\n"
    return head + "\n".join(lines + more) + ("\n" if lines else ""), tree.count


def blockers(items: list[Item], read: Item) -> list[Item]:
    """The earlier pending (or running) changes and runs of ``items`` that a read of
    ``read.path`` would see: the read waits for them."""
    if not read.path:
        return []
    key = path_key(read.path)
    return [
        item for item in items[: read.index]
        if item.kind in ("mutation", "run") and item.status in ("pending", "running")
        and paths_overlap(key, path_key(item.path or ""))
    ]  # fmt: skip


def after(proposal: Proposal) -> Snapshot:
    """The state a file will have once ``proposal`` is applied (for previews built on it)."""
    data = proposal.new_bytes
    digest = hashlib.sha256(data).hexdigest() if data is not None else None
    return Snapshot(proposal.snapshot.path, data is not None, False, data, digest)


def unchanged_summary(path: str, after: str | None = None) -> str:
    """The result of a change that changes nothing (it needs no approval and writes nothing);
    ``after``: the earlier change of the reply it was planned on."""
    if after is not None:
        return (f"No change: {path} has exactly this content once {after} is applied; "
                f"nothing more to write.")  # fmt: skip
    return f"No change: {path} already has exactly this content; nothing was written."


def plan(ws: Workspace, cmd: Command, base: Snapshot | None = None) -> Proposal:
    """Compute what a mutation would write; raises OperatorError for command faults.

    ``base`` is the state to build on instead of the disk: the outcome of an earlier change to
    the same file that is still waiting for a decision in the same reply. A change the
    notebook's own policy refuses (``ERR_NOTEBOOK_POLICY``) is refused here, before anyone is
    asked; the workspace checks again when it is applied.
    """
    if cmd.action == "fs.delete" and _is_root(cmd.params.path):
        raise OperatorError(codes.ERR_PROTECTED_PATH, "the workspace root cannot be deleted.")
    if cmd.path:  # refused before any preview: the host's Python environment, for one
        ws.check_changeable(cmd.path)
    proposal = _plan(ws, cmd, base)
    if not proposal.snapshot.is_dir:  # a folder's notebooks: its listing checked each
        ws.check_notebook_change(cmd.params.path, proposal.snapshot.data, proposal.new_bytes)
    return proposal


def _plan(ws: Workspace, cmd: Command, base: Snapshot | None) -> Proposal:
    if cmd.action in cells.CELL_ACTIONS:
        return cells.plan(ws, cmd, base)
    path = cmd.params.path
    snapshot = base if base is not None else ws.snapshot(path, limit=EDIT_LIMIT)
    if cmd.action == "fs.delete":
        if not snapshot.exists:
            raise OperatorError(codes.ERR_NOT_FOUND, f"{path} does not exist; nothing to delete.")
        if snapshot.is_dir:
            listing, count = _directory_listing(ws, path)
            return Proposal(None, snapshot, "delete", listing, 0, count,
                            f"delete directory ({count} entries)")  # fmt: skip
        diff, added, removed = diff_with_stats(snapshot.data, None, path)
        return Proposal(None, snapshot, "delete", diff, added, removed,
                        _describe("delete", added, removed))  # fmt: skip
    if snapshot.is_dir:
        raise OperatorError(codes.ERR_NOT_A_FILE, f"{path} is a directory.")
    if cmd.action == "fs.write":
        check_size(utf8_len(cmd.params.content))
        new_bytes = cmd.params.content.encode("utf-8")
    else:
        if not snapshot.exists:
            raise OperatorError(codes.ERR_NOT_FOUND, f"{path} does not exist; read before editing.")
        before = decode_text(snapshot.data)
        after = TRANSFORMS[cmd.action](before.text, cmd)
        new_bytes = encode_text(TextFile(text=after, bom=before.bom))
        check_size(len(new_bytes))  # the exact bytes (a BOM counts too)
    if is_notebook(path):  # on the parsed path: "nb.ipynb/" is nb.ipynb too
        validate_notebook(new_bytes)
    change = "modify" if snapshot.exists else "create"
    diff, added, removed = diff_with_stats(snapshot.data, new_bytes, path)
    proposal = Proposal(new_bytes, snapshot, change, diff, added, removed, "", diffed_as=path)
    cell_diff = proposal.cells if is_notebook(path) else None
    if cell_diff is not None:
        # Count what the person sees: the cells' source lines (the card draws the change as
        # cells), not the lines of notebook JSON behind them (as nb.* changes do).
        proposal.added = sum(entry["added"] for entry in cell_diff["cells"])
        proposal.removed = sum(entry["removed"] for entry in cell_diff["cells"])
    proposal.summary = _describe(change, proposal.added, proposal.removed)
    return proposal


SUCCESS = {
    "fs.write": "Wrote file",
    "fs.patch": "Patched file",
    "fs.applyEdits": "Applied edits",
    "fs.delete": "Moved to trash",
}


def success_summary(cmd: Command) -> str:
    """The result summary of an applied mutation (the reference app's wording)."""
    if cmd.action in SUCCESS:
        return SUCCESS[cmd.action]
    verbs = {"fs.insertRegion": "Inserted", "fs.replaceRegion": "Replaced"}
    verb = verbs.get(cmd.action, "Deleted")
    return f"{verb} region {cmd.params.marker_id}"


def apply(ws: Workspace, journal: Journal, cmd: Command, proposal: Proposal, *,
          session: str | None = None, decided_by: str | None = None,
          rule: str | None = None, label: str | None = None) -> tuple[Result, str]:  # fmt: skip
    """Write exactly the previewed bytes (or trash the path) and record it for undo and redo.

    Returns the result and the history entry id. Raises OperatorError (``ERR_STALE_PREVIEW``
    when the file changed since the preview). A delete is recorded *before* anything moves, so a
    delete that fails halfway is still undoable; one that moved nothing is marked void.
    """
    path = cmd.params.path
    entry_id = journal.allocate_id()
    entry = record_for(journal, entry_id, cmd.id, cmd.action, path, proposal,
                       session=session, decided_by=decided_by, rule=rule,
                       label=label)  # fmt: skip
    commit(ws, journal, entry, proposal)
    return Result(cmd.id, True, applied_summary(cmd, proposal)), entry_id


def applied_summary(cmd: Command, proposal: Proposal) -> str:
    """The summary of an applied change, with the outputs it left stale (a notebook's)."""
    from .notebook_cells import stale_outputs_note

    summary = (cells.success_summary(cmd, proposal) if cmd.action in cells.CELL_ACTIONS
               else success_summary(cmd))  # fmt: skip
    return summary + stale_outputs_note(proposal)


def record_for(journal: Journal, entry_id: str, command_id: str, action: str, path: str,
               proposal: Proposal, route: str = "disk",
               **who: str | None) -> HistoryEntry:  # fmt: skip
    """The history entry of ``proposal``, with the blobs undo and redo need saved first;
    ``route``: where it lands (``live_route``)."""
    before = proposal.snapshot
    before_sha = before.sha256 if before.exists and not before.is_dir else None
    if before_sha is not None:
        journal.save_blob(before.data)
    after_sha = None
    if proposal.new_bytes is not None:
        # Only redo needs these bytes (it fails closed if a power loss took them); the next
        # change's "before" copy, which undo needs, is synced when it is saved again.
        after_sha = journal.save_blob(proposal.new_bytes, durable=False)
    diff_sha = None
    if not derived_diff(proposal, path):
        diff_sha = journal.save_blob(history_diff(proposal.diff), durable=False)
    return HistoryEntry(
        entry_id=entry_id, time=time.time(), command_id=command_id, action=action, path=path,
        change=proposal.change, before_sha256=before_sha, after_sha256=after_sha,
        diff_sha256=diff_sha, route=route, **who,
    )  # fmt: skip


def derived_diff(proposal: Proposal, path: str) -> bool:
    """Whether the history makes the diff of ``proposal`` (to ``path``) from its new bytes
    instead of keeping it: a file created with a plain diff of those bytes, small enough to
    diff again when shown (``Journal.entries(diffs=True)``, byte for byte the same text).
    Measured: one blob (a file on the disk, up to 0.7 ms here) less per file created."""
    return (
        proposal.change == "create"
        and proposal.new_bytes is not None
        and proposal.diffed_as == path
        and len(proposal.new_bytes) <= DERIVED_DIFF_BYTES
    )


#: Why a notebook a shell command gave its own policy was moved to the trash (its history entry).
SET_ASIDE = ("a notebook's own policy (metadata.jupyter_operator) is set only by its author; "
             "a shell command set it")  # fmt: skip


def set_aside(ws: Workspace, journal: Journal, path: str, command_id: str, *,
              session: str | None = None) -> str:  # fmt: skip
    """Move to the trash a notebook that a shell command gave its own policy, journaled as a
    delete a person can undo (a model cannot: writing it back would add the policy); returns
    the history entry id. Only a notebook carrying a policy can be set aside."""
    snapshot = ws.policy_snapshot(path)
    diff, added, removed = diff_with_stats(snapshot.data, None, path)
    proposal = Proposal(None, snapshot, "delete", diff, added, removed,
                        _describe("delete", added, removed))  # fmt: skip
    entry_id = journal.allocate_id()
    entry = record_for(journal, entry_id, command_id, "fs.delete", path, proposal,
                       session=session, decided_by="rule", rule=SET_ASIDE)  # fmt: skip
    journal.record(entry)
    try:
        with journal.trash_slot(entry_id) as slot:
            ws.move_out(path, slot, expect=snapshot, set_aside=True)
    except BaseException:
        journal.mark_void(entry_id)
        raise
    return entry_id


def commit(ws: Workspace, journal: Journal, entry: HistoryEntry, proposal: Proposal) -> None:
    """Carry out ``proposal`` on the disk and record ``entry`` (see ``apply``)."""
    if proposal.change != "delete":
        created = ws.write(entry.path, proposal.new_bytes, expect=proposal.snapshot)
        # The folders it made go again when an undo leaves them empty.
        journal.record(replace(entry, created_dirs=created) if created else entry)
        return
    if proposal.snapshot.is_dir:  # still no protected path below it, still in bounds
        ws.tree_listing(entry.path, shown=0)
    journal.record(entry)
    try:
        with journal.trash_slot(entry.entry_id) as slot:
            ws.move_out(entry.path, slot, expect=proposal.snapshot)
    except PartialDelete as exc:
        journal.mark_partial(entry.entry_id)
        raise OperatorError(
            codes.ERR_IO, f"{exc.message}; undo {entry.entry_id} puts it back"
        ) from None
    except BaseException:
        journal.mark_void(entry.entry_id)
        raise
