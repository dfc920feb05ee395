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
import functools
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from ..engine.edited_proposals import EDITABLE_DIALECTS
from ..engine.errors import EngineError
from ..protocol import OperatorError
from .errors import ApiError, api_error
from .saved_sessions import checked_data, rebuild, save_session
from .session_views import (
    Session,
    check_decision,
    clean_folder,
    decided_view,
    decision_view,
    mark_settled,
    run_dialect,
    views,
)
from .workspaces import WorkspaceRegistry, close_operator

if TYPE_CHECKING:
    from ..engine import DecidableRun, Operator
    from ..engine.undo import Direction
    from ..execution import Outcome
    from ..workspace import HistoryEntry
    from ..workspace.sessionstore import SessionStore

T = TypeVar("T")
log = logging.getLogger(__name__)
#: Saved sessions ``GET sessions`` looks at (newest first), and how many it lists.
LIST_LOOKS = 50
LIST_MAX = 20
#: Clients whose session is remembered (each MCP session is one): a forgotten client's next
#: waiting call starts a new session; the old one stays listed and decidable.
MAX_GROUPS = 1000
#: How long a cell run in a page holds without word from that page. The page that runs a cell
#: says so every few seconds (``POST .../execution/alive``), and says when it goes away
#: (reloaded, closed: the run ends at once); after this long without word the page is gone
#: all the same (crashed, offline) and the run ends as interrupted: its outcome can no longer
#: arrive, and a reloaded page never runs it again. Longer than a minute: a browser wakes a
#: tab hidden for long only once a minute.
RUN_LEASE_SECONDS = 90.0


def _ended_unchanged_call(session: Session) -> bool:
    """A client's tool call (labelled) that ended in its scan without changing anything (a
    read, a refusal): not saved. Its client has the whole answer, the panel lists only calls
    that wait, and nothing in it can be decided or undone; saving it (a read's content again)
    cost more than planning it."""
    run = session.run
    return (session.label is not None and run.done
            and not any(getattr(item, "entry_id", None) for item in run.items))  # fmt: skip


PAGE_LOST = ("the page that ran the cell went away (reloaded or closed) before the run ended; "
             "the cell may have run in part, and its output is not known. It was not run again.")


