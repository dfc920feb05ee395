"""REST sessions: one engine ``Operator`` and its ``Run`` per scanned reply.

In memory, a session lives until it has been idle for ``idle_seconds`` or until ``max_sessions``
newer ones push it out (least recently used first), so memory stays bounded however many replies
are never decided. With a :class:`~jupyter_operator.workspace.sessionstore.SessionStore`, every
session is also saved after each change (beside the undo journal, outside every workspace) and
loaded back on demand: a page reload, an eviction or a server restart loses nothing, and a
decision made afterwards applies exactly the bytes that were previewed (or answers stale). Saved
sessions expire too (the store's ``keep_seconds`` and ``max_files``).

Every engine call runs in a worker thread (it reads and writes files) while holding the
workspace's lock (exclusively for anything that may change files), so a session's items are
never read while another request is changing them, and changes in one workspace are applied one
at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from ..engine.edits import EDITABLE_DIALECTS
from ..engine.errors import EngineError
from ..protocol import OperatorError, Result, codes
from .errors import ApiError, api_error
from .workspaces import WorkspaceRegistry, close_operator

if TYPE_CHECKING:
    from ..engine import Item, Operator, Run
    from ..execution import Outcome
    from ..workspace import HistoryEntry
    from ..workspace.sessionstore import SessionStore

T = TypeVar("T")
log = logging.getLogger(__name__)
#: Saved sessions ``GET sessions`` looks at (newest first), and how many it lists.
LIST_LOOKS = 50
LIST_MAX = 20

DECISIONS = ("approve", "reject")
#: Runs whose ``approve`` takes the person's edit (``content``); string-command runs do not.


def _dialect(run: Any) -> str:
    return str(getattr(run, "dialect", "operator"))


def _item_view(item: Item, run: Any) -> dict[str, Any]:
    """``Item.to_dict()``, with ``editable`` false where the run takes no edited content."""
    view = item.to_dict()
    if _dialect(run) not in EDITABLE_DIALECTS:
        view["editable"] = False
    return view


@dataclass
class Session:
    """One scanned reply: the engine session, its run and when it was last used."""

    id: str
    workspace: str
    operator: Operator
    run: Run
    text: str = ""
    created: float = field(default_factory=time.time)
    folder: str | None = None  # subfolder of the workspace the paths are taken from
    #: History entry id -> the id of the item whose approval made it.
    entries: dict[str, str] = field(default_factory=dict)
    last_used: float = field(default=0.0)
    #: A turn of the agent loop: its engine session is the loop's (not closed here) and it is
    #: not saved (an agent run does not resume after a restart).
    adopted: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The session as the REST API shows it."""
        run = self.run
        return {
            "session": self.id,
            "workspace": self.workspace,
            "folder": self.folder,
            "created": self.created,
            "items": [_item_view(item, run) for item in run.items],
            "results_text": run.results_text,
            "truncated_chars": run.truncated_chars,
            "unread_markers": getattr(run, "unread_markers", 0),
            "skipped_duplicates": list(run.skipped_duplicates),
            "done": run.done,
            "dialect": getattr(run, "dialect", "operator"),
        }


