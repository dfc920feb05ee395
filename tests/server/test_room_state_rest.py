"""``GET rooms?path=``: whether a collaborative room holds a notebook or text file, for a
kernel's magics to ask before writing it (``kernel/server_rooms.py``); only with the server's
token."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from server_helpers import Api


async def test_a_kernel_asks_whether_a_room_holds_a_notebook(
    api: Api, root: Path, jp_serverapp: Any
) -> None:
    shared = root / "shared.ipynb"
    script = root / "shared.py"
    await api("workspaces")  # the services are built by the first request
    [app] = jp_serverapp.extension_manager.extension_apps["jupyter_operator"]

    class Held:
        """``server.rooms.SharedRooms`` as the handler uses it: rooms hold ``shared`` and
        ``script``."""

        async def held(self, path: Path) -> bool:
            return path in (shared, script)

    app.sessions.registry.rooms = Held()
    assert await api("rooms", params={"path": str(shared)}) == (200, {"open": True})
    assert await api("rooms", params={"path": str(root / "other.ipynb")}) == (200, {"open": False})
    # A text file's room counts as a notebook's: the kernel never writes beneath it.
    assert await api("rooms", params={"path": str(script)}) == (200, {"open": True})
    assert await api("rooms", params={"path": str(root / "notes.txt")}) == (200, {"open": False})
    # Not absolute: never a room.
    assert await api("rooms", params={"path": "shared.ipynb"}) == (200, {"open": False})
    status, _body = await api("rooms", params={"path": str(shared)}, headers={
        "Authorization": "token wrong"})
    assert status == 403


def _rooms(root: Path, docs: dict[str, Any]) -> Any:
    """The server's ``SharedRooms`` over a stand-in of jupyter-collaboration's extension that
    holds the real shared documents ``docs`` (by path relative to the root)."""
    from jupyter_operator.server.rooms import SharedRooms

    class Extension:
        disable_rtc = False

        async def get_document(self, **kwargs: Any) -> Any:
            return docs.get(kwargs["path"])

    class Server:
        root_dir = str(root)
        extension_manager = type("Manager", (), {"extension_apps": {
            "jupyter_server_ydoc": {Extension()}}})()

    return SharedRooms(Server())


def indexed_rooms(root: Path, ids: Any, rooms: dict[str, Any]) -> Any:
    """The server's ``SharedRooms`` over a stand-in of jupyter-collaboration's extension with
    a real file-id service ``ids`` and the open ``rooms`` (by room id): its ``get_document``
    finds a room by path (indexing the path first, as the extension does) or by room id."""
    from jupyter_operator.server.rooms import SharedRooms

    class Extension:
        disable_rtc = False

        async def get_document(self, *, path: str | None = None, content_type: str = "",
                               file_format: str = "", room_id: str | None = None,
                               copy: bool = True) -> Any:  # fmt: skip
            if room_id is None:
                room_id = f"{file_format}:{content_type}:{ids.index(path)}"
            return rooms.get(room_id)

    class Server:
        root_dir = str(root)
        extension_manager = type("Manager", (), {"extension_apps": {
            "jupyter_server_ydoc": {Extension()}}})()
        web_app = type("App", (), {"settings": {"file_id_manager": ids}})()

    return SharedRooms(Server())


def _notebook_room(path: Path) -> Any:
    import json

    import pytest

    jupyter_ydoc = pytest.importorskip("jupyter_ydoc", reason="jupyter-collaboration is not "
                                       "installed (pip install -e '.[test]')")  # fmt: skip
    from pycrdt import Awareness, Doc

    ydoc = Doc()
    doc = jupyter_ydoc.YNotebook(ydoc, Awareness(ydoc))
    doc.set(json.loads(path.read_text()))
    return doc


async def test_a_kernels_approved_change_is_applied_in_the_room_by_the_server(
    api: Api, root: Path, jp_serverapp: Any
) -> None:
    """``POST rooms``: the kernel's cell edits land in the room's shared notebook, guarded per
    cell; the file beneath is never written; the path is checked against the workspaces'
    jail; only with the server's token."""
    import asyncio
    import json

    from support.cell_notebooks import standard

    from jupyter_operator.kernel.server_rooms import ServerRoomEdits
    from jupyter_operator.notebooks.cell_edits import cell_edits
    from jupyter_operator.server.rooms import notebook_bytes

    shared = root / "shared.ipynb"
    shared.write_text(standard(), encoding="utf-8")
    before = shared.read_bytes()
    room = _notebook_room(shared)
    await api("workspaces")
    [app] = jp_serverapp.extension_manager.extension_apps["jupyter_operator"]
    app.sessions.registry.rooms = _rooms(root, {"shared.ipynb": room})
    changed = json.loads(notebook_bytes(room))
    changed["cells"][2]["source"] = "y = 0"
    edits = cell_edits(notebook_bytes(room), json.dumps(changed).encode())
    body = {"path": str(shared), "edits": edits, "actor": "Operator (m)"}
    assert await api("rooms", body=body) == (200, {"state": "applied"})
    assert str(room.ycells[2]["source"]) == "y = 0" and shared.read_bytes() == before
    assert room.awareness.get_local_state()["user"]["name"] == "Operator (m)"
    # The same edits again: the cell is no longer what they were made on.
    assert await api("rooms", body=body) == (200, {"state": "stale", "cell": "calc"})
    # The room's cells, for the kernel's preview.
    status, answer = await api("rooms", params={"path": str(shared), "content": "1"})
    assert status == 200 and "".join(json.loads(answer["content"])["cells"][2]["source"]) == "y = 0"
    # Outside every workspace, through a link, or with ..: refused before any room is touched.
    (root / "link.ipynb").symlink_to(shared)
    for path in ("/etc/hostname", str(root / "link.ipynb"), str(root / "x" / ".." /
                                                                "shared.ipynb")):  # fmt: skip
        status, answer = await api("rooms", body={**body, "path": path})
        assert status == 403 and answer["error"]["code"] == "path_refused", (path, answer)
    status, _ = await api("rooms", body={**body, "edits": {"ops": [{"op": "drop"}]}})
    assert status == 400
    status, _ = await api("rooms", body=body, headers={"Authorization": "token wrong"})
    assert status == 403
    assert str(room.ycells[2]["source"]) == "y = 0" and shared.read_bytes() == before
    # The kernel's side, over HTTP with the server's address and token (from a worker thread,
    # as the kernel's engine calls it).
    kernel = ServerRoomEdits(server={"url": jp_serverapp.connection_url,
                                     "token": jp_serverapp.identity_provider.token})
    assert await asyncio.to_thread(kernel.holds, shared)
    assert b'"y = 0"' in await asyncio.to_thread(kernel.content, shared)
    back = cell_edits(notebook_bytes(room), before)
    assert await asyncio.to_thread(kernel.apply, shared, back, "Operator") == {"state": "applied"}
    assert str(room.ycells[2]["source"]) == "y = x + 1"


