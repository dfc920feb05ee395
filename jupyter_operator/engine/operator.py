"""The session every front uses: scan a reply, plan it, take decisions, produce results.

``Operator`` is one session (duplicate command ids are tracked across its runs). ``Operator.run``
scans a reply, runs the reads the policy allows, plans every mutation into a ``Proposal`` and
returns a ``Run``. Nothing in a run ever waits for a person: decisions arrive later as calls.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..execution import CellRunner
from ..protocol import (
    RUN_ACTIONS,
    Command,
    OperatorError,
    Result,
    ScanError,
    check_extensions,
    codes,
    error_result,
    interface_spec,
    scan,
)
from ..workspace import (
    DEFAULT_PROTECTED,
    HistoryEntry,
    Journal,
    Snapshot,
    Workspace,
    parse_path,
    path_key,
    paths_overlap,
)
from . import (
    carry_out,
    foreign_calls,
    history,
    live_route,
    mutations,
    outcome_notes,
    run_items,
)
from .item_states import Status
from .items import Foreign, Item
from .live_route import LivePages, LiveRooms, RoomHolders
from .policy import Policy
from .reads import READERS, OutputBudget
from .rules import Verdict
from .run import Run
from .shell_ops import ShellHistory
from .shell_policy import ShellPolicy
from .undo import pick, plan_group, undo_group
from .undo import redo as _redo
from .undo import undo as _undo

if TYPE_CHECKING:
    from ..workspace.ledger import ExecutionRecord

log = logging.getLogger(__name__)




_SWEPT: set[str] = set()
_SWEPT_GUARD = threading.Lock()


def _sweep_once(workspace: Workspace) -> None:
    """Remove stale temp files of killed writes, once per workspace root and process."""
    with _SWEPT_GUARD:
        if str(workspace.root) in _SWEPT:
            return
        _SWEPT.add(str(workspace.root))
    try:
        workspace.sweep_temps()
    except Exception:  # a sweep is housekeeping: it must never stop a session from starting
        log.exception("sweeping temp files failed")


class _CheckedPolicy:
    """``Operator.policy``, the rules the session decides by (see ``engine.policy``). Setting
    it checks the rules; reading it is reading an attribute (no ``__get__``).

    A rules file inside the workspace would let a model approve itself: refused, and the jail
    refuses changes to the active rules file wherever it is.
    """

    def __set__(self, operator: Operator, policy: Policy) -> None:
        policy.check_outside(operator.root)
        for source in policy.sources:
            operator.workspace.reserve(source)
        operator.__dict__["policy"] = policy


class Operator:
    """One session over one workspace root: runs replies, keeps history, undoes changes."""

    def __init__(self, root: str | os.PathLike[str] = ".", *, policy: Policy | None = None,
                 journal_dir: str | os.PathLike[str] | None = None,
                 protected: Iterable[str] | None = None,
                 session: str | None = None,
                 extensions: Iterable[str] = (),
                 runner: CellRunner | None = None,
                 notebook_cap: str | None = None,
                 workspace: Workspace | None = None,
                 journal: Journal | None = None,
                 label: str | None = None) -> None:  # fmt: skip
        """``workspace``: an open :class:`Workspace` of the same root, made with the same
        protected paths, journal and notebook cap, to use instead of opening one (a host that
        opens a session per reply shares one per root: opening it costs more than the rest of
        a session). ``journal``: likewise an open :class:`Journal` of the same root in
        ``journal_dir`` (finding its folder resolves both paths: most of what opening a session
        cost). The session closes neither; whoever opened them does."""
        #: Host extensions of the protocol this session runs (``"nb"``: the notebook cell
        #: actions). Off by default: their actions are then ``ERR_UNKNOWN_ACTION``.
        self.extensions: tuple[str, ...] = check_extensions(extensions)
        if workspace is not None and Path(root) == workspace.root:
            self.root = workspace.root  # resolved, and found a directory, when it was opened
        else:
            self.root = Path(root).resolve()
            if not self.root.is_dir():
                raise NotADirectoryError(f"workspace root is not a directory: {root}")
        # Rules for shell commands (JSON dialect and later ones) and the commands that ran.
        self.shell_policy = ShellPolicy()
        self.shell_history = ShellHistory()
        #: Recorded with every change this session applies (shown in the history).
        self.session = session or f"s-{secrets.token_hex(4)}"
        #: Who proposed what this session applies, for people (an MCP client's ``name
        #: version``; None: a pasted reply or a person), recorded with every change.
        self.label = label
        self._owns_journal = journal is None
        if journal is None:
            journal = Journal(self.root, Path(journal_dir) if journal_dir else None)
        self.journal = journal
        protect = list(DEFAULT_PROTECTED if protected is None else protected)
        # The journal folder is out of reach by its real location (wherever it is), not by name.
        # ``notebook_cap`` limits every notebook's own policy, which the workspace holds on
        # every read and change of a notebook (``workspace.notebook_guard``).
        self._owns_workspace = workspace is None
        if workspace is None:
            workspace = Workspace(self.root, protected=protect, journal_dir=self.journal.base,
                                  notebook_cap=notebook_cap)  # fmt: skip
        elif workspace.root != self.root:
            self._close_journal()
            raise ValueError(f"the shared workspace is of another root: {workspace.root}")
        self.workspace = workspace
        # What a fresh session over the same files needs (undo after this one closed).
        self._journal_dir, self._protected = journal_dir, protected
        self.closed = False
        #: What runs cells (``execution``); a headless kernel of this session by default,
        #: started on the first run.
        self._runner = runner
        #: The notebooks open in pages that apply approved cell changes themselves
        #: (``live_route.LivePages``); None: every change goes to the disk.
        self.pages: LivePages | None = None
        #: The notebooks open in collaborative rooms, edited on the server
        #: (``live_route.LiveRooms``); they take precedence over pages and the disk.
        self.rooms: LiveRooms | None = None
        #: Rooms this engine cannot edit but can ask about (a kernel asking its server,
        #: ``live_route.RoomHolders``): a notebook one holds is never written beneath it.
        self.room_holders: RoomHolders | None = None
        #: The model proposing the changes, when known: collaborators see "Operator (model)".
        self.model_name: str | None = None
        _sweep_once(self.workspace)
        self.__dict__["policy"] = Policy()  # until the one given is checked
        try:
            self.policy = policy or Policy()
        except ValueError:
            self.close()
            raise
        self._seen: dict[str, dict[str, str]] = {}
        self._taken: set[str] = set()
        self._lock = threading.RLock()

    @property
    def lock(self) -> threading.RLock:
        """Held while the session plans or applies: one decision at a time."""
        return self._lock

    @property
    def started_runner(self) -> CellRunner | None:
        """The cell runner if there is one already (unlike ``runner``, never starts one)."""
        return self._runner

    @property
    def notebook_cap(self) -> str | None:
        """The most any notebook's own policy may allow in this session (None: no cap)."""
        return self.workspace.notebook_cap

    @notebook_cap.setter
    def notebook_cap(self, cap: str | None) -> None:
        self.workspace.notebook_cap = cap

    @property
    def runner(self) -> CellRunner:
        """What runs this session's approved cells (made on first use)."""
        if self._runner is None:
            from ..execution.headless import HeadlessKernels

            self._runner = HeadlessKernels(self.workspace)
        return self._runner

    def __repr__(self) -> str:
        return f"<Operator root={str(self.root)!r} policy={self.policy.summary()!r}>"

    if TYPE_CHECKING:
        #: The rules this session decides by (see ``engine.policy``).
        policy: Policy
    else:
        policy = _CheckedPolicy()

    def close(self) -> None:
        """Release the workspace's open root descriptor (long-running hosts hold many sessions).

        Undo, redo and the history still work afterwards (see :meth:`_in_use`): a card outlives
        the run that made it.
        """
        self.closed = True
        if self._runner is not None:
            self._runner.close()
        if self._owns_workspace:
            self.workspace.close()
        self._close_journal()

    def _close_journal(self) -> None:
        if self._owns_journal:
            self.journal.close()

    @contextlib.contextmanager
    def _in_use(self) -> Iterator[Operator]:
        """This session, or after :meth:`close` a fresh one over the same root, journal and
        protected paths for one call (closed again after it).

        A run's engine session ends with the run (an agent run closes its own), but undo and
        history are offered long after, from its cards, the panel and the magics.
        """
        if not self.closed:
            yield self
            return
        fresh = Operator(self.root, policy=self.policy, journal_dir=self._journal_dir,
                         protected=self._protected, session=self.session,
                         notebook_cap=self.notebook_cap)  # fmt: skip
        fresh.pages, fresh.rooms, fresh.model_name = self.pages, self.rooms, self.model_name
        fresh.room_holders = self.room_holders
        try:
            yield fresh
        finally:
            fresh.close()

    def __enter__(self) -> Operator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def interface_spec(self) -> str:
        """The spec text this session's model should read (its appendix lists the extensions)."""
        return interface_spec(actions=self.extensions)

    def run(self, text: str) -> Run:
        """Scan and plan one reply. Reads run now; mutations wait for decisions (policy aside).

        A change to a file that an earlier change in the same reply is still waiting to modify
        is previewed on top of that earlier change (``Item.builds_on``).
        """
        with self._lock:
            scanned = scan(text, seen=self._seen, extensions=self.extensions)
            # Ids made up for scan errors must not equal any id of the same reply.
            self._taken = {entry.id for entry in scanned.items if entry.id}
            # Calls in the model's own tool-call format come after its blocks, translated.
            entries = [(entry, None) for entry in scanned.items] + foreign_calls.entries(
                text, self._taken, self.extensions)  # fmt: skip
            items: list[Item] = []
            budget = OutputBudget()
            waiting: dict[str, Item] = {}  # path key -> latest pending change to it
            queued: dict[str, Item] = {}  # path key -> latest pending change or run
            unsettled: dict[str, Item] = {}  # path key -> latest pending or running one
            for index, (entry, foreign) in enumerate(entries):
                earlier, key = None, ""
                if isinstance(entry, Command) and entry.path:
                    key = path_key(entry.path)
                    if entry.action in READERS:
                        # A read sees the earlier changes of its path: it waits for the
                        # latest one still undecided (``mutations.blockers``, at plan time).
                        earlier = max((other for other_key, other in unsettled.items()
                                       if paths_overlap(key, other_key)),
                                      key=lambda other: other.index, default=None)  # fmt: skip
                    else:
                        earlier = (queued if entry.action in RUN_ACTIONS else waiting).get(key)
                if entry is None:
                    item = foreign_calls.untranslated(index, foreign)
                else:
                    item = self._plan(index, entry, budget, earlier, foreign)
                if item.needs_approval and item.kind in ("mutation", "run"):
                    queued[key] = item
                    if item.kind == "mutation":
                        waiting[key] = item
                if item.kind in ("mutation", "run") and item.status in ("pending", "running"):
                    unsettled[key] = item
                items.append(item)
            run = Run(self, items, scanned.truncated_chars, scanned.skipped_duplicates, budget,
                      scanned.unread_markers)
            history.track(self.journal, run, *items)  # changes a rule applied while planning
        for item in items:  # runs a rule approves start once the run exists, in block order
            if item.kind == "run" and item.needs_approval and item.decided_by == "rule":
                run.approve_by_rule(item.id, item.rule or "")
        return run

    def undo(self, entry_id: str | None = None) -> HistoryEntry:
        """Restore what an applied change replaced (the latest live one when no id is given).

        Any entry can be undone unless a later live change touched the same path, or the path
        changed since: then ``OperatorError(ERR_UNDO_CONFLICT)`` names what is in the way. The
        item that applied the entry (in any run of this process) becomes ``"undone"``.
        """
        with self._lock, self._in_use() as op:
            entry = live_route.history_in_room(op, entry_id, "undo")
            if entry is None:  # to the disk, never beneath a room it could not go through
                live_route.refuse_beneath_room(op, pick(op.journal, entry_id, "undo").path)
                entry = _undo(op.workspace, op.journal, entry_id)
        history.settle(self.journal, entry)
        return entry

    def undo_group(self, entry_ids: list[str], *, preview: bool = False) -> list[HistoryEntry]:
        """Undo the live entries of a group (the changes of one run) in one step, newest first;
        with ``preview``, only say which entries it would undo, in that order.

        Refused as a whole, nothing changed, like a single undo (``ERR_UNDO_CONFLICT``: a path
        changed since, or a later change outside the group is in the way). A group with changes
        to a notebook a page holds open goes through that page (``undo_group_in_page``): here
        it is ``ERR_PAGE_UNAVAILABLE``. The items that applied the entries become undone.
        """
        with self._lock, self._in_use() as op:
            held = self._held_by_page(op, entry_ids)
            planned = plan_group(op.workspace, op.journal, entry_ids, held)
            if preview:
                return planned
            if held:
                raise OperatorError(codes.ERR_PAGE_UNAVAILABLE, "a notebook this run changed is "
                                    "open in a page, which undoes its cells: undo the run from "
                                    "that page. Nothing was changed.")  # fmt: skip
            done = undo_group(op.workspace, op.journal, entry_ids)
        for entry in done:
            history.settle(self.journal, entry)
        return done

    def undo_group_in_page(
        self, entry_ids: list[str]
    ) -> tuple[list[HistoryEntry], list[dict[str, Any]]] | None:
        """The undo of a group with changes to notebooks a page holds open: every check of
        ``undo_group`` (the disk's for the files, nothing changed), then what the page applies,
        one cell-edit change per notebook (``live_route.group_edits``). None: no page holds any
        of the group's notebooks (``undo_group``)."""
        with self._lock, self._in_use() as op:
            held = self._held_by_page(op, entry_ids)
            if not held:
                return None
            planned = plan_group(op.workspace, op.journal, entry_ids, held)
            return planned, live_route.group_edits(op, planned, held)

    def settle_group_in_page(self, entry_ids: list[str],
                             answer: dict[str, Any]) -> list[HistoryEntry]:  # fmt: skip
        """The page's answer to ``undo_group_in_page``: once it applied the cell edits, the
        files are undone on the disk (all or nothing, ``undo_group``) and the notebook changes
        marked undone; a stale or missing answer refuses the run, nothing changed.

        Should the server refuse now (a file, or the run's history, changed in the moment
        between the two requests), nothing is undone here and the error says the page restored
        the cells: the person's Ctrl+Z there brings them back in line.
        """
        applied = answer.get("state") == "applied"
        with self._lock, self._in_use() as op:
            try:
                held = self._held_by_page(op, entry_ids)
                planned = plan_group(op.workspace, op.journal, entry_ids, held)
                first = next((e for e in planned if e.entry_id in held), None)
                if first is None:
                    raise OperatorError(codes.ERR_PAGE_UNAVAILABLE, "no page holds this run's "
                                        "notebooks open any more: undo the run again.")  # fmt: skip
                live_route.refuse_unless_applied(answer, first, "undo")
                on_disk = [e.entry_id for e in planned if e.entry_id not in held]
                undone = undo_group(op.workspace, op.journal, on_disk) if on_disk else []
                done = {e.entry_id: e for e in undone}
            except OperatorError as exc:
                if not applied:
                    raise
                raise OperatorError(exc.code, f"{exc.message} The open notebook's cells were "
                                    "restored in its page while this run stays applied: "
                                    "press Ctrl+Z in the notebook to put them back.") from None
            for entry in planned:  # newest first: each notebook change is the latest live one
                if entry.entry_id in held:
                    done[entry.entry_id] = live_route.settled_in_page(op, entry, "undo")
            ordered = [done[e.entry_id] for e in planned]
        for entry in ordered:
            history.settle(self.journal, entry)
        return ordered

    def _held_by_page(self, op: Any, entry_ids: list[str]) -> set[str]:
        """The live entries of ``entry_ids`` whose notebook a page holds open (a room's are
        refused, as their room saves them); checked before the disk, which may lag the page."""
        wanted = set(entry_ids)
        held = set()
        for entry in op.journal.entries():
            if entry.entry_id in wanted and not entry.undone:
                if live_route.held_by_page(self, entry):
                    held.add(entry.entry_id)
                else:
                    live_route.refuse_beneath_room(op, entry.path)
        return held

    def redo(self, entry_id: str | None = None) -> HistoryEntry:
        """Apply an undone entry again (the one undone last when no id is given).

        Refused with ``ERR_UNDO_CONFLICT`` when the path is no longer as the entry found it or
        a later live change touched it; the item that applied it becomes ``"applied"`` again.
        """
        with self._lock, self._in_use() as op:
            entry = live_route.history_in_room(op, entry_id, "redo")
            if entry is None:  # to the disk, never beneath a room it could not go through
                live_route.refuse_beneath_room(op, pick(op.journal, entry_id, "redo").path)
                entry = _redo(op.workspace, op.journal, entry_id)
        history.settle(self.journal, entry)
        return entry

    def history_in_page(self, entry_id: str | None,
                        direction: str) -> tuple[HistoryEntry, dict[str, Any]] | None:  # fmt: skip
        """An undo or redo (``direction``) of a change to a notebook open in a page, as the cell
        edits that page applies (``live_route.history_edits``); None: it goes to the disk
        (``undo``, ``redo``)."""
        with self._lock:
            return live_route.history_edits(self, entry_id, direction)

    def settle_in_page(self, entry_id: str, direction: str,
                       answer: dict[str, Any]) -> HistoryEntry:  # fmt: skip
        """The page's answer to an undo or redo sent to it (``live_route.settle_history``)."""
        with self._lock:
            entry = live_route.settle_history(self, entry_id, direction, answer)
        history.settle(self.journal, entry)
        return entry

    def executions(self) -> list[ExecutionRecord]:
        """Every cell run in this workspace, oldest first (the execution ledger: cell, source
        sha256, kernel and its identity, execution count, status, who decided)."""
        from ..workspace.ledger import executions

        with self._in_use() as op:
            return executions(op.journal)

    def history(self) -> list[HistoryEntry]:
        """Applied changes in this workspace, oldest first (from every session), with diffs."""
        with self._in_use() as op:
            return op.journal.entries(diffs=True)

    def write_file(self, path: str, data: bytes, *, command_id: str = "file-api",
                   action: str = "file_write") -> HistoryEntry:  # fmt: skip
        """Replace (or create) one file outside any reply (the server's file API), journaled.

        The caller's client decided (``decided_by="person"``). A ``.ipynb`` target (judged on the
        parsed path) must hold a valid notebook. Undo and redo work as for any change.
        """
        from .file_api import write_file

        return write_file(self, path, data, command_id=command_id, action=action)

    def replan(self, item: Item, base: Snapshot | None, refused: str | None = None,
                edited: str | None = None) -> None:  # fmt: skip
        """Plan a pending change again (from the disk when ``base`` is None).

        ``refused`` names the rejected change this one was built on: when the change cannot be
        planned without it, the model is told that refusal is why (not that its command was bad).
        ``edited`` names the change it was built on when the person edited that one: a command
        that no longer fits the written content says so.
        """
        item.builds_on = None
        try:
            item.proposal = mutations.plan(self.workspace, item.command, base)
        except OperatorError as exc:
            if refused is not None:
                message = f"it builds on {refused}, which was rejected; nothing was changed."
                result = Result.failure(item.id, codes.ERR_BASE_REJECTED, message)
                self.finish_item(item, result, "rejected")
            else:
                if edited is not None:
                    exc = OperatorError(exc.code, f"{exc.message} (it builds on {edited}, which "
                                        "the person edited before approving; read the file again.)")
                self.finish_item(item, Result.of_error(item.id, exc), "failed")
            return
        item.summary = item.proposal.summary

    def _verdict(self, item: Item) -> Verdict:
        """What the rules say of ``item``; a translated tool call is never theirs to approve."""
        found = self.policy.verdict(item.action or "", item.path)
        return foreign_calls.verdict(found) if item.foreign is not None else found

    def start_read(self, item: Item, budget: OutputBudget) -> None:
        """Run a read now, or leave it for approval when the policy asks for one."""
        item.builds_on = None
        verdict = self._verdict(item)
        if verdict.verdict == "auto":
            item.decided_by, item.rule = "rule", verdict.text
            self.carry_out(item, budget)
        else:
            item.move_to("pending")
            item.rule = verdict.text
            item.summary = f"{item.action} waits for approval"

    def _plan(self, index: int, entry: Command | ScanError, budget: OutputBudget,
              earlier: Item | None = None, foreign: Foreign | None = None) -> Item:  # fmt: skip
        """Plan one entry of a reply. ``earlier``: for a change or a run, the pending change
        (or run) of the same path it is previewed on top of; for a read, the latest change or
        run of an overlapping path still undecided, which it waits for."""
        if isinstance(entry, ScanError):
            result = error_result(entry, index + 1, taken=self._taken)
            self._taken.add(result.id)
            return Item(index, result.id, None, None, entry.line, "error", "error",
                        result.summary, result, result.code)  # fmt: skip
        cmd = entry
        kind = "read" if cmd.action in READERS else "mutation"
        kind = "run" if cmd.action in RUN_ACTIONS else kind
        item = Item(index, cmd.id, cmd.action, cmd.path, cmd.line, kind, "pending", "",
                    command=cmd, foreign=foreign)  # fmt: skip
        verdict = self._verdict(item)
        if verdict.verdict == "deny":
            item.decided_by, item.rule = "rule", verdict.text
            message = f"{cmd.action} is not allowed in this workspace ({verdict.text})."
            return self.finish_item(item, Result.failure(cmd.id, codes.ERR_POLICY_DENIED, message),
                                    "denied")  # fmt: skip
        if kind == "read" and cmd.path:
            # A path the workspace refuses is never read, asked about or approved.
            try:
                parse_path(cmd.path)
            except OperatorError as exc:
                return self.finish_item(item, Result.of_error(cmd.id, exc), "failed")
        if kind == "run":
            return run_items.plan_item(self, item, verdict, earlier)
        if kind == "mutation":
            base = mutations.after(earlier.proposal) if earlier else None
            item.builds_on = earlier.id if earlier else None
            try:
                if base is None:  # a notebook open in a page: what the page shows
                    base = live_route.base(self, cmd.params.path)
                item.proposal = mutations.plan(self.workspace, cmd, base)
            except OperatorError as exc:
                # A notebook's own policy refuses the change whoever would approve it.
                denied = exc.code == codes.ERR_NOTEBOOK_POLICY
                return self.finish_item(item, Result.of_error(cmd.id, exc),
                                        "denied" if denied else "failed")  # fmt: skip
            except Exception:  # never a traceback for the model; the log has it for us
                log.exception("planning %s failed", cmd.id)
                return self.finish_item(item, carry_out.unexpected(cmd.id), "failed")
            item.summary = item.proposal.summary
            if item.proposal.change == "delete" and item.proposal.snapshot.is_dir:
                # A folder delete moves everything below it: every one of those paths is
                # decided by the rules too (a denied child keeps its folder).
                verdict = self.policy.verdict_all(cmd.action, cmd.path or "",
                                                  self._below(cmd.path or ""))  # fmt: skip
                verdict = foreign_calls.verdict(verdict) if foreign is not None else verdict
                if verdict.verdict == "deny":
                    item.decided_by, item.rule = "rule", verdict.text
                    message = f"{cmd.action} is not allowed in this workspace ({verdict.text})."
                    return self.finish_item(item, Result.failure(cmd.id, codes.ERR_POLICY_DENIED,
                                                                 message), "denied")  # fmt: skip
            if cmd.action in ("nb.insertCell", "nb.replaceCell"):  # may offer Approve & Run
                item.runs_refused = run_items.runs_refused(self, cmd.path or "")
            if item.proposal.unchanged:
                # Nothing to approve: the same reply run again, a write of what is there, or
                # a change that leaves the file as an earlier change of this reply makes it.
                summary = mutations.unchanged_summary(cmd.path or "", item.builds_on)
                item.builds_on = None
                return self.finish_item(item, Result(cmd.id, True, summary), "done")
        else:
            # Commands are a sequence: a read after a pending change to its path sees that change.
            if earlier is not None:
                item.move_to("waiting")
                item.builds_on = earlier.id
                item.summary = f"runs after {earlier.id} is decided"
                return item
            item.summary = f"{cmd.action} waits for approval"
        if verdict.verdict == "auto" and not item.builds_on:
            item.decided_by, item.rule = "rule", verdict.text
            self.carry_out(item, budget)
        elif verdict.verdict == "ask":
            item.rule = verdict.text  # why it asks (a person's decision clears it)
        return item

    def _below(self, path: str) -> list[str]:
        """Every path below the folder ``path`` (what deleting it would move)."""
        if not self.policy.rules:
            return []
        listing = self.workspace.tree_listing(path, shown=self.workspace.limits.max_delete_entries)
        return [entry[0] for entry in listing.entries]

    def carry_out(self, item: Item, budget: OutputBudget, run: Run | None = None, *,
                   disk: bool = False, and_run: bool = False) -> None:  # fmt: skip
        """Run an approved read, or apply an approved mutation's exact bytes (to the room or
        page that holds its notebook open, unless ``disk``; ``and_run`` clears the replaced
        cells' outputs there with the change), or start a run."""
        carry_out.carry_out(self, item, budget, run, disk=disk, and_run=and_run)

    @staticmethod
    def finish_item(item: Item, result: Result, status: Status) -> Item:
        """Give ``item`` its one result (with the notes a near miss earns) and its status."""
        return outcome_notes.finish(item, result, status)