class SessionService:
    """What the REST handlers call: scan, decide, undo, history; failures are ApiError."""

    def __init__(
        self,
        registry: WorkspaceRegistry,
        *,
        max_sessions: int = 100,
        idle_seconds: float = 3600.0,
        clock: Callable[[], float] = time.monotonic,
        store: SessionStore | None = None,
    ) -> None:
        self.registry = registry
        self.store = store
        self.max_sessions = max_sessions
        self.idle_seconds = idle_seconds
        self._clock = clock
        self._sessions: OrderedDict[str, Session] = OrderedDict()  # least recently used first
        self._owners: dict[str, str] = {}  # history entry id -> session id (seen so far)
        self._closing: set[asyncio.Task[None]] = set()

    # -- sessions ---------------------------------------------------------------------------

    async def scan(
        self, text: str, workspace: str = "default", folder: str | None = None,
        dialect: str = "auto",
    ) -> dict[str, Any]:
        """Create a session for one reply; reads (and whatever the policy allows) have run.

        ``folder`` takes the reply's paths from a subfolder of the workspace (a notebook's own).
        ``dialect`` is ``auto`` (detected), ``operator``, ``json`` or ``commands``.
        """
        from .command_runs import plan_reply

        self._check_workspace(workspace)

        def work() -> Session:
            operator = self.registry.new_operator(workspace, folder)
            try:
                run = plan_reply(operator, text, dialect)
            except BaseException:
                close_operator(operator)
                raise
            session = Session(secrets.token_urlsafe(16), workspace, operator, run, text)
            session.folder = _clean_folder(folder)
            self._save(session)
            return session

        # Planning takes no workspace lock: a preview only reads, and every change the policy
        # applies at once takes the engine's own file lock around its check and rename
        # (workspace/locks.py). So one slow preview (a large edit planned up to its size cap)
        # never holds up decisions, undo or the file API in the same workspace.
        session = await self._unlocked(work)
        self._add(session)
        return session.to_dict()

    def adopt(self, workspace: str, operator: Operator, run: Run) -> str:
        """Serve a run made elsewhere (a turn of the agent loop) through the decide API.

        Returns the new session id. The caller keeps ``operator`` (it is not closed here).
        """
        session = Session(secrets.token_urlsafe(16), workspace, operator, run, adopted=True)
        self._add(session)
        return session.id

    async def locked(self, workspace: str, work: Callable[[], T], *, write: bool = True) -> T:
        """Run a blocking engine call in a worker thread under the workspace's lock."""
        return await self._locked(workspace, work, write=write)

    async def get(self, session_id: str) -> dict[str, Any]:
        """The current state of a session."""
        session = await self._lookup(session_id)
        return await self._locked(session.workspace, session.to_dict, write=False)

    async def open_sessions(self, workspace: str | None = None) -> dict[str, Any]:
        """Sessions still open (something waits for a decision), newest first."""
        seen: set[str] = set()
        found: list[dict[str, Any]] = []
        ids = list(reversed(self._sessions))
        if self.store is not None:
            # Only the most recently saved are looked at: listing must not load every file.
            ids += (await asyncio.to_thread(self.store.ids))[:LIST_LOOKS]
        for session_id in ids:
            if session_id in seen or len(found) >= LIST_MAX:
                continue
            seen.add(session_id)
            try:
                session = await self._lookup(session_id)
            except ApiError:
                continue
            if workspace is not None and session.workspace != workspace:
                continue
            pending = sum(1 for item in session.run.items if item.needs_approval)
            if pending:
                found.append({"session": session.id, "workspace": session.workspace,
                              "created": session.created, "pending": pending})  # fmt: skip
        return {"sessions": found}

    async def decide(
        self, session_id: str, item_id: str, decision: str, reason: str | None = None,
        content: str | None = None, and_run: bool = False,
    ) -> dict[str, Any]:
        """Approve or reject one pending item; ``content`` approves the person's edit of it."""
        _check_decision(decision)
        if content is not None and decision != "approve":
            raise ApiError(400, "bad_request", "content is only taken with decision 'approve'")
        session = await self._lookup(session_id)
        if content is not None and _dialect(session.run) not in EDITABLE_DIALECTS:
            raise ApiError(400, "bad_edit", "a string command's change cannot be edited here")

        def work() -> dict[str, Any]:
            run = session.run
            before = _views(run)
            # An unknown id or a change built on an undecided one raises an EngineError,
            # answered by _locked with its own status and code.
            with self._recording(session):
                if content is not None:
                    made = run.approve(item_id, content=content.encode("utf-8"))
                elif decision == "approve" and and_run and hasattr(run, "finish_execution"):
                    made = run.approve(item_id, and_run=True)
                elif decision == "approve":
                    made = run.approve(item_id)
                else:
                    made = run.reject(item_id, reason)
            if made.outcome == "already_decided":
                raise ApiError(409, "already_decided", made.message)
            self._save(session)
            return {"item": _decided_view(made.item, run, before),
                    **_decision_view(run, before, [made])}  # fmt: skip

        return await self._locked(session.workspace, work)

    async def finish_execution(self, session_id: str, item_id: str,
                               outcome: Outcome) -> dict[str, Any]:  # fmt: skip
        """The outcome of a run the open notebook carried out: the item ends, the model's
        result is made, the run is recorded (409 when the item is not running)."""
        session = await self._lookup(session_id)

        def work() -> dict[str, Any]:
            run = session.run
            if not hasattr(run, "finish_execution"):
                raise ApiError(400, "bad_request", "this session runs no cells")
            before = _views(run)
            with self._recording(session):
                made = run.finish_execution(item_id, outcome)
            if made.outcome == "already_decided":
                raise ApiError(409, "not_running", f"{item_id} is not running")
            self._save(session)
            return {"item": _decided_view(made.item, run, before),
                    **_decision_view(run, before, [made])}  # fmt: skip

        return await self._locked(session.workspace, work)

    async def content(self, session_id: str, item_id: str) -> dict[str, Any]:
        """The text an editor starts from: the proposed new content and the file's text.

        ``{"id", "path", "editable", "proposed", "original"}``; ``proposed`` is None for a
        delete, a read or content that is not text, ``original`` for a new file.
        """
        from ..engine.edits import original_text

        session = await self._lookup(session_id)

        def work() -> dict[str, Any]:
            item = session.run.item(item_id)
            editable = item.editable and _dialect(session.run) in EDITABLE_DIALECTS
            return {"id": item.id, "path": item.path, "editable": editable,
                    "proposed": item.proposed_text(), "original": original_text(item)}  # fmt: skip

        return await self._locked(session.workspace, work, write=False)

    async def decide_all(
        self, session_id: str, decision: str, reason: str | None = None
    ) -> dict[str, Any]:
        """Approve or reject every pending item of a session (in block order)."""
        _check_decision(decision)
        session = await self._lookup(session_id)

        def work() -> dict[str, Any]:
            run = session.run
            before = _views(run)
            with self._recording(session):
                decided = run.approve_all() if decision == "approve" else run.reject_all(reason)
            self._save(session)
            return {"decided": [_decided_view(made.item, run, before) for made in decided],
                    **_decision_view(run, before, decided)}  # fmt: skip

        return await self._locked(session.workspace, work)

    # -- workspace history ------------------------------------------------------------------

    async def undo(
        self,
        workspace: str,
        entry_id: str | None = None,
        session: str | None = None,
        folder: str | None = None,
    ) -> dict[str, Any]:
        """Undo one applied change (the latest one not yet undone when ``entry_id`` is None).

        When the change came from a session this server still knows, the undo goes through
        that session's engine, so its item turns ``undone`` and its results say what is true now.
        """
        self._check_workspace(workspace)
        owner = await self._owner(workspace, entry_id, session, folder)

        def work() -> dict[str, Any]:
            operator = owner.operator if owner else self._history_of(workspace, folder)
            entry = operator.undo(entry_id)
            if owner is not None:
                _mark_undone(owner, entry)
                self._save(owner)
            return {"workspace": workspace, "entry": self._entry_view(entry),
                    "session": owner.to_dict() if owner else None}  # fmt: skip

        return await self._locked(workspace, work)

    async def redo(
        self,
        workspace: str,
        entry_id: str | None = None,
        session: str | None = None,
        folder: str | None = None,
    ) -> dict[str, Any]:
        """Apply an undone change again (the engine refuses when the file changed since)."""
        self._check_workspace(workspace)
        owner = await self._owner(workspace, entry_id, session, folder)

        def work() -> dict[str, Any]:
            operator = owner.operator if owner else self._history_of(workspace, folder)
            entry = operator.redo(entry_id)
            if owner is not None:
                self._save(owner)
            return {"workspace": workspace, "entry": self._entry_view(entry),
                    "session": owner.to_dict() if owner else None}  # fmt: skip

        return await self._locked(workspace, work)

    async def history(self, workspace: str, folder: str | None = None) -> dict[str, Any]:
        """Every change applied in a workspace (or its subfolder ``folder``) through any
        session, oldest first."""
        self._check_workspace(workspace)

        def work() -> dict[str, Any]:
            operator = self._history_of(workspace, folder)
            entries = operator.history()
            from ..workspace.ledger import executions

            return {"workspace": workspace, "folder": _clean_folder(folder),
                    "history": [self._entry_view(e) for e in entries],
                    "executions": [r.to_dict() for r in executions(operator.journal)]}  # fmt: skip

        return await self._locked(workspace, work, write=False)

    def sweep(self) -> None:
        """Forget sessions idle for too long (also done on every request)."""
        self._expire()

    def close(self) -> None:
        """Forget every session."""
        while self._sessions:
            _, session = self._sessions.popitem(last=False)
            if not session.adopted:
                close_operator(session.operator)

    def __len__(self) -> int:
        return len(self._sessions)

    # -- internals --------------------------------------------------------------------------

    def _check_workspace(self, workspace: str) -> None:
        if workspace not in self.registry:
            raise ApiError(404, "workspace_not_found", "No workspace with this name")

    async def _locked(self, workspace: str, work: Callable[[], T], *, write: bool = True) -> T:
        lock = self.registry.lock(workspace)
        async with lock.write() if write else lock.read():
            return await self._unlocked(work)

    @staticmethod
    async def _unlocked(work: Callable[[], T]) -> T:
        """Run a blocking engine call in a worker thread; engine faults become API errors."""
        try:
            return await asyncio.to_thread(work)
        except OperatorError as exc:
            raise api_error(exc) from None
        except EngineError as exc:  # the one place engine errors become HTTP answers
            raise ApiError(exc.status_hint, exc.code, exc.message) from None

    def _expire(self) -> None:
        deadline = self._clock() - self.idle_seconds
        while self._sessions:
            oldest = next(iter(self._sessions.values()))
            if oldest.last_used > deadline:
                break
            self._drop(oldest.id)

    def _add(self, session: Session) -> None:
        self._expire()
        while len(self._sessions) >= self.max_sessions:
            self._drop(next(iter(self._sessions)))
        session.last_used = self._clock()
        self._sessions[session.id] = session

    async def _lookup(self, session_id: str) -> Session:
        self._expire()
        session = self._sessions.get(session_id)
        if session is None:
            session = await self._restore(session_id)
            self._add(session)
        session.last_used = self._clock()
        self._sessions.move_to_end(session_id)
        return session

    async def _restore(self, session_id: str) -> Session:
        """A saved session loaded back (after an eviction, a reload or a restart)."""
        missing = ApiError(404, "session_not_found", "No such session (it may have expired)")
        if self.store is None:
            raise missing
        from ..engine.persist import PersistError, load_data, load_run
        from .command_runs import ended_in_memory

        store = self.store
        raw = await asyncio.to_thread(store.load, session_id)
        if raw is None:
            raise missing
        try:
            data = load_data(raw)
            ended_in_memory(data)  # a string-command session: gone, and it says so
            workspace = data.get("workspace")
            if not isinstance(workspace, str) or workspace not in self.registry:
                raise PersistError("the session's workspace is not configured any more")
        except PersistError as exc:
            log.warning("saved session %s not restored: %s", session_id, exc)
            await asyncio.to_thread(store.delete, session_id)
            raise missing from None

        folder = data.get("folder")
        if folder is not None and not isinstance(folder, str):
            await asyncio.to_thread(store.delete, session_id)
            raise missing

        def work() -> Session:
            operator = self.registry.new_operator(workspace, folder)
            try:
                run = load_run(operator, data)
            except BaseException:
                close_operator(operator)
                raise
            entries = data.get("entries") or {}
            return Session(session_id, workspace, operator, run, data["text"],
                           float(data.get("created") or time.time()), folder,
                           {str(k): str(v) for k, v in dict(entries).items()})  # fmt: skip

        try:
            session = await self._locked(workspace, work, write=False)
        except PersistError as exc:
            log.warning("saved session %s not restored: %s", session_id, exc)
            await asyncio.to_thread(store.delete, session_id)
            raise missing from None
        found = self._sessions.get(session_id)  # restored meanwhile by another request
        if found is not None:
            close_operator(session.operator)
            return found
        return session

    def _save(self, session: Session) -> None:
        """Save the session (in the worker thread, under the workspace lock)."""
        if self.store is None or session.adopted:
            return
        dialect = getattr(session.run, "dialect", "operator")
        if dialect not in ("operator", "commands"):
            return  # JSON-operation sessions are kept in memory only
        from ..engine.persist import dump_run
        from .command_runs import memory_marker

        if dialect == "commands":  # kept in memory; the marker explains a later lookup
            data = memory_marker(session.workspace, session.created)
        else:
            data = dump_run(session.run, session.text, workspace=session.workspace,
                            folder=session.folder, created=session.created,
                            entries=session.entries)  # fmt: skip
        try:
            self.store.save(session.id, data)
        except OSError:
            # The decision itself stands; only a reload would lose this session.
            log.warning("could not save session %s", session.id, exc_info=True)

    @contextlib.contextmanager
    def _recording(self, session: Session) -> Iterator[None]:
        """Note which history entries a decision made (so undo can update the session).

        Each applied mutation knows its entry (``Item.entry_id``), so the journal is not read:
        reading it whole before and after every decision cost time in proportion to the
        workspace's history.
        """
        try:
            yield
        finally:
            for item in session.run.items:
                entry_id = getattr(item, "entry_id", None)
                if entry_id is not None:
                    session.entries[entry_id] = item.id

    def _history_of(self, workspace: str, folder: str | None) -> Operator:
        return self.registry.history_operator(workspace, _clean_folder(folder))

    async def _owner(
        self, workspace: str, entry_id: str | None, hint: str | None = None,
        folder: str | None = None,
    ) -> Session | None:  # fmt: skip
        """The session whose approval made a history entry, when this server knows it.

        ``hint`` is a session the client shows (perhaps saved before a restart): it is loaded
        and asked first.
        """
        if entry_id is None:

            def latest() -> str | None:
                live = [e for e in self._history_of(workspace, folder).history()
                        if not e.undone]  # fmt: skip
                return live[-1].entry_id if live else None

            entry_id = await self._locked(workspace, latest, write=False)
            if entry_id is None:
                return None
        if hint is not None:
            with contextlib.suppress(ApiError):
                hinted = await self._lookup(hint)
                if hinted.workspace == workspace and entry_id in hinted.entries:
                    return hinted  # its own folder's journal holds the entry
        for session in list(self._sessions.values()):
            if (session.workspace, session.folder) == (workspace, _clean_folder(folder)) and (
                entry_id in session.entries
            ):
                return session
        owner_id = self._owners.get(entry_id)
        if owner_id is not None:
            with contextlib.suppress(ApiError):
                return await self._lookup(owner_id)
        return None

    def _entry_view(self, entry: HistoryEntry) -> dict[str, Any]:
        """A history entry with who decided it, its session and its diff (when known)."""
        view = entry.to_dict()
        owner = next((s for s in self._sessions.values() if entry.entry_id in s.entries), None)
        item = None
        if owner is not None:
            self._owners[entry.entry_id] = owner.id
            item = next((i for i in owner.run.items if i.id == owner.entries[entry.entry_id]
                         and i.kind == "mutation"), None)  # fmt: skip
        known = owner.id if owner else self._owners.get(entry.entry_id)
        if known is not None or "session" not in view:  # this server's session id wins
            view["session"] = known
        view.setdefault("decided_by", getattr(item, "decided_by", None) or
                        ("person" if item is not None else None))  # fmt: skip
        view.setdefault("rule", getattr(item, "rule", None))
        if "diff" not in view:
            diff = getattr(entry, "diff", None)
            view["diff"] = diff() if callable(diff) else (diff or (item.diff if item else None))
        return view

    def _drop(self, session_id: str) -> None:
        session = self._sessions.pop(session_id)
        # A request may still be working with this session in a thread: close it only once
        # the workspace lock says nobody is (closing a descriptor in use could let the
        # number be reused under the jail's feet).
        task = asyncio.get_running_loop().create_task(self._close_when_idle(session))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def _close_when_idle(self, session: Session) -> None:
        async with self.registry.lock(session.workspace).write():
            if not session.adopted:
                close_operator(session.operator)

    async def drain(self) -> None:
        """Wait until forgotten sessions have released their resources."""
        while self._closing:
            await asyncio.gather(*list(self._closing))


