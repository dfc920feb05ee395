"""The workspace history requests of the REST sessions: undo, redo and the history listing.

A mixin of :class:`~.sessions.SessionService` (which provides the lock, the lookups and the
saving). Every undo and redo goes through the workspace's long-lived history session (one per
workspace folder, owned by the registry): never through the engine session of the run that made
the change, which may have ended and closed its jail (an agent run closes its own). The item
that applied the change, in whichever session of this server holds it, turns ``undone`` (or
``applied`` again) and its results say what is true now.
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .errors import ApiError
from .session_views import Session, clean_folder, mark_redone, mark_undone

if TYPE_CHECKING:
    from ..engine import Operator
    from ..workspace import HistoryEntry
    from .workspaces import WorkspaceRegistry

T = TypeVar("T")


class HistoryRequests:
    """``undo``, ``redo`` and ``history`` over the sessions of a :class:`SessionService`."""

    registry: WorkspaceRegistry
    _sessions: OrderedDict[str, Session]
    _owners: dict[str, str]  # history entry id -> session id (seen so far)

    if TYPE_CHECKING:  # provided by SessionService

        def _check_workspace(self, workspace: str) -> None: ...

        async def _locked(self, workspace: str, work: Callable[[], T], *,
                          write: bool = True) -> T: ...  # fmt: skip

        async def _lookup(self, session_id: str) -> Session: ...

        def _save(self, session: Session) -> None: ...

    async def undo(
        self,
        workspace: str,
        entry_id: str | None = None,
        session: str | None = None,
        folder: str | None = None,
        live: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Undo one applied change (the latest one not yet undone when ``entry_id`` is None).

        A change to a notebook open in a page is undone by that page: the answer carries
        ``live`` (the cell edits), and the page's own answer comes back as ``live`` with the
        entry's id (``Operator.settle_in_page``).

        When the change came from a session this server still knows (a run that ended, or
        one saved before a restart), its item turns ``undone`` and its results say so.
        """
        self._check_workspace(workspace)
        owner = await self._owner(workspace, entry_id, session, folder)

        def work() -> dict[str, Any]:
            operator = self._history_of(workspace, owner.folder if owner else folder)
            if live is not None and entry_id is not None:
                entry = operator.settle_in_page(entry_id, "undo", live)
            else:
                sent = operator.history_in_page(entry_id, "undo")
                if sent is not None:  # the page holding the notebook undoes it, then answers
                    return {"workspace": workspace, "entry": self._entry_view(sent[0]),
                            "session": owner.to_dict() if owner else None, "live": sent[1]}
                entry = operator.undo(entry_id)
            if owner is not None:
                mark_undone(owner, entry)
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
        live: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Apply an undone change again (the engine refuses when the file changed since); in
        the page holding the notebook as for ``undo``."""
        self._check_workspace(workspace)
        owner = await self._owner(workspace, entry_id, session, folder)

        def work() -> dict[str, Any]:
            operator = self._history_of(workspace, owner.folder if owner else folder)
            if live is not None and entry_id is not None:
                entry = operator.settle_in_page(entry_id, "redo", live)
            else:
                sent = operator.history_in_page(entry_id, "redo")
                if sent is not None:
                    return {"workspace": workspace, "entry": self._entry_view(sent[0]),
                            "session": owner.to_dict() if owner else None, "live": sent[1]}
                entry = operator.redo(entry_id)
            if owner is not None:
                mark_redone(owner, entry)
                self._save(owner)
            return {"workspace": workspace, "entry": self._entry_view(entry),
                    "session": owner.to_dict() if owner else None}  # fmt: skip

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
                        mark_undone(owner, entry)
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
