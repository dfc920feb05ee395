"""Where an approved notebook or text file change lands: the shared room, the open page's
notebook, or the disk.

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

A text file open in a room (a ``.py`` or ``.md`` in JupyterLab's editor) is the room's shared
text in the same way: an approved change to it is applied there as the smallest text edits in
one transaction, refused with ``ERR_STALE_PREVIEW`` when the shared text is no longer the one
the preview was made on, recorded with ``route="room"``, undone and redone there; no disk write
of a text file happens beneath its room either. A change the room cannot take as text (bytes
that are not UTF-8, a delete) is refused. A file no room holds goes to the disk.

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

The page that decides applies first: a pending change carries the same cell edits and guards
(``Item.plan``, from ``Proposal.edits`` as ``send`` uses them), so the page applies them at the
click, checking the guards on its own notebook, while the decision travels (the change shows
as fast as a paste). The engine still decides: when it routes exactly those edits to the page,
the page answers ``applied`` and the change is recorded as above; any refusal or other route
makes the page put its cells back. Nothing here differs for such a page.

No shell command writes beneath a page or a room either: the files they hold open
(``open_files``) are bound read-only in the command's sandbox (``shell_ops.execute``).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..notebooks.cell_edits import cell_edits
from ..protocol import Result, codes
from ..workspace import Snapshot, canonical_path, display_name, is_notebook
from . import mutations, outcome_notes
from .notebook_cells import without_stale_note
from .proposals import planned_edits

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

    def open_below(self, root: Path) -> list[Path]:
        """The files below ``root`` (absolute) that a page holds open now."""
        ...


class LiveRooms(Protocol):
    """The notebooks and text files open in collaborative rooms, edited on the server
    (``server.rooms``)."""

    def holds(self, path: Path) -> bool:
        """Whether a room is open for the notebook or text file ``path`` (absolute)."""
        ...

    def holding(self, folder: Path, files: Sequence[Path]) -> Path | None:
        """The first of ``files`` that a room holds, or None (see ``RoomHolders``)."""
        ...

    def content(self, path: Path) -> bytes | None:
        """The room's notebook as nbformat JSON bytes, or its text in UTF-8; None when no
        room holds it."""
        ...

    def apply_text(self, path: Path, before: str, after: str, actor: str) -> dict[str, Any]:
        """Turn the room's text from ``before`` into ``after`` in one transaction, or nothing:
        ``{"state": "applied"}``, ``{"state": "stale"}`` (the shared text is not ``before``)
        or ``{"state": "gone"}`` (no room any more)."""
        ...

    def apply(self, path: Path, edits: dict[str, Any], actor: str) -> dict[str, Any]:
        """Apply ``notebooks.cell_edits`` edits to the room's notebook in one transaction, or
        none of them: ``{"state": "applied"}``, ``{"state": "stale", "cell": id}`` (a guarded
        cell's source is not the guard's) or ``{"state": "gone"}`` (no room any more).
        ``actor`` is the name collaborators see for the agent meanwhile."""
        ...

    def open_below(self, root: Path) -> list[Path]:
        """The files below ``root`` (absolute) that a room holds open now."""
        ...


class RoomHolders(Protocol):
    """Who can say whether a room holds a notebook without this engine editing it (a kernel's
    magics asking their server: ``kernel/server_rooms.py``)."""

    def holds(self, path: Path) -> bool:
        """Whether a collaborative room holds the notebook or text file ``path`` (absolute)."""
        ...

    def holding(self, folder: Path, files: Sequence[Path]) -> Path | None:
        """The first of ``files`` that a room holds, or None: ``files`` are every file below
        the folder ``folder`` (absolute), as the engine listed them through its jail. A holder
        in another process may ask about ``folder`` instead, listed through its own jail."""
        ...


#: Why a change to a notebook held by a room this engine cannot edit is refused.
ROOM_ELSEWHERE = ("{path} is open in a collaborative room, which saves the file itself; "
                  "nothing was changed (writing the file beneath the room would reload it and "
                  "wipe every collaborator's undo). Propose the change from the Operator panel "
                  "of JupyterLab, which applies it in the room.")  # fmt: skip

#: Why a folder holding a file open in a room is not deleted or moved.
ROOM_BELOW = ("{path} holds {file}, which is open in a collaborative room; nothing was "
              "deleted or moved (the room would go on saving the file where it was, and every "
              "collaborator's undo would be lost). Close {file} first.")  # fmt: skip

#: Why a change sent to a room is refused when the room's server did not answer.
ROOM_NO_ANSWER = ("{path} is open in a collaborative room whose server did not confirm the "
                  "change; it was not written to the file. Check the room, then propose it "
                  "again.")  # fmt: skip

#: Why a change to a text file open in a room is refused rather than written to the file.
ROOM_NO_TEXT = ("{path} is open in a collaborative room and this change is not UTF-8 text the "
                "room can take; nothing was changed. Close the file first.")  # fmt: skip

#: Why a change to a notebook open in a room is refused rather than written to the file.
ROOM_NO_CELLS = ("{path} is open in a collaborative room and this change cannot be applied "
                 "there as cell edits (its cells need unique ids); nothing was changed. "
                 "Propose the change cell by cell (nb.* actions) instead.")  # fmt: skip


def _rooms(op: Operating) -> LiveRooms | None:
    return getattr(op, "rooms", None)


def _target(op: Operating, path: str) -> Path | None:
    """The absolute path of the file ``path`` names (a room holds files, never the root)."""
    canonical = canonical_path(path)
    if canonical == ".":
        return None
    return op.root.joinpath(*canonical.split("/"))


def in_room(op: Operating, path: str) -> bool:
    """Whether the notebook or text file ``path`` (workspace-relative) is open in a
    collaborative room."""
    rooms, target = _rooms(op), _target(op, path)
    return rooms is not None and target is not None and rooms.holds(target)


def _may_hold(holder: object) -> bool:
    """Whether a room of ``holder`` may hold a file now: ``holding_any`` where it says so (rooms
    on and one open), else ``active`` (rooms on)."""
    holding_any = getattr(holder, "holding_any", None)
    return bool(holding_any) if holding_any is not None else bool(getattr(holder, "active", True))


def room_file(op: Operating, path: str) -> str | None:
    """The workspace path of the file a collaborative room holds that writing, deleting or
    moving ``path`` (workspace-relative) on the disk would go beneath: ``path`` itself, or,
    for a folder, the first file anywhere below it (listed through the jail, bounded as a
    folder delete is: ``Workspace.files_below``). None: no room holds any. Rooms are those
    this engine edits (``rooms``) and those it can only ask about (``room_holders``)."""
    target = _target(op, path)
    # A holder that knows no room is open (``holding_any``) is left out before the folder is
    # listed: that listing was most of what this check cost every disk write.
    holders = [holder for holder in (getattr(op, "rooms", None),
                                     getattr(op, "room_holders", None))
               if holder is not None and _may_hold(holder)]  # fmt: skip
    if target is None or not holders:
        return None
    below = op.workspace.files_below(path)
    if below is None:  # a file (or nothing): its own room
        return canonical_path(path) if any(h.holds(target) for h in holders) else None
    files = [op.root.joinpath(*name.split("/")) for name in below]
    for holder in holders:
        holding = getattr(holder, "holding", None)
        if holding is not None:
            found = holding(target, files)
        else:
            found = next((file for file in files if holder.holds(file)), None)
        if found is not None:
            try:
                return Path(found).relative_to(op.root).as_posix()
            except ValueError:  # a holder naming the folder: held somewhere below it
                return canonical_path(path)
    return None


def beneath_room(op: Operating, path: str) -> bool:
    """Whether writing, deleting or moving ``path`` (workspace-relative; a file, or a folder
    and everything below it) on the disk would go beneath a collaborative room (``room_file``).
    Every disk write, delete or move of a change, undo or redo checks it."""
    return room_file(op, path) is not None


def refuse_beneath_room(op: Operating, path: str) -> None:
    """Raise ``ERR_PAGE_UNAVAILABLE``, naming the file, when ``path`` is ``beneath_room``;
    before anything is touched."""
    from ..protocol import OperatorError

    held = room_file(op, path)
    if held is None:
        return
    if held == canonical_path(path):
        raise OperatorError(codes.ERR_PAGE_UNAVAILABLE, ROOM_ELSEWHERE.format(path=held))
    raise OperatorError(codes.ERR_PAGE_UNAVAILABLE, ROOM_BELOW.format(
        path=canonical_path(path), file="/".join(display_name(name) for name in held.split("/"))))


def open_files(op: Operating) -> list[str]:
    """The files of the workspace (relative, ``/``-joined) that a page or a room holds open:
    the shell sandbox binds them read-only (``shell_ops.execute``), as no command may write
    beneath the person's working copy. Holders that cannot list (an older one) list nothing."""
    found: set[str] = set()
    for holder in (getattr(op, "pages", None), getattr(op, "rooms", None),
                   getattr(op, "room_holders", None)):  # fmt: skip
        listing = getattr(holder, "open_below", None)
        if listing is None or not getattr(holder, "active", True):
            continue
        for path in listing(op.root):
            try:
                found.add(Path(path).relative_to(op.root).as_posix())
            except ValueError:  # not below this workspace
                continue
    return sorted(found)