def _check_decision(decision: str) -> None:
    if decision not in DECISIONS:
        raise ApiError(400, "bad_request", "decision must be 'approve' or 'reject'")


#: Item fields that can be large and that a decision seldom changes: left out of the items of
#: a decision's answer when the decision did not change them (the client keeps its copy).
KEPT_BY_CLIENT = ("diff", "cells")


def _views(run: Any) -> dict[int, dict[str, Any]]:
    """Every item's view by index (to tell afterwards what a decision changed)."""
    return {item.index: _item_view(item, run) for item in run.items}


def _answer_view(view: dict[str, Any], before: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """``view`` without the large fields it had already before the decision."""
    old = before.get(view["index"])
    if old is None:
        return view
    return {key: value for key, value in view.items()
            if key not in KEPT_BY_CLIENT or value is None or value != old.get(key)}  # fmt: skip


def _decided_view(item: Item, run: Any, before: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """The decided item as a decision's answer shows it (see :func:`_answer_view`)."""
    return _answer_view(_item_view(item, run), before)


def _decision_view(
    run: Any, before: dict[int, dict[str, Any]], decided: list[Any]
) -> dict[str, Any]:
    """What a decision answers besides the decided items: the run's other items it changed (one
    built on the decided change no longer waits for it, a string command's next request ran),
    the results text and whether everything is decided. Unchanged items are not sent again, nor
    an unchanged diff: the client has them, and a large diff would otherwise go out again with
    every decision."""
    done = {made.item.index for made in decided}
    changed = [_answer_view(view, before) for item in run.items if item.index not in done
               and (view := _item_view(item, run)) != before.get(item.index)]  # fmt: skip
    return {"items": changed, "results_text": run.results_text, "done": run.done}


def _clean_folder(folder: str | None) -> str | None:
    """A checked folder as shown to people: ``/`` separators, no empty or ``.`` parts."""
    if not folder:
        return None
    parts = [p for p in folder.replace("\\", "/").split("/") if p not in ("", ".")]
    return "/".join(parts) or None


def _mark_undone(session: Session, entry: HistoryEntry) -> None:
    """Show an undone change as undone on its item, and tell the model what is true now.

    Engines that do this themselves (the item's status is already ``undone``) are left alone.
    """
    item_id = session.entries.get(entry.entry_id)
    item: Item | None = next((i for i in session.run.items if i.id == item_id
                              and i.kind == "mutation"), None)  # fmt: skip
    if item is None or item.status != "applied":
        return
    from ..engine.history import UNDONE_MESSAGE

    # A session restored from disk: its items are not the ones the engine turned undone.
    item.status = "undone"  # type: ignore[assignment]
    item.error_code = codes.ERR_UNDONE
    item.result = Result.failure(item.id, codes.ERR_UNDONE, UNDONE_MESSAGE)
    item.summary = item.result.summary
