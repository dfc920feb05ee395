"""REST sessions: one engine ``Operator`` and its ``Run`` per scanned reply, kept in memory.

A session lives until it has been idle for ``idle_seconds`` or until ``max_sessions`` newer ones
push it out (least recently used first). Every engine call runs in a worker thread (it reads and
writes files) while holding the workspace's lock (exclusively for anything that may change
files), so a session's items are never read while another request is changing them, and
changes in one workspace are applied one at a time.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from ..engine.errors import EngineError
from ..protocol import OperatorError
from .errors import ApiError, api_error
from .workspaces import WorkspaceRegistry, close_operator

if TYPE_CHECKING:
    from ..engine import Operator, Run

T = TypeVar("T")

DECISIONS = ("approve", "reject")


@dataclass
class Session:
    """One scanned reply: the engine session, its run and when it was last used."""

    id: str
    workspace: str
    operator: Operator
    run: Run
    last_used: float = field(default=0.0)

    def to_dict(self) -> dict[str, Any]:
        """The session as the REST API shows it."""
        run = self.run
        return {
            "session": self.id,
            "workspace": self.workspace,
            "items": [item.to_dict() for item in run.items],
            "results_text": run.results_text,
            "truncated_chars": run.truncated_chars,
            "skipped_duplicates": list(run.skipped_duplicates),
            "done": run.done,
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
    ) -> None:
        self.registry = registry
        self.max_sessions = max_sessions
        self.idle_seconds = idle_seconds
        self._clock = clock
        self._sessions: OrderedDict[str, Session] = OrderedDict()  # least recently used first
        self._closing: set[asyncio.Task[None]] = set()

    # -- sessions ---------------------------------------------------------------------------

    async def scan(self, text: str, workspace: str = "default") -> dict[str, Any]:
        """Create a session for one reply; reads (and whatever the policy allows) have run."""
        self._check_workspace(workspace)

        def work() -> Session:
            operator = self.registry.new_operator(workspace)
            try:
                run = operator.run(text)
            except BaseException:
                close_operator(operator)
                raise
            return Session(secrets.token_urlsafe(16), workspace, operator, run)

        session = await self._locked(workspace, work)
        self._add(session)
        return session.to_dict()

    async def get(self, session_id: str) -> dict[str, Any]:
        """The current state of a session."""
        session = self._lookup(session_id)
        return await self._locked(session.workspace, session.to_dict, write=False)

    async def decide(
        self, session_id: str, item_id: str, decision: str, reason: str | None = None
    ) -> dict[str, Any]:
        """Approve or reject one pending item."""
        _check_decision(decision)
        session = self._lookup(session_id)

        def work() -> dict[str, Any]:
            run = session.run
            # An unknown id or a change built on an undecided one raises an EngineError,
            # answered by _locked with its own status and code.
            made = run.approve(item_id) if decision == "approve" else run.reject(item_id, reason)
            if made.outcome == "already_decided":
                raise ApiError(409, "already_decided", made.message)
            state = session.to_dict()
            return {"item": made.item.to_dict(), **_decision_view(state)}

        return await self._locked(session.workspace, work)

    async def decide_all(
        self, session_id: str, decision: str, reason: str | None = None
    ) -> dict[str, Any]:
        """Approve or reject every pending item of a session (in block order)."""
        _check_decision(decision)
        session = self._lookup(session_id)

        def work() -> dict[str, Any]:
            run = session.run
            decided = run.approve_all() if decision == "approve" else run.reject_all(reason)
            state = session.to_dict()
            return {"decided": [made.item.to_dict() for made in decided], **_decision_view(state)}

        return await self._locked(session.workspace, work)

    # -- workspace history ------------------------------------------------------------------

    async def undo(self, workspace: str, entry_id: str | None = None) -> dict[str, Any]:
        """Undo one applied change (the latest one not yet undone when ``entry_id`` is None)."""
        self._check_workspace(workspace)

        def work() -> dict[str, Any]:
            entry = self.registry.history_operator(workspace).undo(entry_id)
            return {"workspace": workspace, "entry": entry.to_dict()}

        return await self._locked(workspace, work)

    async def history(self, workspace: str) -> dict[str, Any]:
        """Every change applied in a workspace through any session, oldest first."""
        self._check_workspace(workspace)

        def work() -> dict[str, Any]:
            entries = self.registry.history_operator(workspace).history()
            return {"workspace": workspace, "history": [e.to_dict() for e in entries]}

        return await self._locked(workspace, work, write=False)

    def sweep(self) -> None:
        """Forget sessions idle for too long (also done on every request)."""
        self._expire()

    def close(self) -> None:
        """Forget every session."""
        while self._sessions:
            _, session = self._sessions.popitem(last=False)
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

    def _lookup(self, session_id: str) -> Session:
        self._expire()
        session = self._sessions.get(session_id)
        if session is None:
            raise ApiError(404, "session_not_found", "No such session (it may have expired)")
        session.last_used = self._clock()
        self._sessions.move_to_end(session_id)
        return session

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
            close_operator(session.operator)

    async def drain(self) -> None:
        """Wait until forgotten sessions have released their resources."""
        while self._closing:
            await asyncio.gather(*list(self._closing))


def _check_decision(decision: str) -> None:
    if decision not in DECISIONS:
        raise ApiError(400, "bad_request", "decision must be 'approve' or 'reject'")


def _decision_view(state: dict[str, Any]) -> dict[str, Any]:
    return {key: state[key] for key in ("items", "results_text", "done")}
