"""REST handlers under ``{base_url}jupyter-operator/api/``: JSON in, JSON out.

==========================================  ========================================================
``GET workspaces``                          ``{"workspaces": [{"name", "path"}]}``: ``path`` is the
                                            root relative to the server's root (``.``), or null
                                            when it lies outside it; never an absolute path
``GET spec``                                ``{"spec", "out_of_reach"}``: the interface spec a
                                            model is given, and what no workspace may reach
``POST scan``                               ``{"text", "workspace"?, "folder"?, "label"?,
                                            "files"?}`` (``folder``: take
                                            the paths from that subfolder, e.g. a notebook's;
                                            ``label``: who proposes, one line; ``files``: a
                                            review copy, path -> base64, previewed in a private
                                            folder instead of ``workspace``) ->
                                            a new session: ``{"session", "workspace", "folder",
                                            "created", "items", "results_text", "truncated_chars",
                                            "unread_markers", "skipped_duplicates", "done",
                                            "dialect"}`` (``unread_markers``: OPERATOR_CMD
                                            markers in the cut characters); reads
                                            have run. ``"dialect"?``: auto (default), operator,
                                            json (JSON operations) or commands (string commands:
                                            one item per request, ``results_text`` the responses)
``GET sessions?workspace=``                 ``{"sessions": [{"session", "workspace", "created",
                                            "pending"}]}``: sessions still waiting for decisions
``GET sessions/{id}``                       the same view of a session, as it is now (also after
                                            a reload or a server restart: sessions are saved)
``POST sessions/{id}/decide``               ``{"id", "decision": "approve"|"reject", "reason"?,
                                            "content"?}`` -> ``{"item", "items",
                                            "results_text", "done"}``: ``item`` the decided one,
                                            ``items`` only the others this changed; merge them
                                            by ``index`` into what you have, keeping ``diff``
                                            and ``cells`` where they are left out (unchanged);
                                            ``content`` (approve only) writes the person's edit
                                            of the new content instead (400 ``bad_edit`` when
                                            it cannot be approved)
``GET sessions/{id}/items/{item}/content``  ``{"id", "path", "editable", "proposed",
                                            "original"}``: the proposed new text (null for a
                                            delete) and the file's text it was previewed on
                                            (null for a new file), for an editor
``POST sessions/{id}/decide-all``           ``{"decision", "reason"?}``
                                            -> ``{"decided", "items", "results_text", "done"}``
                                            (``items``: the others it changed, as above)
``POST sessions/{id}/items/{item}/live``    ``{"state": "applied"|"stale"|"gone", "cell"?}``: what
                                            the page holding a notebook did with an approved
                                            change sent to it (``live`` of the item); as decide
``POST open-notebooks``                     ``{"page", "paths", "closing"?}`` -> ``{"heartbeat",
                                            "expires"}``: the notebooks a page has open
                                            (relative to the server's root), sent on change
                                            and every ``heartbeat`` seconds
``POST undo``                               ``{"workspace"?, "id"?, "session"?, "folder"?}`` ->
                                            ``{"workspace", "entry", "session"}``: the undone
                                            entry and the session that made it (its item now says
                                            ``undone``), or null; ``session`` names the one the
                                            client shows (found even after a restart)
                                            A notebook open in a page: ``{..., "live"}`` (the
                                            cell edits; nothing is undone yet), then the page
                                            posts ``{"id", "live": {"state", "cell"?}}``
``POST redo``                               the same, for a change applied again
``POST undo-run``                           ``{"workspace"?, "run", "folder"?, "preview"?}`` ->
                                            ``{"run", "entries", "executions"}``: every live
                                            change of the run (``session`` of its history
                                            entries) undone in one step, newest first, or
                                            refused as a whole; ``preview``: only listed
``GET rooms?path=``                         ``{"open": bool}``: whether a collaborative room holds
                                            the notebook or text file at that absolute path
                                            (kernels ask); ``content=1``: and its ``content``;
                                            ``below=1``: ``{"open", "file"}``, the first file
                                            below that folder a room holds
                                            ``open=1``: ``{"files"}``, every file below that
                                            folder open in a page or a room
``POST rooms``                              ``{"state"}``: a kernel's approved change applied in
                                            the room (cell ``edits``, or ``before``/``after``)
``GET history?workspace=&folder=``          ``{"workspace", "folder", "history": [entry...]}``,
                                            oldest first (a subfolder keeps its own history);
                                            entries carry ``session``, ``decided_by``, ``rule``
                                            and ``diff`` when known
==========================================  ========================================================

``workspace`` defaults to ``default``. Items are ``Item.to_dict()`` of the engine.

Handlers only parse the request, call :class:`~.sessions.SessionService` and serialise the
answer. Every verb carries ``@web.authenticated`` and ``@authorized`` (resource ``contents``:
reads need ``read``, anything that can change files needs ``write``). Errors are always
``{"error": {"code", "message"}}`` with 400 (bad request), 403, 404 (unknown session,
workspace, item or history entry), 409 (already decided; undo refused because the file
changed since), 410 (``session_ended``: a string-command session the server no longer has,
see ``command_runs``), 413 (body over ``OperatorExtension.max_body_size``, also when sent
chunked), 501 (redo with an engine that cannot redo) or 500, never an HTML page or a traceback.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from http.client import responses
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler
from jupyter_server.extension.handler import ExtensionHandlerMixin
from tornado import web

from .errors import ApiError
from .json_bodies import dump_json, parse_body

if TYPE_CHECKING:
    from ..engine.undo import Direction
    from .bodies import Body
    from .sessions import SessionService

AUTH_RESOURCE = "contents"
#: Bytes of an oversized chunked body read (and dropped) before the connection is closed.
DRAIN_LIMIT = 64 * 1024 * 1024
SESSION_ID = r"(?P<session_id>[A-Za-z0-9_-]{1,64})"
#: A command id in a URL (the client encodes it; ids are free text of one line).
ITEM_ID = r"(?P<item_id>[^/]{1,512})"

#: Codes for errors raised by jupyter-server or tornado rather than by this package.
HTTP_CODES = {
    400: "bad_request",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "too_large",
}


# The bodies' pydantic models live in .bodies, imported by the first request that has a body:
# loading the extension must not load pydantic (see bench/server_start.py).
M = TypeVar("M", bound="Body")


class OperatorApiHandler(ExtensionHandlerMixin, APIHandler):
    """Shared plumbing: the service, JSON replies, JSON errors."""

    auth_resource = AUTH_RESOURCE

    @property
    def service(self) -> SessionService:
        """The extension's session service."""
        return self.extensionapp.sessions  # type: ignore[attr-defined,no-any-return]

    async def respond(self, result: Awaitable[dict[str, Any]]) -> None:
        """Finish with the awaited result, or with the error it raised."""
        try:
            body = await result
        except ApiError as exc:
            self.set_status(exc.status)
            body = exc.to_dict()
        self.finish(dump_json(body))

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """Errors raised outside our code (auth, routing, tornado) in our JSON shape."""
        code = HTTP_CODES.get(status_code, "internal_error" if status_code >= 500 else "http_error")
        message = responses.get(status_code, "Error")
        exc = kwargs.get("exc_info", (None, None, None))[1]
        if isinstance(exc, web.HTTPError) and exc.log_message and status_code < 500:
            # jupyter-server's and our own messages (auth, limits); they name no host path.
            try:
                message = exc.log_message % exc.args
            except (TypeError, ValueError):
                message = exc.log_message
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"error": {"code": code, "message": message}}))