def _waits_for_page(item: Any) -> bool:
    """A cell run a page carries out (``DeferredRunner``) that has not ended yet."""
    return item.status == "running" and getattr(item, "execution", None) is not None


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
        #: (workspace, folder, client) -> the session gathering that client's calls.
        self._groups: dict[tuple[str, str | None, str], str] = {}
        self._groups_recalled = store is None  # saved clients' sessions looked up once
        self._joining = asyncio.Lock()
        self._closing: set[asyncio.Task[None]] = set()
        #: (session id, item id) -> when the cell run loses its page without word from it.
        self._leases: dict[tuple[str, str], float] = {}

    # -- sessions ---------------------------------------------------------------------------

    async def scan(
        self, text: str, workspace: str = "default", folder: str | None = None,
        dialect: str = "auto", label: str | None = None, whole_details: bool = False,
        files: Mapping[str, bytes] | None = None,
        group: str | None = None,
    ) -> dict[str, Any]:
        """Create a session for one reply; reads (and whatever the policy allows) have run.

        ``folder`` takes the reply's paths from a subfolder of the workspace (a notebook's own).
        ``dialect`` is ``auto`` (detected), ``operator``, ``json`` or ``commands``. ``label``
        names where the text came from (an MCP client's name and version) for people.
        ``whole_details``: each item's details in full, not only what its card shows (and no
        ``results_text``: see ``Session.to_dict``).
        ``files`` (path -> bytes): a review copy; the reply is planned in a private folder
        holding them (``WorkspaceRegistry.add_review``), never in ``workspace``, so a proposal
        made elsewhere (an experiment's run) is previewed against its own files, and deciding
        it changes nothing the server serves.
        ``whole_details``: each item's details in full, not only what its card shows.

        ``group`` names a client whose calls form one session (an MCP client): a reply that
        waits for a person joins that client's session (``client_runs.ClientRun``), and the
        answer is that session with only this reply's items. A reply answered at once (a
        read, a change a rule applied, a refusal) stays a session of its own, as without it.
        """
        from .. import engine

        if files is not None:
            review = dict(files)
            workspace = await self._unlocked(lambda: self.registry.add_review(review))
        self._check_workspace(workspace)

        def work() -> Session:
            operator = self.registry.new_operator(workspace, folder)
            operator.label = label  # recorded with each change it applies (the history's)
            try:
                run = engine.plan(operator, text, dialect)
            except BaseException:
                close_operator(operator)
                raise
            session = Session(secrets.token_urlsafe(16), workspace, operator, run, text)
            session.folder = clean_folder(folder)
            session.label = label
            if (group is None or run.done) and not _ended_unchanged_call(session):
                self._save(session)
            return session

        # Planning takes no workspace lock: a preview only reads, and every change the policy
        # applies at once takes the engine's own file lock around its check and rename
        # (workspace/locks.py). So one slow preview (a large edit planned up to its size cap)
        # never holds up decisions, undo or the file API in the same workspace.
        session = await self._unlocked(work)
        if group is not None and not session.run.done:
            return await self._join(group, session, whole_details)
        self._add(session)
        return session.to_dict(whole_details=whole_details)

    async def _recall_groups(self) -> None:
        """Which saved session gathers which client's calls (once, after a restart): the
        client's next call joins the session it had instead of starting another. Only the
        most recently saved are read, and only their JSON (no engine session is rebuilt)."""
        from ..engine.persist import PersistError

        self._groups_recalled = True
        store = self.store
        assert store is not None

        def read() -> dict[tuple[str, str | None, str], str]:
            found: dict[tuple[str, str | None, str], str] = {}
            for session_id in store.ids()[:LIST_LOOKS]:  # newest first: the newest one wins
                raw = store.load(session_id)
                try:
                    data = checked_data(raw, self.registry) if raw is not None else None
                except PersistError:
                    continue  # a broken one is left to _restore to report and remove
                except ApiError:
                    continue  # an ended command session's marker: it gathers no client
                group = data.get("group") if data is not None else None
                if isinstance(group, str) and "parts" in data:
                    found.setdefault((data["workspace"], data.get("folder"), group), session_id)
            return found

        for key, session_id in (await asyncio.to_thread(read)).items():
            self._groups.setdefault(key, session_id)  # a session joined since wins

    async def _join(self, group: str, call: Session, whole_details: bool) -> dict[str, Any]:
        """Add a waiting call to its client's session (made on the first one), saved."""
        async with self._joining:  # two first calls of a client at once make one session
            return await self._join_locked(group, call, whole_details)

    async def _join_locked(self, group: str, call: Session,
                           whole_details: bool) -> dict[str, Any]:  # fmt: skip
        from .client_runs import MAX_PARTS, ClientRun

        if not self._groups_recalled:
            await self._recall_groups()
        known = self._groups.get((call.workspace, call.folder, group))
        joined: Session | None = None
        if known is not None:
            with contextlib.suppress(ApiError):
                joined = await self._lookup(known)

        def work() -> Session:
            target = joined
            if target is None or not isinstance(target.run, ClientRun) or (
                len(target.run.parts) >= MAX_PARTS
            ):
                target = Session(secrets.token_urlsafe(16), call.workspace, call.operator,
                                 ClientRun(), folder=call.folder, label=call.label,
                                 group=group)  # fmt: skip
            try:
                target.run.add(call.run, call.text, call.operator)
            except ValueError:  # an id of the call is taken (a session restored after a restart)
                target = Session(secrets.token_urlsafe(16), call.workspace, call.operator,
                                 ClientRun(), folder=call.folder, label=call.label,
                                 group=group)  # fmt: skip
                target.run.add(call.run, call.text, call.operator)
            target.label = call.label  # the client may have been updated
            self._save(target)
            return target

        session = await self._locked(call.workspace, work)
        key = (call.workspace, call.folder, group)
        self._groups.pop(key, None)  # the most recently used last: the oldest go first
        self._groups[key] = session.id
        while len(self._groups) > MAX_GROUPS:
            self._groups.pop(next(iter(self._groups)))
        if session.id not in self._sessions:
            self._add(session)
        ids = {item.id for item in call.run.items}
        return session.to_dict(whole_details=whole_details, only=ids)

    def adopt(self, workspace: str, operator: Operator, run: DecidableRun) -> str:
        """Serve a run made elsewhere (a turn of the agent loop) through the decide API.

        Returns the new session id. The caller keeps ``operator`` (it is not closed here).
        """
        session = Session(secrets.token_urlsafe(16), workspace, operator, run, adopted=True)
        self._add(session)
        return session.id

    async def locked(self, workspace: str, work: Callable[[], T], *, write: bool = True) -> T:
        """Run a blocking engine call in a worker thread under the workspace's lock."""
        return await self._locked(workspace, work, write=write)

    async def get(self, session_id: str, *, whole_details: bool = False,
                  only: Collection[str] | None = None) -> dict[str, Any]:  # fmt: skip
        """The current state of a session (``whole_details``: each item's details in full,
        not only what its card shows, and no ``results_text``; ``only``: just the items with
        these ids)."""
        session = await self._lookup(session_id)
        await self._end_lost_runs(session)
        view = functools.partial(session.to_dict, whole_details=whole_details, only=only)
        return await self._locked(session.workspace, view, write=False)

    async def waiting_items(self, session_id: str, only: Collection[str]) -> list[Any]:
        """The engine items with these ids that wait for a decision (for a front that shows
        them itself, such as a terminal; decide them with :meth:`decide`)."""
        session = await self._lookup(session_id)

        def work() -> list[Any]:
            return [item for item in session.run.items if item.id in only
                    and item.needs_approval]  # fmt: skip

        return await self._locked(session.workspace, work, write=False)

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
                              "created": session.created, "pending": pending,
                              "label": session.label})  # fmt: skip
        return {"sessions": found}

    async def decide(
        self, session_id: str, item_id: str, decision: str, reason: str | None = None,
        content: str | None = None, and_run: bool = False,
    ) -> dict[str, Any]:
        """Approve or reject one pending item; ``content`` approves the person's edit of it."""
        check_decision(decision)
        if content is not None and decision != "approve":
            raise ApiError(400, "bad_request", "content is only taken with decision 'approve'")
        session = await self._lookup(session_id)
        if content is not None and run_dialect(session.run, item_id) not in EDITABLE_DIALECTS:
            raise ApiError(400, "bad_edit", "a string command's change cannot be edited here")

        def work() -> dict[str, Any]:
            run = session.run
            before = views(run)
            # An unknown id or a change built on an undecided one raises an EngineError,
            # answered by _locked with its own status and code.
            with self._recording(session):
                if decision == "approve":  # and_run: only where the dialect runs cells
                    edited = content.encode("utf-8") if content is not None else None
                    made = run.approve(item_id, content=edited, and_run=and_run)
                else:
                    made = run.reject(item_id, reason)
            if made.outcome == "already_decided":
                raise ApiError(409, "already_decided", made.message)
            self._save(session)
            return {"item": decided_view(made.item, run, before),
                    **decision_view(run, before, [made])}  # fmt: skip

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
            before = views(run)
            with self._recording(session):
                made = run.finish_execution(item_id, outcome)
            if made.outcome == "already_decided":
                raise ApiError(409, "not_running", f"{item_id} is not running")
            self._save(session)
            return {"item": decided_view(made.item, run, before),
                    **decision_view(run, before, [made])}  # fmt: skip

        return await self._locked(session.workspace, work)

    async def keep_running(self, session_id: str, item_id: str, *,
                           gone: bool = False) -> dict[str, Any]:  # fmt: skip
        """The page running this item's cell is still there: its run holds for another
        ``RUN_LEASE_SECONDS`` (409 when the item no longer runs, e.g. it ended as lost).
        ``gone``: the page is going away (reloaded, closed), so the run ends now."""
        from ..execution import Outcome

        session = await self._lookup(session_id)
        await self._end_lost_runs(session)

        def work() -> bool:
            return any(item.id == item_id and _waits_for_page(item)
                       for item in session.run.items)  # fmt: skip

        if not await self._locked(session.workspace, work, write=False):
            raise ApiError(409, "not_running", f"{item_id} is not running")
        if gone:
            self._leases.pop((session.id, item_id), None)
            outcome = Outcome("interrupted", message=PAGE_LOST)
            with contextlib.suppress(ApiError):  # its outcome arrived meanwhile: that stands
                await self.finish_execution(session.id, item_id, outcome)
            return {"running": False}
        self._leases[(session.id, item_id)] = self._clock() + RUN_LEASE_SECONDS
        return {"running": True, "lease_s": RUN_LEASE_SECONDS}

    async def end_lost_runs(self) -> None:
        """End the cell runs whose page went away, in every session holding one (also done
        when a session is looked at): whoever waits for the run (an agent) goes on."""
        for session_id in {key[0] for key in self._leases}:
            session = self._sessions.get(session_id)
            if session is not None:
                await self._end_lost_runs(session)

    async def _end_lost_runs(self, session: Session) -> None:
        """End as interrupted the cell runs of this session whose page said nothing for
        ``RUN_LEASE_SECONDS`` (a run first seen here gets that long from now)."""
        from ..execution import Outcome

        now = self._clock()

        def running() -> set[str]:
            return {item.id for item in session.run.items if _waits_for_page(item)}

        held = await self._locked(session.workspace, running, write=False)
        # The leases are kept on the loop's thread only (never in the engine's worker).
        for key in [key for key in self._leases if key[0] == session.id]:
            if key[1] not in held:
                del self._leases[key]  # ended by its page
        for item_id in held:
            self._leases.setdefault((session.id, item_id), now + RUN_LEASE_SECONDS)
        expired = [i for i in held if self._leases[(session.id, i)] <= now]
        for item_id in expired:
            outcome = Outcome("interrupted", message=PAGE_LOST)
            with contextlib.suppress(ApiError):  # its page answered meanwhile: that stands
                await self.finish_execution(session.id, item_id, outcome)
            self._leases.pop((session.id, item_id), None)

    async def finish_live(self, session_id: str, item_id: str,
                          answer: dict[str, Any]) -> dict[str, Any]:  # fmt: skip
        """The answer of the page asked to apply an approved notebook change: the item ends
        (``engine.live_route.finish``); 409 when it no longer waits for a page."""
        session = await self._lookup(session_id)

        def work() -> dict[str, Any]:
            run = session.run
            if not hasattr(run, "finish_live"):
                raise ApiError(400, "bad_request", "this session changes no notebooks")
            before = views(run)
            with self._recording(session):
                made = run.finish_live(item_id, answer)
            if made.outcome == "already_decided":
                raise ApiError(409, "not_waiting", f"{item_id} waits for no page")
            self._save(session)
            return {"item": decided_view(made.item, run, before),
                    **decision_view(run, before, [made])}  # fmt: skip

        return await self._locked(session.workspace, work)

    async def content(self, session_id: str, item_id: str) -> dict[str, Any]:
        """The text an editor starts from: the proposed new content and the file's text.

        ``{"id", "path", "editable", "proposed", "original"}``; ``proposed`` is None for a
        delete, a read or content that is not text, ``original`` for a new file.
        """
        from ..engine.edited_proposals import original_text

        session = await self._lookup(session_id)

        def work() -> dict[str, Any]:
            item = session.run.item(item_id)
            editable = item.editable and run_dialect(session.run, item.id) in EDITABLE_DIALECTS
            return {"id": item.id, "path": item.path, "editable": editable,
                    "proposed": item.proposed_text(), "original": original_text(item)}  # fmt: skip

        return await self._locked(session.workspace, work, write=False)

    async def decide_all(
        self, session_id: str, decision: str, reason: str | None = None
    ) -> dict[str, Any]:
        """Approve or reject every pending item of a session (in block order)."""
        check_decision(decision)
        session = await self._lookup(session_id)

        def work() -> dict[str, Any]:
            run = session.run
            before = views(run)
            with self._recording(session):
                decided = run.approve_all() if decision == "approve" else run.reject_all(reason)
            self._save(session)
            return {"decided": [decided_view(made.item, run, before) for made in decided],
                    **decision_view(run, before, decided)}  # fmt: skip

        return await self._locked(session.workspace, work)

    def sweep(self) -> None:
        """Forget sessions idle for too long (also done on every request)."""
        self._expire()

    def close(self) -> None:
        """Forget every session."""
        while self._sessions:
            _, session = self._sessions.popitem(last=False)
            if not session.adopted:
                session.close()

    def __len__(self) -> int:
        return len(self._sessions)

    # -- internals --------------------------------------------------------------------------

    def _check_workspace(self, workspace: str) -> None:
        if workspace not in self.registry:
            raise ApiError(404, "workspace_not_found", "No workspace with this name")

    async def _locked(self, workspace: str, work: Callable[[], T], *, write: bool = True) -> T:
        self._check_workspace(workspace)  # a review copy dropped since its session was made
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
        from ..engine.persist import PersistError

        store = self.store
        raw = await asyncio.to_thread(store.load, session_id)
        if raw is None:
            raise missing
        try:
            data = checked_data(raw, self.registry)
            session = await self._locked(data["workspace"],
                                         lambda: rebuild(self.registry, session_id, data),
                                         write=False)  # fmt: skip
        except PersistError as exc:
            log.warning("saved session %s not restored: %s", session_id, exc)
            await asyncio.to_thread(store.delete, session_id)
            raise missing from None
        found = self._sessions.get(session_id)  # restored meanwhile by another request
        if found is not None:
            session.close()
            return found
        return session

    def _save(self, session: Session) -> None:
        save_session(self.store, session)

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

    def _drop(self, session_id: str) -> None:
        session = self._sessions.pop(session_id)
        for key in [key for key in self._leases if key[0] == session_id]:
            del self._leases[key]
        # A request may still be working with this session in a thread: close it only once
        # the workspace lock says nobody is (closing a descriptor in use could let the
        # number be reused under the jail's feet).
        task = asyncio.get_running_loop().create_task(self._close_when_idle(session))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def _close_when_idle(self, session: Session) -> None:
        async with self.registry.lock(session.workspace).write():
            if not session.adopted:
                session.close()

    async def drain(self) -> None:
        """Wait until forgotten sessions have released their resources."""
        while self._closing:
            await asyncio.gather(*list(self._closing))


    # -- the workspace's history: undo, redo and the listing ------------------------------------
    # Every undo and redo goes through the workspace's long-lived history session (one per
    # workspace folder, owned by the registry): never through the engine session of the run
    # that made the change, which may have ended and closed its jail (an agent run closes its
    # own). The item that applied the change, in whichever session of this server holds it,
    # turns ``undone`` (or ``applied`` again) and its results say what is true now.

    async def undo(self, workspace: str, entry_id: str | None = None, session: str | None = None,
                   folder: str | None = None, live: dict[str, Any] | None = None,
                   ) -> dict[str, Any]:  # fmt: skip
        """Undo one applied change (the latest one not yet undone when ``entry_id`` is None)."""
        return await self.history_step("undo", workspace, entry_id, session, folder, live)

    async def redo(self, workspace: str, entry_id: str | None = None, session: str | None = None,
                   folder: str | None = None, live: dict[str, Any] | None = None,
                   ) -> dict[str, Any]:  # fmt: skip
        """Apply an undone change again (the one undone last when ``entry_id`` is None); the
        engine refuses when the file changed since."""
        return await self.history_step("redo", workspace, entry_id, session, folder, live)

    async def history_step(
        self,
        direction: Direction,
        workspace: str,
        entry_id: str | None = None,
        session: str | None = None,
        folder: str | None = None,
        live: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Undo one applied change, or redo an undone one (``direction``).

        A change to a notebook open in a page is undone (redone) by that page: the answer
        carries ``live`` (the cell edits), and the page's own answer comes back as ``live``
        with the entry's id (``Operator.settle_in_page``).

        When the change came from a session this server still knows (a run that ended, or
        one saved before a restart), its item turns ``undone`` (``applied`` again) and its
        results say so.
        """
        self._check_workspace(workspace)
        owner = await self._owner(workspace, entry_id, session, folder)
        shown = owner.to_dict if owner else lambda: None

        def work() -> dict[str, Any]:
            operator = self._history_of(workspace, owner.folder if owner else folder)
            if live is not None and entry_id is not None:
                entry = operator.settle_in_page(entry_id, direction, live)
            else:
                sent = operator.history_in_page(entry_id, direction)
                if sent is not None:  # the page holding the notebook does it, then answers
                    return {"workspace": workspace, "entry": self._entry_view(sent[0]),
                            "session": shown(), "live": sent[1]}  # fmt: skip
                entry = operator.undo(entry_id) if direction == "undo" else operator.redo(entry_id)
            if owner is not None:
                mark_settled(owner, entry)
                self._save(owner)
            return {"workspace": workspace, "entry": self._entry_view(entry), "session": shown()}

        return await self._locked(workspace, work)

    async def undo_run(
        self, workspace: str, run: str, folder: str | None = None, preview: bool = False,
        live: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Undo every live change of one run (the entries the history lists with ``session``
        ``run``) in one step, newest first (``Operator.undo_group``); with ``preview``, only
        list what it would restore. The run's cell runs come with it: a kernel is never
        undone (Rebuild state brings it in line).

        When the run changed a notebook open in a page, that page undoes its cells, as for a
        single undo: the answer carries ``live`` (one cell-edit change per notebook, nothing
        changed yet), and the page's own answer comes back as ``live``; then the files are
        undone on the disk (``Operator.settle_group_in_page``)."""
        self._check_workspace(workspace)

        def work() -> dict[str, Any]:
            from ..workspace.ledger import executions

            operator = self._history_of(workspace, folder)
            entries = operator.history()
            members = [e for e in entries if self._entry_view(e).get("session") == run]
            ids = [e.entry_id for e in members]
            sessions = {run} | {e.session for e in members if e.session}
            sent = None if preview or live is not None else operator.undo_group_in_page(ids)
            if sent is not None:  # the page applies the cell edits, then answers
                runs = [r.to_dict() for r in executions(operator.journal) if r.session in sessions]
                return {"workspace": workspace, "run": run, "preview": False,
                        "entries": [self._entry_view(e) for e in sent[0]], "executions": runs,
                        "live": sent[1]}  # fmt: skip
            if live is not None and not preview:
                done = operator.settle_group_in_page(ids, live)
            else:
                done = operator.undo_group(ids, preview=preview)
            if not preview:
                for entry in done:
                    owner = next((s for s in self._sessions.values()
                                  if entry.entry_id in s.entries), None)  # fmt: skip
                    if owner is not None:
                        mark_settled(owner, entry)
                        self._save(owner)
            runs = [r.to_dict() for r in executions(operator.journal) if r.session in sessions]
            return {"workspace": workspace, "run": run, "preview": preview,
                    "entries": [self._entry_view(e) for e in done], "executions": runs}  # fmt: skip

        return await self._locked(workspace, work, write=not preview)

    async def history(self, workspace: str, folder: str | None = None) -> dict[str, Any]:
        """Every change applied in a workspace (or its subfolder ``folder``) through any
        session, oldest first."""
        self._check_workspace(workspace)

        def work() -> dict[str, Any]:
            operator = self._history_of(workspace, folder)
            entries = operator.history()
            from ..workspace.ledger import executions

            return {"workspace": workspace, "folder": clean_folder(folder),
                    "history": [self._entry_view(e) for e in entries],
                    "executions": [r.to_dict() for r in executions(operator.journal)]}  # fmt: skip

        return await self._locked(workspace, work, write=False)

    async def undo_proposal(self, workspace: str, entry_id: str | None = None,
                            label: str | None = None) -> dict[str, Any]:  # fmt: skip
        """What undoing a change would write, for a model's undo to propose it (never done here).

        The entry is ``entry_id``, else the latest live change proposed by ``label`` (an MCP
        client's ``name version``), else the latest live change. Answers the entry's view,
        ``path`` and ``content``: the text to write back, or None when the change created the
        file (undoing it deletes the file). Refused (ApiError) as ``undo`` would refuse it, and
        for content that is not text: only a person's undo restores that.
        """
        from ..engine.undo import inverse

        self._check_workspace(workspace)

        def work() -> dict[str, Any]:
            operator = self._history_of(workspace, None)
            chosen = entry_id
            if chosen is None and label is not None:
                mine = [e for e in operator.history()
                        if not e.undone and self._label_of(e) == label]  # fmt: skip
                if not mine:
                    raise ApiError(404, "ERR_NOT_FOUND", f"no live change of {label} to undo.")
                chosen = mine[-1].entry_id
            entry, _, restored = inverse(operator.workspace, operator.journal, chosen)
            try:
                content = None if restored is None else restored.decode("utf-8")
            except UnicodeDecodeError:
                raise ApiError(409, "ERR_UNDO_CONFLICT", f"{entry.path} was not text before "
                               f"{entry.entry_id}; only a person can undo that change "
                               "(History).") from None  # fmt: skip
            return {"entry": self._entry_view(entry), "path": entry.path, "content": content}

        return await self._locked(workspace, work, write=False)

    def _label_of(self, entry: HistoryEntry) -> str | None:
        """Who proposed a change: the journal's record, else its session's (older entries)."""
        if entry.label is not None:
            return entry.label
        owner = next((s for s in self._sessions.values() if entry.entry_id in s.entries), None)
        return owner.label if owner is not None else None

    def _history_of(self, workspace: str, folder: str | None) -> Operator:
        return self.registry.history_operator(workspace, clean_folder(folder))

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
            if (session.workspace, session.folder) == (workspace, clean_folder(folder)) and (
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
        if view.get("label") is None:  # the journal's own (newer entries) wins
            view["label"] = owner.label if owner is not None else None
        if "diff" not in view:
            diff = getattr(entry, "diff", None)
            view["diff"] = diff() if callable(diff) else (diff or (item.diff if item else None))
        return view
