"""Where an approved notebook change lands: the shared room, the open page's notebook, or
the disk.

A notebook open in a collaborative room (jupyter-collaboration: ``LiveRooms``) is the shared
document every collaborator edits; the room saves it to the file itself. An approved change is
applied there, on the server, as the smallest cell edits in one transaction (``send``): every
collaborator sees it at once and keeps their own undo history, each cell the change rewrites
or deletes is guarded by its source in the room (``ERR_STALE_PREVIEW`` naming the cell), and
the journal records it with ``route="room"``. The file beneath an open room is never written:
a change the room cannot take as cell edits is refused, and undo and redo go through the room
too (``history_in_room``). Previews of such a notebook are made on the room's cells (``base``).
No disk write of a notebook change, undo or redo happens beneath a room this engine cannot
edit either (a kernel's magics ask their server: ``room_holders``, ``beneath_room``).

Otherwise, a notebook open in a JupyterLab or Notebook 7 page (with the extension) is the
person's working copy: it holds unsaved edits, outputs and execution counts the file does not.
Writing the change to the file beneath it would leave a tab whose next save drops it. So when
the pages say the notebook is open (``LivePages``), the apply step does not write: the item is
``running`` with the smallest cell edits (``notebooks.cell_edits``) for the page to apply to
its own notebook model, and ends when the page answers (``finish``): applied (the journal
records the change, before and after, with ``route="page"``; the person saves as usual), stale
(a cell the change touches was edited since the preview: ``ERR_STALE_PREVIEW`` naming it), or
the page no longer has it open (the change goes to the disk as for a closed notebook). No
answer within ``ANSWER_SECONDS``: to the disk when no page holds the notebook any more, else
refused (``ERR_PAGE_UNAVAILABLE``), never written under an open page.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..notebooks.cell_edits import cell_edits
from ..protocol import Result, codes
from ..workspace import Snapshot, canonical_path, is_notebook
from . import mutations
from .notebook_cells import without_stale_note

if TYPE_CHECKING:
    from .items import Item
    from .operating import Deciding, Operating

#: How long the engine waits for the page that holds the notebook to apply a change.
ANSWER_SECONDS = 10.0

WAITING = "applying in the open notebook"
NO_ANSWER = ("the notebook is open in a page that did not apply the change; nothing was "
             "changed. Ask the person to check the page, then propose it again.")  # fmt: skip


class LivePages(Protocol):
    """The notebooks open in pages that can apply cell edits (the server's ``OpenPages``)."""

    def holds(self, path: Path) -> bool:
        """Whether a page reported ``path`` (absolute) open recently enough to count."""
        ...

    def expect(self, path: Path, disk_sha256: str | None, data: bytes) -> None:
        """The page holding ``path`` now shows ``data`` while the file has ``disk_sha256``."""
        ...

    def expected(self, path: Path, disk_sha256: str | None) -> bytes | None:
        """What the page holding ``path`` shows after the changes sent to it, while the file is
        still ``disk_sha256``; None otherwise."""
        ...


class LiveRooms(Protocol):
    """The notebooks open in collaborative rooms, edited on the server (``server.rooms``)."""

    def holds(self, path: Path) -> bool:
        """Whether a room is open for the notebook ``path`` (absolute)."""
        ...

    def content(self, path: Path) -> bytes | None:
        """The room's notebook as nbformat JSON bytes; None when no room holds it."""
        ...

    def apply(self, path: Path, edits: dict[str, Any], actor: str) -> dict[str, Any]:
        """Apply ``notebooks.cell_edits`` edits to the room's notebook in one transaction, or
        none of them: ``{"state": "applied"}``, ``{"state": "stale", "cell": id}`` (a guarded
        cell's source is not the guard's) or ``{"state": "gone"}`` (no room any more).
        ``actor`` is the name collaborators see for the agent meanwhile."""
        ...


class RoomHolders(Protocol):
    """Who can say whether a room holds a notebook without this engine editing it (a kernel's
    magics asking their server: ``kernel/server_rooms.py``)."""

    def holds(self, path: Path) -> bool:
        """Whether a collaborative room holds the notebook ``path`` (absolute)."""
        ...


#: Why a change to a notebook held by a room this engine cannot edit is refused.
ROOM_ELSEWHERE = ("{path} is open in a collaborative room, which saves the file itself; "
                  "nothing was changed (writing the file beneath the room would reload it and "
                  "wipe every collaborator's undo). Propose the change from the Operator panel "
                  "of JupyterLab, which applies it in the room.")  # fmt: skip

#: Why a change to a notebook open in a room is refused rather than written to the file.
ROOM_NO_CELLS = ("{path} is open in a collaborative room and this change cannot be applied "
                 "there as cell edits (its cells need unique ids); nothing was changed. "
                 "Propose the change cell by cell (nb.* actions) instead.")  # fmt: skip


def _rooms(op: Operating) -> LiveRooms | None:
    return getattr(op, "rooms", None)


def _target(op: Operating, path: str) -> Path | None:
    canonical = canonical_path(path)
    if not is_notebook(canonical):
        return None
    return op.root.joinpath(*canonical.split("/"))


def in_room(op: Operating, path: str) -> bool:
    """Whether the notebook ``path`` (workspace-relative) is open in a collaborative room."""
    rooms, target = _rooms(op), _target(op, path)
    return rooms is not None and target is not None and rooms.holds(target)


def beneath_room(op: Operating, path: str) -> bool:
    """Whether writing the notebook ``path`` (workspace-relative) to the disk would write
    beneath a collaborative room: one this engine edits (``rooms``) or one it can only ask
    about (``room_holders``). Every disk write of a notebook change, undo or redo checks it."""
    target = _target(op, path)
    if target is None:
        return False
    holders = [getattr(op, "rooms", None), getattr(op, "room_holders", None)]
    return any(holder is not None and holder.holds(target) for holder in holders)


def refuse_beneath_room(op: Operating, path: str) -> None:
    """Raise ``ERR_PAGE_UNAVAILABLE`` when the notebook ``path`` is ``beneath_room``."""
    from ..protocol import OperatorError

    if beneath_room(op, path):
        raise OperatorError(codes.ERR_PAGE_UNAVAILABLE,
                            ROOM_ELSEWHERE.format(path=canonical_path(path)))  # fmt: skip


def actor(op: Operating) -> str:
    """The name collaborators see for the agent editing a room."""
    model = getattr(op, "model_name", None)
    return f"Operator ({model})" if model else "Operator"


def base(op: Operating, path: str) -> Snapshot | None:
    """The notebook ``path`` as its shared room holds it, or as the page holding it shows it
    when changes were sent there that the person has not saved yet: the next change is
    previewed on that (so it builds on them, and its guards are the sources collaborators
    see), not on the older file. None: the file is the base, as for any other path."""
    rooms, target = _rooms(op), _target(op, path)
    if rooms is not None and target is not None:
        data = rooms.content(target)
        if data is not None:
            disk = op.workspace.snapshot(path, limit=mutations.EDIT_LIMIT)
            return Snapshot(disk.path, True, False, data, hashlib.sha256(data).hexdigest())
    pages: LivePages | None = getattr(op, "pages", None)
    canonical = canonical_path(path)
    if pages is None or not is_notebook(canonical):
        return None
    target = op.root.joinpath(*canonical.split("/"))
    if not pages.holds(target):
        return None
    disk = op.workspace.snapshot(path, limit=mutations.EDIT_LIMIT)
    if not disk.exists or disk.is_dir:
        return None
    data = pages.expected(target, disk.sha256)
    if data is None:
        return None
    return Snapshot(disk.path, True, False, data, hashlib.sha256(data).hexdigest())


def _expect(op: Operating, path: str, data: bytes | None) -> None:
    """Note what the page holding ``path`` shows now (see ``base``)."""
    pages: LivePages | None = getattr(op, "pages", None)
    if pages is None or data is None:
        return
    disk = op.workspace.snapshot(path, limit=mutations.EDIT_LIMIT)
    pages.expect(op.root.joinpath(*canonical_path(path).split("/")), disk.sha256, data)


def notebook_file(op: Operating, item: Item) -> Path | None:
    """The absolute path of the notebook ``item`` modifies, or None (not a notebook change)."""
    proposal = item.proposal
    if item.kind != "mutation" or proposal is None or proposal.change != "modify":
        return None
    path = canonical_path(item.command.params.path)
    if not is_notebook(path):
        return None
    return op.root.joinpath(*path.split("/"))


def _in_room(op: Operating, item: Item, and_run: bool = False) -> bool:
    """Apply ``item``'s approved change in its notebook's room, when one is open: the item
    ends (applied, stale, or refused when the change cannot be cell edits). False: no room
    holds the notebook (any more); the change goes on to the page or the disk.

    ``and_run`` (Approve & Run): the cells whose source the change replaces lose the old
    source's outputs and execution count in the same transaction (``clear_replaced``)."""
    rooms = _rooms(op)
    proposal, cmd = item.proposal, item.command
    target = _target(op, cmd.params.path) if proposal is not None else None
    if rooms is None or target is None or not rooms.holds(target):
        return False
    if proposal.change != "modify":
        return _refuse_in_room(op, item, f"{item.path} is open in a collaborative room; it "
                               "is not deleted or replaced beneath it. Close it first.")
    edits = cell_edits(proposal.snapshot.data, proposal.new_bytes)
    if edits is None:
        return _refuse_in_room(op, item, ROOM_NO_CELLS.format(path=item.path))
    if and_run:
        clear_replaced(edits)
    answer = rooms.apply(target, edits, actor(op))
    state = answer.get("state")
    if state == "gone":
        return False
    item.live = {"route": "room", "state": state, "notebook": item.path, **edits}
    if and_run:
        item.live["and_run"] = True
    if state == "stale":
        cell = str(answer.get("cell") or "?")[:200]
        message = (f"cell {cell} of {item.path} was edited in the shared notebook since the "
                   "preview; nothing was changed. Read the cells again.")  # fmt: skip
        op.finish_item(item, Result.failure(cmd.id, codes.ERR_STALE_PREVIEW, message), "stale")
        return True
    entry_id = op.journal.allocate_id()
    entry = mutations.record_for(op.journal, entry_id, cmd.id, cmd.action,
                                 canonical_path(cmd.params.path), proposal,
                                 session=op.session, decided_by=item.decided_by,
                                 rule=item.rule, route="room")  # fmt: skip
    op.journal.record(entry)
    item.entry_id = entry_id
    summary = mutations.applied_summary(cmd, proposal)
    if and_run:
        summary = without_stale_note(summary)  # cleared, and the cell runs now
    item.summary = f"{proposal.summary}, in the shared notebook"
    op.finish_item(item, Result(cmd.id, True, f"{summary} (in the shared notebook; every "
                            "collaborator sees it, the room saves it)"), "applied")  # fmt: skip
    return True


def _refuse_in_room(op: Operating, item: Item, message: str) -> bool:
    op.finish_item(item, Result.failure(item.command.id, codes.ERR_PAGE_UNAVAILABLE, message),
               "failed")  # fmt: skip
    return True


def send(op: Operating, item: Item, run: Deciding | None, and_run: bool = False) -> bool:
    """Hand ``item``'s approved change to its notebook's room or to the page holding it.

    Returns False when the change goes to the disk instead (no room nor page holds it, or a
    page holds it and its cells have no unique ids to edit by). In a room the item ends now;
    in a page it is ``running`` until ``finish``. ``and_run`` (Approve & Run): on either
    route the replaced cells' old outputs are cleared with the change (``clear_replaced``).
    """
    if item.kind == "mutation" and _in_room(op, item, and_run):
        return True
    pages: LivePages | None = getattr(op, "pages", None)
    target = notebook_file(op, item)
    if pages is None or target is None or not pages.holds(target):
        return False
    proposal = item.proposal
    edits = cell_edits(proposal.snapshot.data, proposal.new_bytes)
    if edits is None:
        return False
    item.live = {"route": "page", "state": "waiting", "notebook": item.path, **edits}
    if and_run:
        item.live["and_run"] = True  # the cell runs once the page has the change
        clear_replaced(item.live)
    item.move_to("running")
    item.summary = WAITING
    if run is not None:
        wait(run, item)
    return True


def wait(run: Deciding, item: Item) -> None:
    """Give the page ``ANSWER_SECONDS`` to answer for ``item`` (see the module docstring).

    Pages that are told rather than asked (a kernel's own page, through its comm: ``deliver``)
    get the edits now; the server's pages find them in the decision's answer.
    """
    timer = threading.Timer(ANSWER_SECONDS, lambda: run.finish_live(item.id, {"state": "silent"}))
    timer.daemon = True
    timer.start()
    deliver = getattr(getattr(run.operator, "pages", None), "deliver", None)
    if deliver is not None:
        deliver(item.live, lambda answer: run.finish_live(item.id, answer))


def clear_replaced(edits: dict[str, Any]) -> None:
    """Approve & Run of a change to a room or a page: the cells whose source ``edits``
    (``notebooks.cell_edits``) replace lose the old source's outputs and execution count in
    the same step (they would lie until the run ends), as the run would leave them."""
    for op in edits["ops"]:
        if op["op"] == "set" and "source" in op["fields"]:
            op["fields"].setdefault("outputs", [])
            op["fields"].setdefault("execution_count", None)


def waiting(item: Item) -> bool:
    """Whether ``item`` waits for a page to apply its change."""
    return bool(item.live) and item.live.get("state") == "waiting" and item.status == "running"


def finish(op: Operating, item: Item, answer: dict[str, Any]) -> bool:
    """End a change the page was asked to apply, with its answer: ``{"state": "applied"}``,
    ``{"state": "stale", "cell": id}``, ``{"state": "gone"}`` (the page no longer has the
    notebook open) or ``{"state": "silent"}`` (no answer in time).

    Returns True when the change is to go to the disk after all (the caller applies it there).
    """
    state = answer.get("state")
    cmd = item.command
    live = item.live
    if state == "applied":
        entry_id = op.journal.allocate_id()
        entry = mutations.record_for(op.journal, entry_id, cmd.id, cmd.action,
                                     canonical_path(cmd.params.path), item.proposal,
                                     session=op.session, decided_by=item.decided_by,
                                     rule=item.rule, route="page",
                                     label=op.label)  # fmt: skip
        op.journal.record(entry)
        item.entry_id = entry_id
        _expect(op, cmd.params.path, item.proposal.new_bytes)
        summary = mutations.applied_summary(cmd, item.proposal)
        if live.get("and_run"):
            summary = without_stale_note(summary)  # cleared, and the cell runs now
        live["state"] = "applied"
        item.summary = f"{item.proposal.summary}, in the open notebook"
        op.finish_item(item, Result(cmd.id, True, f"{summary} (in the open notebook; the person "
                                     "saves it)"), "applied")  # fmt: skip
        return False
    if state == "stale":
        cell = str(answer.get("cell") or "?")[:200]
        live["state"] = "stale"
        message = (f"cell {cell} of {item.path} was edited in the open notebook since the "
                   "preview; nothing was changed. Read the cells again.")  # fmt: skip
        op.finish_item(item, Result.failure(cmd.id, codes.ERR_STALE_PREVIEW, message), "stale")
        return False
    target = notebook_file(op, item)
    pages: LivePages | None = getattr(op, "pages", None)
    if state == "silent" and pages is not None and target is not None and pages.holds(target):
        live["state"] = "silent"
        op.finish_item(item, Result.failure(cmd.id, codes.ERR_PAGE_UNAVAILABLE, NO_ANSWER),
                       "failed")  # fmt: skip
        return False
    # The page has closed the notebook (or is gone): the file is the notebook again.
    item.live = None
    return True


def history_in_room(op: Operating, entry_id: str | None, direction: str) -> Any | None:
    """Undo (``direction="undo"``) or redo of a change to a notebook open in a room, applied
    there as cell edits (the entry is marked), or None when no room holds its notebook.

    The same conflicts as on the disk are refused first; each cell the edits rewrite or delete
    is guarded by the source the change left (undo) or found (redo): a cell a collaborator
    edited since refuses it (``ERR_UNDO_CONFLICT`` naming the cell). A change the room cannot
    take as cell edits is refused: the file beneath an open room is never written.
    """
    from dataclasses import replace

    from ..protocol import OperatorError
    from .undo import pick

    rooms = _rooms(op)
    if rooms is None:
        return None
    entry = pick(op.journal, entry_id, direction)
    target = _target(op, entry.path)
    if target is None or not rooms.holds(target):
        return None
    edits = None
    if entry.change == "modify" and entry.before_sha256 and entry.after_sha256:
        before = op.journal.load_blob(entry.before_sha256)
        after = op.journal.load_blob(entry.after_sha256)
        edits = cell_edits(after, before) if direction == "undo" else cell_edits(before, after)
    if edits is None:
        raise OperatorError(codes.ERR_PAGE_UNAVAILABLE, f"{entry.path} is open in a "
                            f"collaborative room; {entry.entry_id} cannot be {direction}ne there "
                            "as cell edits and the file beneath it is not written.")  # fmt: skip
    answer = rooms.apply(target, edits, actor(op))
    if answer.get("state") == "gone":
        return None
    if answer.get("state") != "applied":
        cell = str(answer.get("cell") or "?")[:200]
        raise OperatorError(codes.ERR_UNDO_CONFLICT, f"cell {cell} of {entry.path} was edited "
                            f"in the shared notebook since {entry.entry_id}; nothing was changed.")
    if direction == "undo":
        op.journal.mark_undone(entry.entry_id)
        return replace(entry, undone=True, redone=False, partial=False,
                       undo_count=entry.undo_count + 1)  # fmt: skip
    op.journal.mark_redone(entry.entry_id)
    return replace(entry, undone=False, redone=True)


def history_edits(op: Operating, entry_id: str | None, direction: str) -> tuple[Any, dict] | None:
    """Undo (``direction="undo"``) or redo of a notebook change as cell edits for the page
    that holds the notebook open, or None when it goes to the disk as any other (not a
    notebook's modification, no page holds it, or its cells have no unique ids).

    The same conflicts as on the disk are refused first (a later live change of the same
    path). Each cell the edits rewrite or delete is guarded by the source the change left
    (undo) or found (redo): a cell the person edited since refuses it. Nothing is marked
    until the page answers (``settle_history``).
    """
    from .undo import pick

    pages: LivePages | None = getattr(op, "pages", None)
    if pages is None:
        return None
    entry = pick(op.journal, entry_id, direction)
    if entry.change != "modify" or not is_notebook(entry.path) or in_room(op, entry.path):
        return None  # a room's notebook is undone in the room (``history_in_room``)
    if not pages.holds(op.root.joinpath(*entry.path.split("/"))):
        return None
    if entry.before_sha256 is None or entry.after_sha256 is None:
        return None
    before = op.journal.load_blob(entry.before_sha256)
    after = op.journal.load_blob(entry.after_sha256)
    edits = cell_edits(after, before) if direction == "undo" else cell_edits(before, after)
    if edits is None:
        return None
    return entry, {"route": "page", "state": "waiting", "notebook": entry.path,
                   "entry_id": entry.entry_id, "direction": direction, **edits}  # fmt: skip


def group_edits(op: Operating, planned: list[Any], held: set[str]) -> list[dict[str, Any]]:
    """The undo of a run's changes to notebooks open in a page (``held``; ``planned`` newest
    first, as ``plan_group`` orders them) as the cell edits of each change, in that order: the
    page checks every guard against what the changes before it leave, then applies them all
    or none (livecells.ts ``applyLiveChanges``). ``ERR_PAGE_UNAVAILABLE`` when a change cannot
    be undone that way (cells without unique ids, a room holds the notebook, or the run also
    created or deleted it)."""
    from ..protocol import OperatorError

    changes = []
    for entry in planned:
        if entry.entry_id not in held:
            continue
        edits = None
        on_disk = any(e.path == entry.path and e.entry_id not in held for e in planned)
        known = entry.before_sha256 is not None and entry.after_sha256 is not None
        if known and not on_disk and not in_room(op, entry.path):
            edits = cell_edits(op.journal.load_blob(entry.after_sha256),
                               op.journal.load_blob(entry.before_sha256))  # fmt: skip
        if edits is None:
            raise OperatorError(codes.ERR_PAGE_UNAVAILABLE, f"{entry.path} is open in a page "
                                "that cannot undo this run's changes to it as cell edits: undo "
                                "them from History one by one, or save and close the notebook "
                                "first. Nothing was changed.")  # fmt: skip
        changes.append({"route": "page", "state": "waiting", "notebook": entry.path,
                        "entry_id": entry.entry_id, "direction": "undo", **edits})  # fmt: skip
    return changes


def held_by_page(op: Operating, entry: Any) -> bool:
    """Whether an undo or redo of ``entry`` would go to a page that holds its notebook open
    (``history_edits``), rather than to the disk."""
    pages: LivePages | None = getattr(op, "pages", None)
    return (pages is not None and entry.change == "modify" and is_notebook(entry.path)
            and pages.holds(op.root.joinpath(*entry.path.split("/"))))  # fmt: skip


def refuse_unless_applied(answer: dict[str, Any], entry: Any, direction: str) -> None:
    """Refuse unless the page applied what it was sent: stale is ``ERR_UNDO_CONFLICT`` naming
    the cell; any other answer (the page let go) is ``ERR_PAGE_UNAVAILABLE``."""
    from ..protocol import OperatorError

    state = answer.get("state")
    if state == "stale":
        cell = str(answer.get("cell") or "?")[:200]
        raise OperatorError(codes.ERR_UNDO_CONFLICT, f"cell {cell} of {entry.path} was edited in "
                            f"the open notebook since {entry.entry_id}; nothing was changed.")
    if state != "applied":
        raise OperatorError(codes.ERR_PAGE_UNAVAILABLE, f"{entry.path} is open in a page that "
                            f"did not {direction} {entry.entry_id}; {direction} it there.")


def settle_history(op: Operating, entry_id: str, direction: str, answer: dict[str, Any]) -> Any:
    """The page's answer to an undo or redo sent to it: applied marks the entry (the caller
    settles its item); stale refuses with ``ERR_UNDO_CONFLICT`` naming the cell; any other answer
    (the page let go) is ``ERR_PAGE_UNAVAILABLE`` while a page still holds the notebook."""
    from .undo import pick

    entry = pick(op.journal, entry_id, direction)
    refuse_unless_applied(answer, entry, direction)
    return settled_in_page(op, entry, direction)


def settled_in_page(op: Operating, entry: Any, direction: str) -> Any:
    """Mark ``entry`` undone (redone) once the page holding its notebook applied that, and
    note what the page shows now; the marked entry."""
    from dataclasses import replace

    shown = entry.before_sha256 if direction == "undo" else entry.after_sha256
    if shown is not None:
        _expect(op, entry.path, op.journal.load_blob(shown))
    if direction == "undo":
        op.journal.mark_undone(entry.entry_id)
        entry = replace(entry, undone=True, redone=False, partial=False,
                        undo_count=entry.undo_count + 1)  # fmt: skip
    else:
        op.journal.mark_redone(entry.entry_id)
        entry = replace(entry, undone=False, redone=True)
    return entry