@web.stream_request_body
class OperatorPostHandler(OperatorApiHandler):
    """A handler with a JSON body of bounded size (checked while it arrives, not after)."""

    _chunks: list[bytes]
    _received: int

    @property
    def body_limit(self) -> int:
        """Largest accepted request body in bytes (``OperatorExtension.max_body_size``)."""
        return int(self.extensionapp.max_body_size)  # type: ignore[attr-defined]

    async def prepare(self) -> None:  # type: ignore[override]
        """Refuse an oversized body from its Content-Length before reading any of it."""
        await super().prepare()
        self._chunks, self._received = [], 0
        declared = self.request.headers.get("Content-Length", "0")
        if not declared.isdigit() or int(declared) > self.body_limit:
            raise web.HTTPError(413, f"Request body exceeds {self.body_limit} bytes")
        # A chunked body has no declared length: what exceeds the limit is read and dropped
        # (see data_received) so the client gets a JSON 413 rather than a closed connection.
        # Tornado only drops the connection past a much larger bound.
        drain = max(4 * self.body_limit, DRAIN_LIMIT)
        self.request.connection.set_max_body_size(drain)  # type: ignore[union-attr]

    def data_received(self, chunk: bytes) -> None:
        """Collect the body (never more than ``body_limit`` bytes, see ``prepare``)."""
        self._received += len(chunk)
        if self._received <= self.body_limit:
            self._chunks.append(chunk)

    def parse(self, model: type[M]) -> M:
        """The body validated against ``model``; ApiError(400) when it does not fit."""
        if self._received > self.body_limit:
            raise ApiError(413, "too_large", f"Request body exceeds {self.body_limit} bytes")
        return parse_body(b"".join(self._chunks) or b"{}", model)


