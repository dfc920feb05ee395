"""The notebooks and text files open in collaborative rooms (jupyter-collaboration), edited on
the server.

With jupyter-collaboration installed and real-time collaboration on, a notebook or text file
open in any page lives in a room of the ``jupyter_server_ydoc`` extension: one shared document
(a ``YNotebook``, or a ``YUnicode`` for text) that every collaborator's page syncs with, and
that the room saves to the file itself. An approved change to such a document is applied to it
here (``engine/live_route.py``), never to the file beneath it: the room broadcasts it to every
page at once and each person's undo history (which tracks only their own edits) is kept.

Only the extension's public API is used: ``YDocExtension.get_document(path=...,
content_type=..., file_format=..., copy=False)`` finds the room's document (None: no room is
open; it never opens one): ``"notebook"``/``"json"`` for a ``.ipynb``, ``"file"``/``"text"``
for any other file (as JupyterLab opens text files). Of the documents: the ``YNotebook``'s
``ycells``, ``get``, ``get_cell``, ``set_cell``, ``create_ycell``, ``ydoc`` and ``awareness``;
a text document's ``get``, ``ydoc`` (its ``"source"`` text) and ``awareness``. Collaboration
counts as on when the server loaded that extension and its ``disable_rtc`` is false.

A folder's files are asked about without opening or indexing anything: rooms are keyed by the
id the file-id service (``jupyter_server_fileid``, the server's ``file_id_manager`` setting)
gives a file when a page opens it, so each file's id is looked up with the service's ``get_id``
(never ``index``: a file with no id has no room) and its room with ``get_document(room_id=...)``
(``jupyter_server_ydoc.utils.encode_file_path``: ``format:type:id``).

The shared document belongs to the server's event loop: the engine, which runs in worker
threads, reaches it through ``asyncio.run_coroutine_threadsafe`` and waits at most
``ANSWER_SECONDS``. While the agent edits a room it is one of its collaborators: the server's
awareness state there names it (``actor``) with its colour, until ``PRESENCE_SECONDS`` after
its last change.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from ..notebooks.cell_edits import source_hash
from ..workspace.notebook_guard import is_notebook_name

log = logging.getLogger(__name__)
T = TypeVar("T")

#: The server extension that holds the rooms.
EXTENSION = "jupyter_server_ydoc"
#: How long a worker thread waits for the event loop to read or edit a room.
ANSWER_SECONDS = 10.0
#: How many files of a folder are looked up for a room before the loop is given back.
ROOM_BATCH = 32
#: How long the agent stays in a room's collaborators after its last change.
PRESENCE_SECONDS = 30.0
#: The agent as collaborators see it (its name is the ``actor`` of each change).
USERNAME = "jupyter-operator"
COLOUR = "#7b3fb5"
#: The origin of the room transactions the agent makes (an undo manager may filter on it).
ORIGIN = "jupyter-operator"


def _youtputs(outputs: list[dict[str, Any]]) -> list[Any]:
    """Outputs as the shared notebook holds them: maps, a stream's text a shared text
    (as ``YNotebook.create_ycell`` builds them)."""
    from pycrdt import Map, Text

    made = []
    for output in outputs:
        output = json.loads(json.dumps(output))
        if output.get("output_type") == "stream":
            text = output.get("text", "")
            output["text"] = Text("".join(text) if isinstance(text, list) else str(text))
        made.append(Map(output))
    return made


def _index(doc: Any, cell_id: str | None) -> int:
    if cell_id is None:
        return -1
    for at, ycell in enumerate(doc.ycells):
        if ycell.get("id") == cell_id:
            return at
    return -1


def _place_after(doc: Any, after: str | None, index: int) -> int:
    """Where a cell placed after the cell ``after`` goes: right after it, first when None, or
    at ``index`` when that cell is gone (as the page's ``livecells.ts`` places it)."""
    if after is None:
        return 0
    found = _index(doc, after)
    return found + 1 if found >= 0 else min(index, len(doc.ycells))


def _set_fields(doc: Any, at: int, fields: dict[str, Any]) -> None:
    from pycrdt import Array, Map

    ycell = doc.ycells[at]
    if "cell_type" in fields and fields["cell_type"] != ycell.get("cell_type"):
        # A new type is a new cell with the same id (its source and metadata kept unless set).
        cell = {**doc.get_cell(at), **fields, "id": ycell.get("id")}
        if cell["cell_type"] != "code":
            cell.pop("outputs", None)
            cell.pop("execution_count", None)
        else:
            cell["outputs"] = cell.get("outputs") or []
            cell.setdefault("execution_count", None)
        doc.set_cell(at, value=cell)
        return
    if isinstance(fields.get("source"), str):
        doc.set_cell(at, source=fields["source"])  # granular: a collaborator's caret stays
    if "metadata" in fields:
        ycell["metadata"] = Map(fields["metadata"] or {})
    if "outputs" in fields and ycell.get("cell_type") == "code":
        youtputs = ycell.get("outputs")
        if isinstance(youtputs, Array):
            youtputs.clear()
            youtputs.extend(_youtputs(fields["outputs"] or []))
        else:
            ycell["outputs"] = Array(_youtputs(fields["outputs"] or []))
    if "execution_count" in fields and ycell.get("cell_type") == "code":
        ycell["execution_count"] = fields["execution_count"]
    if "attachments" in fields:
        if fields["attachments"] is None:
            if "attachments" in ycell:
                del ycell["attachments"]
        else:
            ycell["attachments"] = fields["attachments"]


def _apply_op(doc: Any, op: dict[str, Any]) -> None:
    kind = op.get("op")
    if kind == "delete":
        at = _index(doc, op["id"])
        if at >= 0:
            del doc.ycells[at]
    elif kind == "insert":
        doc.ycells.insert(_place_after(doc, op.get("after"), op["index"]), op["ycell"])
    elif kind == "move":
        at = _index(doc, op["id"])
        to = _place_after(doc, op.get("after"), op["index"])
        to = to - 1 if at < to else to
        if at >= 0 and at != to:
            cell = doc.get_cell(at)
            del doc.ycells[at]
            doc.ycells.insert(to, doc.create_ycell(cell))
    elif kind == "set":
        at = _index(doc, op["id"])
        if at >= 0:
            _set_fields(doc, at, op.get("fields") or {})


def apply_edits(doc: Any, edits: dict[str, Any]) -> dict[str, Any]:
    """Apply ``notebooks.cell_edits`` edits to a ``YNotebook`` in one transaction, or none:
    each guarded cell must still be there with the source the guard was made from (any other
    cell may have changed freely). ``{"state": "applied"}`` or ``{"state": "stale", "cell":
    id}``. Called on the loop that owns the document: nothing can edit it in between.

    The shared cells an insert adds are built first, so a cell the document cannot take
    raises before anything changed (a transaction is not rolled back)."""
    ops = [{**op, "ycell": doc.create_ycell(op["cell"])} if op.get("op") == "insert" else op
           for op in edits.get("ops", [])]  # fmt: skip
    with doc.ydoc.transaction(origin=ORIGIN):
        for cell_id, guard in edits.get("guards", {}).items():
            at = _index(doc, cell_id)
            if at < 0 or source_hash(str(doc.ycells[at]["source"])) != guard:
                return {"state": "stale", "cell": cell_id}
        for op in ops:
            _apply_op(doc, op)
    return {"state": "applied"}


def well_formed(edits: Any) -> bool:
    """Whether ``edits`` has the shape ``notebooks.cell_edits`` makes (what a kernel sends to
    be applied in a room is checked before anything is touched)."""
    if not isinstance(edits, dict) or not isinstance(edits.get("ops"), list):
        return False
    guards = edits.get("guards", {})
    if not isinstance(guards, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in guards.items()):  # fmt: skip
        return False
    for op in edits["ops"]:
        kind = op.get("op") if isinstance(op, dict) else None
        after_ok = isinstance(op, dict) and (op.get("after") is None
                                             or isinstance(op.get("after"), str))  # fmt: skip
        index_ok = isinstance(op, dict) and type(op.get("index")) is int
        if kind == "delete" and isinstance(op.get("id"), str):
            continue
        if kind == "set" and isinstance(op.get("id"), str) and isinstance(op.get("fields"), dict):
            continue
        if kind == "move" and isinstance(op.get("id"), str) and after_ok and index_ok:
            continue
        if (kind == "insert" and after_ok and index_ok and isinstance(op.get("cell"), dict)
                and isinstance(op["cell"].get("id"), str)):  # fmt: skip
            continue
        return False
    return True


def last_cell(edits: dict[str, Any]) -> str | None:
    """The id of the last cell the edits insert or rewrite the source of (where the agent's
    caret is shown), or None."""
    found = None
    for op in edits.get("ops", []):
        if op.get("op") == "insert":
            found = op["cell"].get("id")
        elif op.get("op") == "set" and "source" in (op.get("fields") or {}):
            found = op["id"]
    return found


def _caret(doc: Any, cell_id: str | None) -> dict[str, Any] | None:
    """A Yjs relative position (JSON) at the end of the cell's source, or None (no such
    cell, or its source is empty: a position needs a character to stick to)."""
    at = _index(doc, cell_id)
    if at < 0:
        return None
    source = doc.ycells[at]["source"]
    return _sticky(source, len(source))


def _sticky(ytext: Any, index: int | None) -> dict[str, Any] | None:
    """A Yjs relative position (JSON) at ``index`` of a shared text, or None (an empty
    text: a position needs a character to stick to)."""
    from pycrdt import Assoc, StickyIndex

    if index is None or len(ytext) == 0:
        return None
    try:
        return StickyIndex.new(ytext, min(index, len(ytext)), Assoc.BEFORE).to_json()
    except Exception:  # an older pycrdt without sticky indexes: no caret, the name stays
        return None


def document_kind(path: Path | str) -> tuple[str, str]:
    """The ``content_type`` and ``file_format`` of the room of the file at ``path``: a
    notebook's, or a text file's (as JupyterLab opens any other file it edits)."""
    return ("notebook", "json") if is_notebook_name(Path(path).name) else ("file", "text")


def text_edits(before: str, after: str) -> list[tuple[int, int, str]]:
    """The smallest edits that turn ``before`` into ``after``, as ``(start, end, text)``
    replacements of ``before``'s characters, first to last: lines are matched (as a diff
    shows them), and each replaced run of lines is cut down to the characters that differ,
    so a collaborator's caret outside them stays where it is."""
    from difflib import SequenceMatcher

    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    starts = [0]
    for line in old:
        starts.append(starts[-1] + len(line))
    new_starts = [0]
    for line in new:
        new_starts.append(new_starts[-1] + len(line))
    edits = []
    matcher = SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        start, end = starts[i1], starts[i2]
        text = after[new_starts[j1]:new_starts[j2]]
        removed = before[start:end]
        keep = 0  # the run's common start and end are not edits
        while keep < min(len(removed), len(text)) and removed[keep] == text[keep]:
            keep += 1
        tail = 0
        while (tail < min(len(removed), len(text)) - keep
               and removed[-1 - tail] == text[-1 - tail]):  # fmt: skip
            tail += 1
        edits.append((start + keep, end - tail, text[keep:len(text) - tail]))
    return edits


def _text_index(in_bytes: bool, text: str, at: int) -> int:
    """The shared text's index of the character ``at`` of ``text`` (its content): pycrdt
    counts a text in UTF-8 bytes (``in_bytes``), other versions may count characters."""
    return len(text[:at].encode("utf-8")) if in_bytes else at


def apply_text(doc: Any, before: str, after: str) -> dict[str, Any]:
    """Turn a room's shared text from ``before`` into ``after`` with the smallest edits
    (``text_edits``) in one transaction, or do nothing: ``{"state": "applied", "end": index}``
    (the shared index just after the last edit) or ``{"state": "stale"}`` when the text is not
    ``before`` (a collaborator typed since the preview). Called on the loop that owns it."""
    from pycrdt import Text

    ytext = doc.ydoc.get("source", type=Text)
    edits = text_edits(before, after)
    with doc.ydoc.transaction(origin=ORIGIN):
        if str(ytext) != before:
            return {"state": "stale"}
        in_bytes = len(ytext) != len(before)
        # Last to first: an edit never moves the characters of the ones still to come.
        for start, stop, text in reversed(edits):
            at, until = _text_index(in_bytes, before, start), _text_index(in_bytes, before, stop)
            if until > at:
                del ytext[at:until]
            if text:
                ytext.insert(at, text)
    end = None
    if edits:
        start, stop, text = edits[-1]
        shift = sum(len(t) - (b - a) for a, b, t in edits[:-1])
        end = _text_index(len(ytext) != len(after), after, start + shift + len(text))
    return {"state": "applied", "end": end}


def notebook_bytes(doc: Any) -> bytes:
    """The shared notebook as the room would save it: nbformat's JSON without the transient
    fields a page keeps in the shared model (each cell's ``metadata.trusted``), so a preview
    made on it shows, and guards, only what the change does."""
    import nbformat

    content = nbformat.from_dict(doc.get(deduplicate=False))
    return (nbformat.writes(content, version=nbformat.NO_CONVERT) + "\n").encode()


def _document_room(room_id: object) -> list[str] | None:
    """A room id's ``[format, type, file id]`` when it is a notebook's or a file's room."""
    parts = room_id.split(":", 2) if isinstance(room_id, str) else []
    return parts if len(parts) == 3 and parts[1] in ("notebook", "file") else None


class SharedRooms:
    """The rooms of the server's ``jupyter_server_ydoc`` extension (``live_route.LiveRooms``).

    ``serverapp`` is the running Jupyter server; ``loop`` the event loop its rooms live on
    (the server's, by default the one running when this is made)."""

    def __init__(self, serverapp: Any, loop: asyncio.AbstractEventLoop | None = None,
                 timeout: float = ANSWER_SECONDS) -> None:  # fmt: skip
        self._serverapp = serverapp
        self._root = Path(serverapp.root_dir).resolve()
        self._loop = loop
        self._timeout = timeout
        self._presence: dict[int, asyncio.TimerHandle] = {}
        self._apps: list[Any] | None = None  # the extension's apps, once found (extension)

    def extension(self) -> Any | None:
        """The loaded ``YDocExtension`` with collaboration on, or None.

        Its apps are looked up until found, then kept: the server makes them once, at its
        start, and ``extension_apps`` builds a mapping of every extension on each call (0.06 ms
        in ``bench/server.py``'s server, twice per disk write the engine checks)."""
        apps = self._apps
        if apps is None:
            manager = getattr(self._serverapp, "extension_manager", None)
            loaded = getattr(manager, "extension_apps", {}) or {}
            apps = [app for app in loaded.get(EXTENSION, ()) if hasattr(app, "get_document")]
            if not apps:
                return None  # not loaded (yet): looked for again next time
            self._apps = apps
        for app in apps:
            if not getattr(app, "disable_rtc", False):
                return app
        return None

    def _file_ids(self) -> Any | None:
        """The server's file-id service (``jupyter_server_fileid``), or None."""
        settings = getattr(getattr(self._serverapp, "web_app", None), "settings", None) or {}
        return settings.get("file_id_manager")

    @property
    def active(self) -> bool:
        """Whether collaboration is on in this server (rooms may be open)."""
        return self.extension() is not None

    @property
    def holding_any(self) -> bool:
        """Whether a notebook's or a file's room may be open now (False: none holds any
        file, so a disk write need not list a folder's files to ask about them)."""
        extension = self.extension()
        return extension is not None and not self._no_document_room(extension)

    def _relative(self, path: Path) -> str | None:
        """The room path of the notebook at ``path`` (absolute, as the workspace names it), or
        None: outside the server's root, or reached through a symlink. A room is the document
        of a real path; a link inside a workspace must not lead the agent into the room of a
        notebook elsewhere (the file route's jail decides about links)."""
        named = Path(os.path.normpath(path))
        real = named.resolve()
        if real != named:
            return None
        try:
            return real.relative_to(self._root).as_posix()
        except ValueError:
            return None

    def _event_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            io_loop = getattr(self._serverapp, "io_loop", None)
            self._loop = getattr(io_loop, "asyncio_loop", None) or asyncio.get_event_loop()
        return self._loop

    def _run(self, work: Callable[[], Awaitable[T]]) -> T:
        loop = self._event_loop()
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            raise RuntimeError("a room is edited from a worker thread, not its own event loop")
        return asyncio.run_coroutine_threadsafe(work(), loop).result(timeout=self._timeout)

    async def _document(self, path: Path) -> Any | None:
        extension = self.extension()
        relative = self._relative(path)
        if extension is None or relative is None:
            return None
        ids = self._file_ids()
        try:
            # A file the file-id service has no id for has no room. Asked first with ``get_id``,
            # which gives none: ``get_document(path=...)`` indexes the path (a database write),
            # which every write the engine checks would otherwise pay, and keep.
            if ids is not None and ids.get_id(relative) is None:
                return None
            content_type, file_format = document_kind(relative)
            return await extension.get_document(path=relative, content_type=content_type,
                                                file_format=file_format, copy=False)  # fmt: skip
        except Exception:  # no file id service, a room that failed to load: not held
            log.warning("jupyter_operator: the room of %s could not be read", relative,
                        exc_info=True)  # fmt: skip
            return None

    def _rooms(self, extension: Any) -> dict[Any, Any] | None:
        """The rooms open now: the extension's websocket server's (``ywebsocket_server.rooms``,
        keyed ``format:type:id``), not its documented API: None when it is not a dict."""
        rooms = getattr(getattr(extension, "ywebsocket_server", None), "rooms", None)
        return rooms if isinstance(rooms, dict) else None

    def _no_document_room(self, extension: Any) -> bool:
        """True when no room of a notebook or file is open at all, so none holds any file.

        Read from the worker thread that asks, without going to the server's event loop: that
        round trip was most of what asking cost a disk write (``bench/server.py``). A room
        opening just after this answer is the same race as one opening just after the loop's
        answer. Anything unexpected there says False, and the loop is asked."""
        rooms = self._rooms(extension)
        if rooms is None:
            return False
        return not any(_document_room(room_id) for room_id in list(rooms))

    def holds(self, path: Path) -> bool:
        """Whether a room is open for the notebook or text file ``path`` (absolute)."""
        extension = self.extension()
        if extension is None or self._no_document_room(extension):
            return False
        return self._run(lambda: self._document(path)) is not None

    async def held(self, path: Path) -> bool:
        """``holds``, on the server's own loop (a request handler asking for a kernel)."""
        return self.active and await self._document(path) is not None

    def holding(self, folder: Path, files: Sequence[Path]) -> Path | None:
        """The first of ``files`` (absolute: every file below the folder ``folder``, as the
        engine listed them through its jail) that a room holds, or None."""
        extension = self.extension()
        if extension is None or not files or self._no_document_room(extension):
            return None
        return self._run(lambda: self.held_among(files))

    async def held_among(self, files: Sequence[Path]) -> Path | None:
        """``holding``, on the server's own loop: a file's room is looked up by the id the
        file-id service already gave it (``get_id``, which never gives one), so asking about a
        folder's files leaves the service as it was; a file with no id has no room. Either
        document a file can be opened as counts (a notebook opened in the text editor has a
        text room). The loop is given back between batches of ``ROOM_BATCH`` files."""
        extension = self.extension()
        ids = self._file_ids()
        if extension is None or ids is None:
            return None
        for start in range(0, len(files), ROOM_BATCH):
            for path in files[start:start + ROOM_BATCH]:
                if await self._room_of(extension, ids, path) is not None:
                    return path
            await asyncio.sleep(0)
        return None

    async def _room_of(self, extension: Any, ids: Any, path: Path) -> Any | None:
        """The document of a room open for the file ``path`` as any kind, or None."""
        from jupyter_server_ydoc.utils import encode_file_path

        relative = self._relative(path)
        if relative is None:
            return None
        try:
            file_id = ids.get_id(relative)
            if file_id is None:
                return None
            for content_type, file_format in (("notebook", "json"), ("file", "text")):
                room_id = encode_file_path(file_format, content_type, file_id)
                doc = await extension.get_document(room_id=room_id, copy=False)
                if doc is not None:
                    return doc
        except Exception:  # a room that failed to load, a name the service cannot take
            log.warning("jupyter_operator: the room of %s could not be read", relative,
                        exc_info=True)  # fmt: skip
            return path  # not known to be free: held
        return None

    def open_below(self, root: Path) -> list[Path]:
        """The files below ``root`` (absolute) that a room holds open now."""
        if not self.active:
            return []
        return self._run(lambda: self.open_files(root))

    async def open_files(self, root: Path) -> list[Path]:
        """``open_below``, on the server's own loop. The rooms open now are those of the
        extension's websocket server (``ywebsocket_server.rooms``, keyed ``format:type:id``:
        not its documented API, so anything unexpected there lists nothing); each id's file is
        named by the file-id service (``get_path``), which never indexes anything."""
        ids = self._file_ids()
        rooms = self._rooms(self.extension())
        if ids is None or rooms is None:
            return []
        root = Path(root)
        found = []
        for room_id in list(rooms):
            parts = _document_room(room_id)
            if parts is None:
                continue  # the global awareness room, or a kind of room of another extension
            try:
                relative = ids.get_path(parts[2])
            except Exception:  # an id the service no longer knows
                continue
            if not isinstance(relative, str):
                continue
            names = [name for name in relative.split("/") if name]
            if not names or ".." in names:
                continue
            path = self._root.joinpath(*names)
            if path != root and path.is_relative_to(root):
                found.append(path)
        return found

    def content(self, path: Path) -> bytes | None:
        """The room's notebook as nbformat JSON bytes, or its text file's text in UTF-8; None
        when no room holds it."""
        if not self.active:
            return None
        return self._run(lambda: self.read(path))

    async def read(self, path: Path) -> bytes | None:
        """``content``, on the server's own loop (a request handler reading for a kernel)."""
        doc = await self._document(path) if self.active else None
        if doc is None:
            return None
        if document_kind(path)[0] == "notebook":
            return notebook_bytes(doc)
        return str(doc.get()).encode("utf-8")

    def apply(self, path: Path, edits: dict[str, Any], actor: str) -> dict[str, Any]:
        """Apply cell edits to the room's notebook (``apply_edits``); ``{"state": "gone"}``
        when no room holds it any more. The agent shows as ``actor`` among its collaborators."""
        if not self.active:
            return {"state": "gone"}
        return self._run(lambda: self.edit_cells(path, edits, actor))

    async def edit_cells(self, path: Path, edits: dict[str, Any], actor: str) -> dict[str, Any]:
        """``apply``, on the server's own loop (a request handler applying for a kernel)."""
        doc = await self._document(path) if self.active else None
        if doc is None or document_kind(path)[0] != "notebook":
            return {"state": "gone"}
        answer = apply_edits(doc, edits)
        if answer["state"] == "applied":
            self.show(doc, actor, _caret(doc, last_cell(edits)))
        return answer

    def apply_text(self, path: Path, before: str, after: str, actor: str) -> dict[str, Any]:
        """Turn the room's text from ``before`` (the previewed original) into ``after`` with
        the smallest edits in one transaction (``apply_text``): ``{"state": "applied"}``,
        ``{"state": "stale"}`` (the shared text is not ``before``: nothing changed) or
        ``{"state": "gone"}`` when no room holds it any more. The agent shows as ``actor``."""
        if not self.active:
            return {"state": "gone"}
        return self._run(lambda: self.edit_text(path, before, after, actor))

    async def edit_text(self, path: Path, before: str, after: str, actor: str) -> dict[str, Any]:
        """``apply_text``, on the server's own loop."""
        from pycrdt import Text

        doc = await self._document(path) if self.active else None
        if doc is None or document_kind(path)[0] != "file":
            return {"state": "gone"}
        answer = apply_text(doc, before, after)
        if answer["state"] == "applied":
            end = answer.pop("end")
            self.show(doc, actor, _sticky(doc.ydoc.get("source", type=Text), end))
        return answer

    def show(self, doc: Any, actor: str, caret: dict[str, Any] | None = None) -> None:
        """Name the agent in the room's awareness (on the loop), with its caret at ``caret``
        (a relative position at the end of what it wrote last), until ``PRESENCE_SECONDS``
        after its last change: every page draws it as a collaborator's labelled caret."""
        awareness = getattr(doc, "awareness", None)
        if awareness is None:
            return
        state = dict(awareness.get_local_state() or {})
        state["user"] = {"username": USERNAME, "name": actor, "display_name": actor,
                         "initials": "OP", "color": COLOUR, "avatar_url": None}  # fmt: skip
        state.pop("cursors", None)
        if caret is not None:
            state["cursors"] = [{"anchor": caret, "head": caret, "primary": True,
                                 "empty": True}]  # fmt: skip
        awareness.set_local_state(state)
        key = id(awareness)
        earlier = self._presence.pop(key, None)
        if earlier is not None:
            earlier.cancel()
        self._presence[key] = asyncio.get_running_loop().call_later(
            PRESENCE_SECONDS, self._leave, awareness, key)

    def _leave(self, awareness: Any, key: int) -> None:
        self._presence.pop(key, None)
        state = dict(awareness.get_local_state() or {})
        state.pop("user", None)
        state.pop("cursors", None)
        awareness.set_local_state(state or None)