def actor(op: Operating) -> str:
    """The name collaborators see for the agent editing a room."""
    model = getattr(op, "model_name", None)
    return f"Operator ({model})" if model else "Operator"


def base(op: Operating, path: str) -> Snapshot | None:
    """The notebook or text file ``path`` as its shared room holds it, or the notebook as
    the page holding it shows it when changes were sent there that the person has not saved
    yet: the next change is previewed on that (so it builds on them, and its guards are what
    collaborators see), not on the older file. None: the file is the base, as for any other
    path."""
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
    if not is_notebook(cmd.params.path):
        return _text_in_room(op, item, rooms, target)
    edits = planned_edits(proposal)
    if edits is None:
        return _refuse_in_room(op, item, ROOM_NO_CELLS.format(path=item.path))
    if and_run:
        clear_replaced(edits)
    answer = rooms.apply(target, edits, actor(op))
    state = answer.get("state")
    if state == "gone":
        return False
    if state not in ("applied", "stale"):
        return _refuse_in_room(op, item, ROOM_NO_ANSWER.format(path=item.path))
    item.live = {"route": "room", "state": state, "notebook": item.path, **edits}
    if and_run:
        item.live["and_run"] = True
    if state == "stale":
        cell = str(answer.get("cell") or "?")[:200]
        message = (f"cell {cell} of {item.path} was edited in the shared notebook since the "
                   "preview; nothing was changed. Read the cells again.")  # fmt: skip
        stale = Result.failure(cmd.id, codes.ERR_STALE_PREVIEW, message)
        outcome_notes.finish(item, stale, "stale")
        return True
    _record_in_room(op, item)
    summary = mutations.applied_summary(cmd, proposal)
    if and_run:
        summary = without_stale_note(summary)  # cleared, and the cell runs now
    item.summary = f"{proposal.summary}, in the shared notebook"
    outcome_notes.finish(item, Result(cmd.id, True, f"{summary} (in the shared notebook; every "
                                      "collaborator sees it, the room saves it)"),
                         "applied")  # fmt: skip
    return True