class WorkspacesHandler(OperatorApiHandler):
    """``GET workspaces``: the configured workspace names (never their roots)."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        """List workspace names."""
        registry = self.service.registry
        base = self.extensionapp.serverapp.root_dir  # type: ignore[attr-defined]
        listed = [{"name": name, "path": registry.relative_root(name, base)}
                  for name in registry.names()]  # fmt: skip
        self.finish(json.dumps({"workspaces": listed}))


class SpecHandler(OperatorApiHandler):
    """``GET spec``: the interface specification text a model should be given."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        """Return the spec text."""
        from ..protocol import interface_spec

        extensions = self.service.registry.extensions
        from ..workspace.out_of_reach import describe

        # What no workspace may reach, for the panel to show (home-relative paths).
        self.finish(json.dumps({"spec": interface_spec(actions=extensions),
                                "out_of_reach": describe()}))  # fmt: skip


class ScanHandler(OperatorPostHandler):
    """``POST scan``: create a session from a reply's text."""

    @web.authenticated
    @authorized
    async def post(self) -> None:
        """Scan, run reads, plan mutations."""

        async def work() -> dict[str, Any]:
            from .bodies import ScanBody

            body = self.parse(ScanBody)
            files = None if body.files is None else _decoded(body.files)
            return await self.service.scan(body.text, body.workspace, body.folder, body.dialect,
                                           label=body.label, files=files)  # fmt: skip

        await self.respond(work())


def _decoded(files: dict[str, str]) -> dict[str, bytes]:
    """A review copy's files from base64 (400 ``bad_request`` for one that is not)."""
    import base64
    import binascii

    from .errors import ApiError

    try:
        return {path: base64.b64decode(data, validate=True) for path, data in files.items()}
    except (binascii.Error, ValueError):
        raise ApiError(400, "bad_request", "files: each file's content must be base64") from None


class SessionsHandler(OperatorApiHandler):
    """``GET sessions?workspace=``: sessions still waiting for decisions (to reattach to)."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        """List open sessions, newest first."""
        workspace = self.get_query_argument("workspace", None)
        await self.respond(self.service.open_sessions(workspace))


class SessionHandler(OperatorApiHandler):
    """``GET sessions/{session}``."""

    @web.authenticated
    @authorized
    async def get(self, session_id: str) -> None:
        """The session's items and results so far."""
        await self.respond(self.service.get(session_id))


class DecideHandler(OperatorPostHandler):
    """``POST sessions/{session}/decide``: approve or reject one item."""

    @web.authenticated
    @authorized
    async def post(self, session_id: str) -> None:
        """Decide one item."""

        async def work() -> dict[str, Any]:
            from .bodies import DecideBody

            body = self.parse(DecideBody)
            return await self.service.decide(session_id, body.id, body.decision, body.reason,
                                             body.content, body.and_run)  # fmt: skip

        await self.respond(work())