async def test_a_kernels_text_change_is_applied_in_the_text_files_room(
    api: Api, root: Path, jp_serverapp: Any
) -> None:
    import pytest

    jupyter_ydoc = pytest.importorskip("jupyter_ydoc", reason="jupyter-collaboration is not "
                                       "installed (pip install -e '.[test]')")  # fmt: skip
    script = root / "geo.py"
    script.write_text("r = 1\n", encoding="utf-8")
    room = jupyter_ydoc.YUnicode()
    room.set("r = 1\n")
    await api("workspaces")
    [app] = jp_serverapp.extension_manager.extension_apps["jupyter_operator"]
    app.sessions.registry.rooms = _rooms(root, {"geo.py": room})
    body = {"path": str(script), "before": "r = 1\n", "after": "r = 2\n"}
    assert await api("rooms", body=body) == (200, {"state": "applied"})
    assert room.get() == "r = 2\n" and script.read_text() == "r = 1\n"
    assert await api("rooms", body=body) == (200, {"state": "stale"})
    # The kernel's side, over HTTP.
    import asyncio

    from jupyter_operator.kernel.server_rooms import ServerRoomEdits

    kernel = ServerRoomEdits(server={"url": jp_serverapp.connection_url,
                                     "token": jp_serverapp.identity_provider.token})
    assert await asyncio.to_thread(kernel.content, script) == b"r = 2\n"
    assert await asyncio.to_thread(kernel.apply_text, script, "r = 2\n", "r = 3\n",
                                   "Operator") == {"state": "applied"}  # fmt: skip
    assert room.get() == "r = 3\n" and script.read_text() == "r = 1\n"