def _record_in_room(op: Operating, item: Item) -> None:
    """Journal ``item``'s change as applied in its room (History says ``room``)."""
    cmd = item.command
    entry_id = op.journal.allocate_id()
    entry = mutations.record_for(op.journal, entry_id, cmd.id, cmd.action,
                                 canonical_path(cmd.params.path), item.proposal,
                                 session=op.session, decided_by=item.decided_by,
                                 rule=item.rule, route="room")  # fmt: skip
    op.journal.record(entry)
    item.entry_id = entry_id


def _as_text(data: bytes | None) -> str | None:
    """``data`` as the text a room holds, or None (not UTF-8)."""
    try:
        return (data or b"").decode("utf-8")
    except UnicodeDecodeError:
        return None


def _text_in_room(op: Operating, item: Item, rooms: LiveRooms, target: Path) -> bool:
    """Apply ``item``'s approved change to the text file a room holds (see ``_in_room``):
    guarded by the whole previewed original, which the shared text must still be."""
    proposal, cmd = item.proposal, item.command
    before, after = _as_text(proposal.snapshot.data), _as_text(proposal.new_bytes)
    if before is None or after is None:
        return _refuse_in_room(op, item, ROOM_NO_TEXT.format(path=item.path))
    answer = rooms.apply_text(target, before, after, actor(op))
    state = answer.get("state")
    if state == "gone":
        return False
    if state not in ("applied", "stale"):
        return _refuse_in_room(op, item, ROOM_NO_ANSWER.format(path=item.path))
    # ``notebook`` names the document for the panel, which then leaves the open file alone.
    item.live = {"route": "room", "state": state, "notebook": item.path, "ops": [],
                 "guards": {}, "sources": {}}  # fmt: skip
    if state != "applied":
        message = (f"{item.path} was edited in the shared file since the preview; nothing "
                   "was changed. Read the file again.")  # fmt: skip
        stale = Result.failure(cmd.id, codes.ERR_STALE_PREVIEW, message)
        outcome_notes.finish(item, stale, "stale")
        return True
    _record_in_room(op, item)
    summary = mutations.applied_summary(cmd, proposal)
    item.summary = f"{proposal.summary}, in the shared file"
    outcome_notes.finish(item, Result(cmd.id, True, f"{summary} (in the shared file; every "
                                      "collaborator sees it, the room saves it)"),
                         "applied")  # fmt: skip
    return True