class ContentHandler(OperatorApiHandler):
    """``GET sessions/{session}/items/{item}/content``: the text an editor starts from."""

    @web.authenticated
    @authorized
    async def get(self, session_id: str, item_id: str) -> None:
        """The proposed new content and the file's text it was previewed on."""
        await self.respond(self.service.content(session_id, item_id))


class ExecutionHandler(OperatorPostHandler):
    """``POST sessions/{session}/items/{item}/execution``: what the open notebook's kernel did
    with an approved run (the panel ran the cell with JupyterLab's ``CodeCell.execute``)."""

    @web.authenticated
    @authorized
    async def post(self, session_id: str, item_id: str) -> None:
        """Finish a running item with the outcome the front end observed."""

        async def work() -> dict[str, Any]:
            from ..execution import Outcome
            from .bodies import OutcomeBody

            body = self.parse(OutcomeBody)
            outcome = Outcome.from_dict(body.model_dump())
            return await self.service.finish_execution(session_id, item_id, outcome)

        await self.respond(work())


class ExecutionAliveHandler(OperatorPostHandler):
    """``POST sessions/{session}/items/{item}/execution/alive``: the page running this cell is
    still there (a run without word from its page for a while ends as interrupted)."""

    @web.authenticated
    @authorized
    async def post(self, session_id: str, item_id: str) -> None:
        """Keep the run held (or end it: its page goes away); 409 when it no longer runs."""

        async def work() -> dict[str, Any]:
            from .bodies import AliveBody

            body = self.parse(AliveBody)
            return await self.service.keep_running(session_id, item_id, gone=body.gone)

        await self.respond(work())


class LiveAnswerHandler(OperatorPostHandler):
    """``POST sessions/{session}/items/{item}/live``: what the page holding the notebook did
    with an approved change sent to it (applied, stale with the cell, gone)."""

    @web.authenticated
    @authorized
    async def post(self, session_id: str, item_id: str) -> None:
        """Finish an item that waits for a page."""

        async def work() -> dict[str, Any]:
            from .bodies import LiveAnswerBody

            body = self.parse(LiveAnswerBody)
            return await self.service.finish_live(session_id, item_id, body.model_dump())

        await self.respond(work())


class OpenNotebooksHandler(OperatorPostHandler):
    """``POST open-notebooks``: the notebooks a page has open (``open_pages``)."""

    @web.authenticated
    @authorized
    async def post(self) -> None:
        """Record (or, closing, forget) what the page has open."""

        async def work() -> dict[str, Any]:
            from .bodies import OpenNotebooksBody
            from .open_pages import EXPIRY_SECONDS, HEARTBEAT_SECONDS

            body = self.parse(OpenNotebooksBody)
            pages = self.service.registry.pages
            if pages is not None:
                if body.closing:
                    pages.leave(body.page)
                else:
                    pages.report(body.page, body.paths)
            return {"heartbeat": HEARTBEAT_SECONDS, "expires": EXPIRY_SECONDS}

        await self.respond(work())