async def test_a_kernel_asks_about_a_folder_and_its_folder_delete_is_refused(
    api: Api, root: Path, jp_serverapp: Any, make_operator: Any, tmp_path: Path
) -> None:
    """``GET rooms?path=&below=1``: the first file below a folder that a room holds, listed
    through a workspace's jail (403 outside every workspace, or through a link); a kernel's
    folder delete asks it and is refused, the folder and the room untouched; the same folder
    with no room open is deleted as before."""
    import asyncio
    import json

    import pytest
    from support.cell_notebooks import standard
    from support.replies import block

    from jupyter_operator.kernel.server_rooms import ServerRooms
    from jupyter_operator.protocol import codes

    jupyter_ydoc = pytest.importorskip("jupyter_ydoc", reason="jupyter-collaboration is not "
                                       "installed (pip install -e '.[test]')")  # fmt: skip
    from jupyter_server_fileid.manager import LocalFileIdManager

    (root / "work" / "deep").mkdir(parents=True)
    held = root / "work" / "deep" / "shared.ipynb"
    held.write_text(standard(), encoding="utf-8")
    (root / "work" / "notes.md").write_text("# notes\n", encoding="utf-8")
    (root / "free").mkdir()
    (root / "free" / "nb.ipynb").write_text(standard(), encoding="utf-8")
    ids = LocalFileIdManager(root_dir=str(root), db_path=str(tmp_path / "file_id.db"))
    room = jupyter_ydoc.YNotebook()
    room.set(json.loads(held.read_text()))
    rooms = {f"json:notebook:{ids.index('work/deep/shared.ipynb')}": room}  # a page opened it

    await api("workspaces")
    [app] = jp_serverapp.extension_manager.extension_apps["jupyter_operator"]
    app.sessions.registry.rooms = indexed_rooms(root, ids, rooms)
    below = {"below": "1"}
    assert await api("rooms", params={"path": str(root / "work"), **below}) == (
        200, {"open": True, "file": str(held)})
    assert await api("rooms", params={"path": str(root / "free"), **below}) == (
        200, {"open": False, "file": None})
    (root / "link").symlink_to(root / "work")
    for outside in ("/etc", str(root / "link")):
        status, _ = await api("rooms", params={"path": outside, **below})
        assert status == 403, outside
    status, _ = await api("rooms", params={"path": str(root / "work"), **below},
                          headers={"Authorization": "token wrong"})  # fmt: skip
    assert status == 403
    # The kernel's folder delete, asking over HTTP with the server's address and token.
    op = make_operator()
    op.room_holders = ServerRooms(server={"url": jp_serverapp.connection_url,
                                          "token": jp_serverapp.identity_provider.token})

    def delete(path: str) -> Any:
        run = op.run(block(f"d-{path}", "fs.delete", path=path))
        run.approve(f"d-{path}")
        return run.item(f"d-{path}")

    before = sorted(p.relative_to(root).as_posix() for p in (root / "work").rglob("*"))
    item = await asyncio.to_thread(delete, "work")
    assert item.status == "failed" and item.result.code == codes.ERR_PAGE_UNAVAILABLE
    assert "work/deep/shared.ipynb" in item.result.summary
    assert sorted(p.relative_to(root).as_posix() for p in (root / "work").rglob("*")) == before
    assert str(room.ycells[2]["source"]) == "y = x + 1"
    item = await asyncio.to_thread(delete, "free")
    assert item.status == "applied" and not (root / "free").exists()
    assert ids.get_id("free/nb.ipynb") is None  # asking gave the folder's files no id


