"""A folder holding a file open in a collaborative room is never deleted or moved beneath the
room (``engine/live_route.py``: ``room_file``; ``server/rooms.py``: ``held_among``).

The rooms are keyed as jupyter-collaboration keys them: by the id the real file-id service
(``jupyter_server_fileid``'s ``LocalFileIdManager``) gives the file when a page opens it, over
a stand-in of the server's extension whose ``get_document`` finds a room by path (indexing the
file, as the real one does) or by room id; each room is a real ``jupyter_ydoc`` document.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.cell_notebooks import standard
from support.replies import block
from test_room_route import approve, in_worker, sources

from jupyter_operator.protocol import OperatorError, codes
from jupyter_operator.server.rooms import SharedRooms

if os.environ.get("CI"):  # the test extra installs jupyter-collaboration: never skipped there
    import jupyter_ydoc
else:
    jupyter_ydoc = pytest.importorskip(
        "jupyter_ydoc", reason="jupyter-collaboration is not installed (pip install -e '.[test]')"
    )


class Extension:
    """``YDocExtension.get_document`` as jupyter_server_ydoc 3 has it: by ``path`` (the file
    is indexed, as the real one does) or by ``room_id``; a room not open is None."""

    def __init__(self, ids: Any) -> None:
        self.ids = ids
        self.rooms: dict[str, Any] = {}
        self.disable_rtc = False

    def room_id(self, path: str, content_type: str, file_format: str) -> str:
        return f"{file_format}:{content_type}:{self.ids.index(path)}"

    async def get_document(self, *, path: str | None = None, content_type: str | None = None,
                           file_format: str | None = None, room_id: str | None = None,
                           copy: bool = True) -> Any:  # fmt: skip
        if room_id is None:
            room_id = self.room_id(path, content_type, file_format)
        return self.rooms.get(room_id)


class Server:
    """The Jupyter server as ``SharedRooms`` sees it, with the file-id service's manager."""

    def __init__(self, root: Path, extension: Extension) -> None:
        self.root_dir = str(root)
        self.extension_manager = type("Manager", (), {})()
        self.extension_manager.extension_apps = {"jupyter_server_ydoc": {extension}}
        self.web_app = type("App", (), {"settings": {"file_id_manager": extension.ids}})()


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """The server's event loop, in its own thread (the engine calls from worker threads)."""
    running = asyncio.new_event_loop()
    thread = threading.Thread(target=running.run_forever, daemon=True)
    thread.start()
    yield running
    running.call_soon_threadsafe(running.stop)
    thread.join(5)
    running.close()


def on_loop(loop: asyncio.AbstractEventLoop, work: Any) -> Any:
    """Run ``work()`` on the server's loop thread (the file-id service's database is used on
    the thread that opened it, as in a server)."""

    async def call() -> Any:
        return work()

    return asyncio.run_coroutine_threadsafe(call(), loop).result(10)


@pytest.fixture
def work(root: Path) -> Path:
    """``work/`` holding a notebook, a text file and a deeper notebook."""
    (root / "work" / "deep").mkdir(parents=True)
    (root / "work" / "nb.ipynb").write_text(standard(), encoding="utf-8")
    (root / "work" / "notes.md").write_text("# notes\n", encoding="utf-8")
    (root / "work" / "deep" / "inner.ipynb").write_text(standard(), encoding="utf-8")
    return root / "work"


@pytest.fixture
def extension(root: Path, tmp_path: Path, loop) -> Iterator[Extension]:
    from jupyter_server_fileid.manager import LocalFileIdManager

    ids = on_loop(loop, lambda: LocalFileIdManager(root_dir=str(root),
                                                   db_path=str(tmp_path / "file_id.db")))
    yield Extension(ids)

    def close() -> None:  # on its own thread; and none left for the manager's __del__
        ids.con.close()
        del ids.con

    on_loop(loop, close)


def open_room(loop, extension: Extension, path: str, kind: str = "notebook") -> Any:
    """Open a room for ``path`` as a page does: the file is indexed, the room keyed by its id;
    ``kind`` "text": a notebook opened in the text editor."""
    data = (Path(extension.ids.root_dir) / path).read_text(encoding="utf-8")
    if kind == "notebook":
        doc = jupyter_ydoc.YNotebook()
        doc.set(json.loads(data))
        room_id = on_loop(loop, lambda: extension.room_id(path, "notebook", "json"))
    else:
        doc = jupyter_ydoc.YUnicode()
        doc.set(data)
        room_id = on_loop(loop, lambda: extension.room_id(path, "file", "text"))
    extension.rooms[room_id] = doc
    return doc