def _refuse_in_room(op: Operating, item: Item, message: str) -> bool:
    unavailable = Result.failure(item.command.id, codes.ERR_PAGE_UNAVAILABLE, message)
    outcome_notes.finish(item, unavailable, "failed")
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
    edits = planned_edits(proposal)
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


def route(op: Operating, item: Item, run: Deciding | None, and_run: bool = False, *,
          disk: bool = False) -> bool:  # fmt: skip
    """Where ``item``'s approved change goes: True when its notebook's room or page took it
    (``send``; not tried when ``disk``: the page has let go of it), False when it goes to the
    disk. ``ERR_PAGE_UNAVAILABLE`` when the disk write would go beneath a room, which saves
    the file itself (``refuse_beneath_room``)."""
    if not disk and send(op, item, run, and_run):
        return True
    refuse_beneath_room(op, item.command.params.path)
    return False


def wait_all(run: Deciding, items: list[Item]) -> None:
    """``wait`` for each of ``items`` that waits for a page (changes a rule approved while
    the reply was planned, sent to the page that holds their notebook)."""
    for item in items:
        if waiting(item):
            wait(run, item)


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
        applied = Result(cmd.id, True, f"{summary} (in the open notebook; the person saves it)")
        outcome_notes.finish(item, applied, "applied")
        return False
    if state == "stale":
        cell = str(answer.get("cell") or "?")[:200]
        live["state"] = "stale"
        message = (f"cell {cell} of {item.path} was edited in the open notebook since the "
                   "preview; nothing was changed. Read the cells again.")  # fmt: skip
        stale = Result.failure(cmd.id, codes.ERR_STALE_PREVIEW, message)
        outcome_notes.finish(item, stale, "stale")
        return False
    target = notebook_file(op, item)
    pages: LivePages | None = getattr(op, "pages", None)
    if state == "silent" and pages is not None and target is not None and pages.holds(target):
        live["state"] = "silent"
        unavailable = Result.failure(cmd.id, codes.ERR_PAGE_UNAVAILABLE, NO_ANSWER)
        outcome_notes.finish(item, unavailable, "failed")
        return False
    # The page has closed the notebook (or is gone): the file is the notebook again.
    item.live = None
    return True