async def test_the_file_api_never_writes_a_notebook_beneath_its_room(
    api: Api, files: Any, root: Path, jp_serverapp: Any
) -> None:
    """An editor's ``file_write`` of a notebook open in a room is refused (the room saves it),
    the file and the room as they were; any other file is written as before."""
    import asyncio
    import base64

    from support.cell_notebooks import standard

    from jupyter_operator.server.rooms import SharedRooms

    shared = root / "shared.ipynb"
    shared.write_text(standard(), encoding="utf-8")
    before = shared.read_bytes()
    room = _notebook_room(shared)
    await api("workspaces")
    [app] = jp_serverapp.extension_manager.extension_apps["jupyter_operator"]
    server = _rooms(root, {"shared.ipynb": room})._serverapp
    app.sessions.registry.rooms = SharedRooms(server, loop=asyncio.get_running_loop())
    client = await files()
    reply = await client.send({"type": "file_write", "path": "shared.ipynb",
                               "content_b64": base64.b64encode(before).decode()})  # fmt: skip
    assert reply["type"] == "error" and "collaborative room" in reply["message"], reply
    assert shared.read_bytes() == before and str(room.ycells[2]["source"]) == "y = x + 1"
    assert (await client.write_text("other.txt", "x\n"))["success"] is True


async def test_a_kernel_asks_which_files_below_a_folder_are_open(
    api: Api, root: Path, jp_serverapp: Any, tmp_path: Path
) -> None:
    """``GET rooms?path=&open=1``: every file below the folder that a page reported open or a
    room holds (the rooms the collaboration server has open now, named by the file-id
    service), for a kernel's shell sandbox to bind read-only; only with the server's token."""
    import pytest

    pytest.importorskip("jupyter_server_fileid", reason="jupyter-collaboration is not "
                        "installed (pip install -e '.[test]')")  # fmt: skip
    from jupyter_server_fileid.manager import LocalFileIdManager

    from jupyter_operator.server.rooms import SharedRooms

    (root / "work").mkdir()
    for name in ("work/page.ipynb", "work/notes.md", "elsewhere.md"):
        (root / name).write_text("{}\n" if name.endswith(".ipynb") else "# notes\n")
    ids = LocalFileIdManager(root_dir=str(root), db_path=str(tmp_path / "file_id.db"))
    open_rooms = {f"text:file:{ids.index('work/notes.md')}": object(),
                  f"text:file:{ids.index('elsewhere.md')}": object(),
                  "JupyterLab:globalAwareness": object()}  # fmt: skip

    class Extension:
        disable_rtc = False
        ywebsocket_server = type("Server", (), {"rooms": open_rooms})()

        async def get_document(self, **kwargs: Any) -> Any:
            return None

    class Server:
        root_dir = str(root)
        extension_manager = type("Manager", (), {"extension_apps": {
            "jupyter_server_ydoc": {Extension()}}})()
        web_app = type("App", (), {"settings": {"file_id_manager": ids}})()

    status, _ = await api("open-notebooks", body={"page": "page-0123456789",
                                                  "paths": ["work/page.ipynb"]})  # fmt: skip
    assert status == 200
    [app] = jp_serverapp.extension_manager.extension_apps["jupyter_operator"]
    app.sessions.registry.rooms = SharedRooms(Server())
    listed = {"open": "1"}
    assert await api("rooms", params={"path": str(root / "work"), **listed}) == (
        200, {"files": [str(root / "work" / "notes.md"), str(root / "work" / "page.ipynb")]})
    assert await api("rooms", params={"path": str(root), **listed}) == (200, {"files": [
        str(root / "elsewhere.md"), str(root / "work" / "notes.md"),
        str(root / "work" / "page.ipynb")]})  # fmt: skip
    assert await api("rooms", params={"path": "/elsewhere", **listed}) == (200, {"files": []})
    status, _ = await api("rooms", params={"path": "work", **listed})
    assert status == 400
    status, _ = await api("rooms", params={"path": str(root), **listed},
                          headers={"Authorization": "token wrong"})  # fmt: skip
    assert status == 403