class RoomStateHandler(OperatorPostHandler):
    """``GET rooms?path=``: whether a collaborative room holds the notebook or text file at
    the absolute ``path`` (``{"open": bool}``; with ``content=1`` also the room's document as
    ``content``; with ``below=1``, ``path`` is a folder: ``{"open", "file"}``, the first file
    below it a room holds; with ``open=1``, a folder too: ``{"files"}``, every file below it
    open in a page or a room). ``POST rooms``: apply a kernel's approved change there
    (``RoomEditBody``): ``{"state": "applied" | "stale" | "gone", "cell"?}``. A kernel's
    magics ask before writing a file, and have the change applied in the room rather than beneath it
    (``kernel/server_rooms.py``). Only with the server's token; the server checks the path
    against its workspaces' jail and each guard itself."""

    @staticmethod
    def _path(raw: str) -> Path | None:
        path = Path(raw) if raw and "\x00" not in raw else None
        return path if path is not None and path.is_absolute() else None

    @web.authenticated
    @authorized
    async def get(self) -> None:
        """Answer whether a room is open for the file (and what it holds, when asked)."""
        path = self._path(self.get_query_argument("path", ""))
        rooms = self.service.registry.rooms
        if self.get_query_argument("below", "") == "1":
            self.finish(json.dumps(await self._held_below(path, rooms)))
            return
        if self.get_query_argument("open", "") == "1":
            self.finish(json.dumps(await self._open_below(path, rooms)))
            return
        held = getattr(rooms, "held", None)
        is_open = bool(path is not None and held is not None and await held(path))
        answer: dict[str, Any] = {"open": is_open}
        if is_open and self.get_query_argument("content", "") == "1":
            if not self.service.registry.jails(path):
                raise web.HTTPError(403, "the file is outside every workspace of this server")
            data = await rooms.read(path)
            answer["content"] = None if data is None else data.decode("utf-8")
        self.finish(json.dumps(answer))

    async def _held_below(self, folder: Path | None, rooms: Any) -> dict[str, Any]:
        """``{"open", "file"}``: the first file below ``folder`` a room holds. The folder is
        listed through the jail of a workspace that accepts it, bounded as a folder delete is
        (``Workspace.files_below``): a folder over the bound, or refused by every workspace, is
        403, and the kernel then refuses its own change."""
        held_among = getattr(rooms, "held_among", None)
        if folder is None or held_among is None or not getattr(rooms, "active", True):
            return {"open": False, "file": None}
        files = await asyncio.get_running_loop().run_in_executor(
            None, self.service.registry.files_below, folder)
        if files is None:
            raise web.HTTPError(403, "the folder is outside every workspace of this server")
        found = await held_among(files)
        return {"open": found is not None, "file": None if found is None else str(found)}

    async def _open_below(self, folder: Path | None, rooms: Any) -> dict[str, Any]:
        """``{"files"}``: the files below the folder ``folder`` that a page or a room holds
        open (a kernel's shell sandbox binds them read-only). Only names of files the server's
        own pages and rooms hold are given, to the holder of its token."""
        if folder is None or ".." in folder.parts:
            raise web.HTTPError(400, "path must be an absolute folder")
        pages = self.service.registry.pages
        found = set(pages.open_below(folder)) if pages is not None else set()
        open_files = getattr(rooms, "open_files", None)
        if open_files is not None and getattr(rooms, "active", True):
            found.update(await open_files(folder))
        return {"files": sorted(str(path) for path in found)}

    @web.authenticated
    @authorized
    async def post(self) -> None:
        """Apply a kernel's approved change in the room that holds the file."""

        async def work() -> dict[str, Any]:
            from .bodies import RoomEditBody
            from .rooms import well_formed

            body = self.parse(RoomEditBody)
            path = self._path(body.path)
            if path is None or not self.service.registry.jails(path):
                raise ApiError(403, "path_refused", "The file is outside every workspace of "
                               "this server, or a path no workspace accepts.")  # fmt: skip
            rooms = self.service.registry.rooms
            if rooms is None or not hasattr(rooms, "edit_cells"):
                return {"state": "gone"}
            if body.edits is not None and body.before is None and body.after is None:
                if not well_formed(body.edits):
                    raise ApiError(400, "bad_request", "The cell edits are not well formed.")
                try:
                    return await rooms.edit_cells(path, body.edits, body.actor)
                except (KeyError, TypeError, ValueError) as exc:  # a cell the room cannot take
                    raise ApiError(400, "bad_request", "The room cannot take these cell "
                                   f"edits ({type(exc).__name__}); nothing was changed.") from None
            if body.edits is None and body.before is not None and body.after is not None:
                return await rooms.edit_text(path, body.before, body.after, body.actor)
            raise ApiError(400, "bad_request", "Send either edits, or before and after.")

        await self.respond(work())