@pytest.fixture
def op(make_operator, root: Path, extension: Extension, loop):
    op = make_operator(extensions=("nb",))
    op.rooms = SharedRooms(Server(root, extension), loop=loop)
    return op


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}  # fmt: skip


def test_a_folder_holding_a_notebook_open_in_a_room_is_not_deleted(op, work, extension,
                                                                   loop) -> None:  # fmt: skip
    """The whole delete is refused before anything moves, naming the file the room holds;
    the disk, the room and the history are as they were."""
    before = tree(work)
    room = open_room(loop, extension, "work/deep/inner.ipynb")
    item = in_worker(lambda: approve(op, block("d1", "fs.delete", path="work"), "d1"))
    assert item.status == "failed" and item.result.code == codes.ERR_PAGE_UNAVAILABLE
    assert "work/deep/inner.ipynb" in item.result.summary
    assert tree(work) == before
    assert sources(room) == ["# Title", "x = 1\nprint(x)", "y = x + 1"]
    assert op.journal.entries() == []


def test_a_notebook_open_in_the_text_editor_holds_its_folder_too(op, work, extension,
                                                                 loop) -> None:  # fmt: skip
    room = open_room(loop, extension, "work/nb.ipynb", kind="text")
    item = in_worker(lambda: approve(op, block("d1", "fs.delete", path="work/"), "d1"))
    assert item.result.code == codes.ERR_PAGE_UNAVAILABLE and "work/nb.ipynb" in item.result.summary
    assert (work / "nb.ipynb").exists() and room.get() == (work / "nb.ipynb").read_text()


def test_the_same_folder_with_no_room_open_is_deleted_and_nothing_is_indexed(
    op, work, extension, loop
) -> None:
    """No room: deleted as before. Asking about each file gives none of them a file id (only
    a page opening a file does)."""
    (work.parent / "elsewhere.ipynb").write_text(standard(), encoding="utf-8")
    open_room(loop, extension, "elsewhere.ipynb")  # a room outside the folder holds nothing of it
    item = in_worker(lambda: approve(op, block("d1", "fs.delete", path="work"), "d1"))
    assert item.status == "applied", item.result
    assert not work.exists()
    in_worker(lambda: op.undo(item.entry_id))
    assert on_loop(loop, lambda: extension.ids.get_id("work/nb.ipynb")) is None


def test_a_redo_of_a_folder_delete_is_refused_beneath_a_room(op, work, extension, loop) -> None:
    """Undo puts the folder back; a page opens one of its notebooks in a room; the redo (the
    folder moved into the trash again) is refused, the folder and the room as they were."""
    item = in_worker(lambda: approve(op, block("d1", "fs.delete", path="work"), "d1"))
    assert item.status == "applied", item.result
    in_worker(lambda: op.undo(item.entry_id))
    before = tree(work)
    room = open_room(loop, extension, "work/nb.ipynb")
    with pytest.raises(OperatorError) as error:
        in_worker(lambda: op.redo(item.entry_id))
    assert error.value.code == codes.ERR_PAGE_UNAVAILABLE and "work/nb.ipynb" in error.value.message
    assert tree(work) == before and sources(room)[2] == "y = x + 1"


@pytest.mark.parametrize("spelled", ["work/", "./work", "work/.", "work\\", "work/./deep"])
def test_every_spelling_of_the_folder_is_refused(op, work, extension, loop, spelled) -> None:
    open_room(loop, extension, "work/deep/inner.ipynb")
    item = in_worker(lambda: approve(op, block("d1", "fs.delete", path=spelled), "d1"))
    assert item.result.code == codes.ERR_PAGE_UNAVAILABLE, (spelled, item.result)
    assert (work / "deep" / "inner.ipynb").exists()


def test_a_file_with_an_unusual_name_is_found_by_its_real_name(op, work, extension,
                                                               loop) -> None:  # fmt: skip
    """A room's file is looked up by its real name (a zero-width space is one); the message
    shows it escaped, on one line."""
    name = "work/deep/a\u200bb.ipynb"
    (work.parent / name).write_text(standard(), encoding="utf-8")
    open_room(loop, extension, name)
    item = in_worker(lambda: approve(op, block("d1", "fs.delete", path="work"), "d1"))
    assert item.result.code == codes.ERR_PAGE_UNAVAILABLE
    assert "work/deep/a\\u200bb.ipynb" in item.result.summary
    assert (work.parent / name).exists()