async def test_asking_whether_a_room_holds_a_file_gives_it_no_file_id(
    root: Path, tmp_path: Path
) -> None:
    """Every write the engine checks asks whether a room holds the file: a file the file-id
    service has no id for has none, and asking gives it none (``get_document(path=...)``
    would index it: a database write per checked file, kept)."""
    import json

    import pytest

    jupyter_ydoc = pytest.importorskip("jupyter_ydoc", reason="jupyter-collaboration is not "
                                       "installed (pip install -e '.[test]')")  # fmt: skip
    from jupyter_server_fileid.manager import LocalFileIdManager
    from support.cell_notebooks import standard


    (root / "open.ipynb").write_text(standard(), encoding="utf-8")
    (root / "new.txt").write_text("new\n", encoding="utf-8")
    ids = LocalFileIdManager(root_dir=str(root), db_path=str(tmp_path / "file_id.db"))
    room = jupyter_ydoc.YNotebook()
    room.set(json.loads((root / "open.ipynb").read_text()))
    rooms = {f"json:notebook:{ids.index('open.ipynb')}": room}  # a page opened it

    shared = indexed_rooms(root, ids, rooms)
    assert await shared.held(root / "open.ipynb")
    assert not await shared.held(root / "new.txt")
    assert ids.get_id("new.txt") is None  # asking gave it no id


def test_with_no_document_room_open_no_file_is_held_and_the_loop_is_not_asked(
    tmp_path: Path,
) -> None:
    """Every disk write asks whether a room holds its file. With no notebook's or file's room
    open (the awareness room aside), the answer is no, given from the asking thread: the
    server's loop is never asked. Once a document room is open, it is."""
    from jupyter_operator.server.rooms import SharedRooms

    asked: list[str] = []
    open_rooms: dict[str, Any] = {"JupyterLab:globalAwareness": object()}

    class Extension:
        disable_rtc = False
        ywebsocket_server = type("Server", (), {"rooms": open_rooms})()

        async def get_document(self, **kwargs: Any) -> Any:
            asked.append(kwargs["path"])
            return object() if kwargs["path"] == "held.ipynb" else None

    class Server:
        root_dir = str(tmp_path)
        extension_manager = type("Manager", (), {"extension_apps": {
            "jupyter_server_ydoc": {Extension()}}})()

    class NoLoop:
        """The server's loop, which must not be asked while no document room is open."""

        def __getattr__(self, name: str) -> Any:
            raise AssertionError(f"the loop was asked ({name})")

    rooms = SharedRooms(Server(), loop=NoLoop())  # type: ignore[arg-type]
    held, other = tmp_path / "held.ipynb", tmp_path / "other.ipynb"
    assert rooms.active and not rooms.holding_any
    assert rooms.holds(held) is False
    assert rooms.holding(tmp_path, [held, other]) is None
    assert asked == []

    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        open_rooms["json:notebook:some-id"] = object()  # a page opened a notebook
        rooms = SharedRooms(Server(), loop=loop)
        assert rooms.holding_any
        assert rooms.holds(held) is True and rooms.holds(other) is False
        assert asked == ["held.ipynb", "other.ipynb"]
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()


def test_the_extension_is_looked_up_until_found_then_kept(tmp_path: Path) -> None:
    """The server builds ``extension_apps`` anew on each call (every extension's apps): the
    collaboration extension's is looked up until it is loaded, then kept; its own switch
    (``disable_rtc``) is read each time."""
    from jupyter_operator.server.rooms import SharedRooms

    class Extension:
        disable_rtc = False
        ywebsocket_server = type("Server", (), {"rooms": {}})()

        async def get_document(self, **kwargs: Any) -> Any:
            return None

    extension = Extension()
    loaded: dict[str, set[Any]] = {}
    looked: list[int] = []

    class Manager:
        @property
        def extension_apps(self) -> dict[str, set[Any]]:
            looked.append(1)
            return dict(loaded)

    class Server:
        root_dir = str(tmp_path)
        extension_manager = Manager()

    rooms = SharedRooms(Server())
    assert rooms.extension() is None and not rooms.active  # not loaded yet
    loaded["jupyter_server_ydoc"] = {extension}
    assert rooms.extension() is extension
    for _ in range(3):
        assert rooms.active and not rooms.holds(tmp_path / "a.ipynb")
    assert len(looked) == 3
    extension.disable_rtc = True
    assert rooms.extension() is None and not rooms.active