class DecideAllHandler(OperatorPostHandler):
    """``POST sessions/{session}/decide-all``: approve or reject every pending item."""

    @web.authenticated
    @authorized
    async def post(self, session_id: str) -> None:
        """Decide every pending item."""

        async def work() -> dict[str, Any]:
            from .bodies import DecideAllBody

            body = self.parse(DecideAllBody)
            return await self.service.decide_all(session_id, body.decision, body.reason)

        await self.respond(work())


class HistoryStepHandler(OperatorPostHandler):
    """``POST undo`` / ``POST redo``: undo one applied change in a workspace, or apply an undone
    one again (``direction``: ``UndoHandler``, ``RedoHandler``)."""

    direction: Direction

    @web.authenticated
    @authorized
    async def post(self) -> None:
        """Undo (redo) the given change, or the latest one (the one undone last)."""

        async def work() -> dict[str, Any]:
            from .bodies import UndoBody

            body = self.parse(UndoBody)
            live = body.live.model_dump() if body.live is not None else None
            return await self.service.history_step(self.direction, body.workspace, body.id,
                                                   body.session, body.folder, live)  # fmt: skip

        await self.respond(work())


class UndoHandler(HistoryStepHandler):
    """``POST undo``: undo one applied change in a workspace."""

    direction = "undo"


class RedoHandler(HistoryStepHandler):
    """``POST redo``: apply an undone change again."""

    direction = "redo"


class UndoRunHandler(OperatorPostHandler):
    """``POST undo-run``: undo every change of one run in one step, or preview it."""

    @web.authenticated
    @authorized
    async def post(self) -> None:
        """Undo (or preview the undo of) the run's changes, newest first."""

        async def work() -> dict[str, Any]:
            from .bodies import UndoRunBody

            body = self.parse(UndoRunBody)
            live = body.live.model_dump() if body.live is not None else None
            return await self.service.undo_run(body.workspace, body.run, body.folder,
                                               body.preview, live)  # fmt: skip

        await self.respond(work())


class HistoryHandler(OperatorApiHandler):
    """``GET history?workspace=``: the changes applied in a workspace."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        """List applied changes, oldest first."""
        workspace = self.get_query_argument("workspace", "default")
        folder = self.get_query_argument("folder", None)
        await self.respond(self.service.history(workspace, folder))


def rest_handlers(
    prefix: str = "jupyter-operator/api",
) -> list[tuple[str, type[web.RequestHandler]]]:
    """The REST routes, relative to the server's ``base_url``."""
    return [
        (f"/{prefix}/workspaces", WorkspacesHandler),
        (f"/{prefix}/spec", SpecHandler),
        (f"/{prefix}/scan", ScanHandler),
        (f"/{prefix}/sessions", SessionsHandler),
        (f"/{prefix}/sessions/{SESSION_ID}", SessionHandler),
        (f"/{prefix}/sessions/{SESSION_ID}/decide", DecideHandler),
        (f"/{prefix}/sessions/{SESSION_ID}/decide-all", DecideAllHandler),
        (f"/{prefix}/sessions/{SESSION_ID}/items/{ITEM_ID}/content", ContentHandler),
        (f"/{prefix}/sessions/{SESSION_ID}/items/{ITEM_ID}/execution", ExecutionHandler),
        (f"/{prefix}/sessions/{SESSION_ID}/items/{ITEM_ID}/execution/alive",
         ExecutionAliveHandler),
        (f"/{prefix}/sessions/{SESSION_ID}/items/{ITEM_ID}/live", LiveAnswerHandler),
        (f"/{prefix}/open-notebooks", OpenNotebooksHandler),
        (f"/{prefix}/rooms", RoomStateHandler),
        (f"/{prefix}/undo", UndoHandler),
        (f"/{prefix}/undo-run", UndoRunHandler),
        (f"/{prefix}/redo", RedoHandler),
        (f"/{prefix}/history", HistoryHandler),
    ]