def history_in_room(op: Operating, entry_id: str | None, direction: str) -> Any | None:
    """Undo (``direction="undo"``) or redo of a change to a notebook open in a room, applied
    there as cell edits (the entry is marked), or None when no room holds its notebook. A text
    file's room takes it as text edits (``_text_history_in_room``).

    The same conflicts as on the disk are refused first; each cell the edits rewrite or delete
    is guarded by the source the change left (undo) or found (redo): a cell a collaborator
    edited since refuses it (``ERR_UNDO_CONFLICT`` naming the cell). A change the room cannot
    take as cell edits is refused: the file beneath an open room is never written.
    """
    from ..protocol import OperatorError
    from .undo import pick

    rooms = _rooms(op)
    if rooms is None:
        return None
    entry = pick(op.journal, entry_id, direction)
    target = _target(op, entry.path)
    if target is None or not rooms.holds(target):
        return None
    if not is_notebook(entry.path):
        if not _text_history_in_room(op, rooms, target, entry, direction):
            return None
        return _mark(op, entry, direction)
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
    _refuse_unanswered(entry, answer)
    if answer.get("state") != "applied":
        cell = str(answer.get("cell") or "?")[:200]
        raise OperatorError(codes.ERR_UNDO_CONFLICT, f"cell {cell} of {entry.path} was edited "
                            f"in the shared notebook since {entry.entry_id}; nothing was changed.")
    return _mark(op, entry, direction)


def _refuse_unanswered(entry: Any, answer: dict[str, Any]) -> None:
    """``ERR_PAGE_UNAVAILABLE`` when the room's server did not answer an undo or redo."""
    from ..protocol import OperatorError

    if answer.get("state") not in ("applied", "stale"):
        raise OperatorError(codes.ERR_PAGE_UNAVAILABLE,
                            ROOM_NO_ANSWER.format(path=entry.path))  # fmt: skip


def _mark(op: Operating, entry: Any, direction: str) -> Any:
    """Mark ``entry`` undone or redone (``direction``) in the journal; the entry as now."""
    from dataclasses import replace

    if direction == "undo":
        op.journal.mark_undone(entry.entry_id)
        return replace(entry, undone=True, redone=False, partial=False,
                       undo_count=entry.undo_count + 1)  # fmt: skip
    op.journal.mark_redone(entry.entry_id)
    return replace(entry, undone=False, redone=True)


def _text_history_in_room(op: Operating, rooms: LiveRooms, target: Path, entry: Any,
                          direction: str) -> bool:  # fmt: skip
    """Undo or redo ``entry``'s change to a text file in its room: the shared text must be
    what the change left (undo) or found (redo), else ``ERR_UNDO_CONFLICT``; a change the room
    cannot take as text is refused (``ERR_PAGE_UNAVAILABLE``), never written beneath it.
    False: no room holds the file any more."""
    from ..protocol import OperatorError

    texts = None
    if entry.change == "modify" and entry.before_sha256 and entry.after_sha256:
        before = _as_text(op.journal.load_blob(entry.before_sha256))
        after = _as_text(op.journal.load_blob(entry.after_sha256))
        if before is not None and after is not None:
            texts = (after, before) if direction == "undo" else (before, after)
    if texts is None:
        raise OperatorError(codes.ERR_PAGE_UNAVAILABLE, f"{entry.path} is open in a "
                            f"collaborative room; {entry.entry_id} cannot be {direction}ne there "
                            "as text edits and the file beneath it is not written.")  # fmt: skip
    answer = rooms.apply_text(target, *texts, actor(op))
    if answer.get("state") == "gone":
        return False
    _refuse_unanswered(entry, answer)
    if answer.get("state") != "applied":
        raise OperatorError(codes.ERR_UNDO_CONFLICT, f"{entry.path} was edited in the shared "
                            f"file since {entry.entry_id}; nothing was changed.")
    return True


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
