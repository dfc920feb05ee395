"""Approved changes to a notebook open in a collaborative room land in the room's shared
document (``engine/live_route.py``, ``server/rooms.py``), never in the file beneath it.

The room here is a real ``jupyter_ydoc.YNotebook`` (as jupyter-collaboration's rooms hold it),
reached through ``SharedRooms`` over a stand-in of the server's extension manager; the browser
test (``tests/browser/test_lab_collaboration.py``) runs the real rooms with two pages.
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
from support.replies import block, write

from jupyter_operator.protocol import codes

if os.environ.get("CI"):  # the test extra installs jupyter-collaboration: never skipped there
    import jupyter_ydoc
else:
    jupyter_ydoc = pytest.importorskip(
        "jupyter_ydoc", reason="jupyter-collaboration is not installed (pip install -e '.[test]')"
    )

from jupyter_operator.server.rooms import (
    SharedRooms,
    apply_edits,
    notebook_bytes,
)


class Extension:
    """``YDocExtension`` as the rooms use it: ``get_document`` of an open room, else None."""

    def __init__(self, rooms: dict[str, Any], disable_rtc: bool = False) -> None:
        self.rooms = rooms
        self.disable_rtc = disable_rtc
        self.asked: list[dict[str, Any]] = []

    async def get_document(self, **kwargs: Any) -> Any:
        self.asked.append(kwargs)
        return self.rooms.get(kwargs["path"])


class Server:
    """The Jupyter server as ``SharedRooms`` sees it."""

    def __init__(self, root: Path, extension: Extension) -> None:
        self.root_dir = str(root)
        self.extension_manager = type("Manager", (), {})()
        self.extension_manager.extension_apps = {"jupyter_server_ydoc": {extension}}


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


@pytest.fixture
def room(nb_path: Path) -> Any:
    """The room's shared notebook, loaded from the file as a room loads it; a page keeps the
    transient ``trusted`` flag in each cell's metadata."""
    from pycrdt import Awareness, Doc

    ydoc = Doc()
    doc = jupyter_ydoc.YNotebook(ydoc, Awareness(ydoc))
    content = json.loads(nb_path.read_text())
    for cell in content["cells"]:
        cell["metadata"]["trusted"] = True
    doc.set(content)
    return doc


@pytest.fixture
def extension(room: Any) -> Extension:
    return Extension({"nb.ipynb": room})


@pytest.fixture
def op(make_operator, root: Path, extension: Extension, loop):
    op = make_operator(extensions=("nb",))
    op.rooms = SharedRooms(Server(root, extension), loop=loop)
    return op


def sources(doc: Any) -> list[str]:
    return [str(cell["source"]) for cell in doc.ycells]


def approve(op, reply: str, id: str) -> Any:
    """Scan ``reply`` and approve ``id`` (call it in a worker thread, as the server's handlers
    do); the run is kept on the item (the history follows items only while their run lives)."""
    run = op.run(reply)
    run.approve(id)
    item = run.item(id)
    item.kept_run = run
    return item


def in_worker(work) -> Any:
    done: list[Any] = []
    failed: list[BaseException] = []

    def call() -> None:
        try:
            done.append(work())
        except BaseException as exc:
            failed.append(exc)

    worker = threading.Thread(target=call)
    worker.start()
    worker.join(20)
    if failed:
        raise failed[0]
    return done[0]


def replace_calc(source: str = "y = x + 2", id: str = "c1") -> str:
    return block(id, "nb.replaceCell", notebook="nb.ipynb", cell_id="calc", content=source)


def test_a_change_lands_in_the_room_and_the_file_is_never_written(op, nb_path, room,
                                                                  extension) -> None:  # fmt: skip
    before = nb_path.read_bytes()
    item = in_worker(lambda: approve(op, replace_calc(), "c1"))
    assert item.status == "applied" and item.result.ok
    assert "in the shared notebook" in item.result.summary
    assert sources(room) == ["# Title", "x = 1\nprint(x)", "y = x + 2"]
    assert nb_path.read_bytes() == before  # the room saves it, not the engine
    [entry] = op.history()
    assert entry.route == "room" and entry.entry_id == item.entry_id
    assert extension.asked[-1] == {"path": "nb.ipynb", "content_type": "notebook",
                                   "file_format": "json", "copy": False}  # fmt: skip
    # The agent is a collaborator of the room meanwhile: named, in its colour.
    user = room.awareness.get_local_state()["user"]
    assert user["display_name"] == "Operator" and user["color"].startswith("#")


def test_the_collaborators_see_the_models_name(op, room) -> None:
    op.model_name = "qwen3-coder"
    in_worker(lambda: approve(op, replace_calc(), "c1"))
    assert room.awareness.get_local_state()["user"]["name"] == "Operator (qwen3-coder)"


def test_the_preview_is_the_rooms_cells_and_a_collaborators_other_edit_stays(op, room) -> None:
    """A collaborator's edit the file does not have yet is the preview's base: the change's
    diff shows only the change, and applying it keeps that edit (and the page's trusted flag
    is no change)."""
    room.set_cell(0, source="# Title, renamed by Bob")
    run = in_worker(lambda: op.run(replace_calc()))
    item = run.item("c1")
    assert b"renamed by Bob" in item.proposal.snapshot.data
    assert "trusted" not in (item.diff or "") and "renamed" not in (item.diff or "")
    in_worker(lambda: run.approve("c1"))
    assert item.status == "applied"
    assert sources(room) == ["# Title, renamed by Bob", "x = 1\nprint(x)", "y = x + 2"]


def test_a_touched_cell_a_collaborator_edited_since_the_preview_is_refused_by_name(
    op, nb_path, room
) -> None:
    before = nb_path.read_bytes()
    run = in_worker(lambda: op.run(replace_calc()))
    room.set_cell(2, source="y = x * 10")  # Bob types in the cell the change replaces
    in_worker(lambda: run.approve("c1"))
    item = run.item("c1")
    assert item.status == "stale" and item.result.code == codes.ERR_STALE_PREVIEW
    assert "cell calc" in item.result.summary and "shared notebook" in item.result.summary
    assert sources(room)[2] == "y = x * 10"  # nothing was changed
    assert nb_path.read_bytes() == before
    assert op.history() == []


def test_an_edit_of_another_cell_since_the_preview_does_not_refuse(op, room) -> None:
    run = in_worker(lambda: op.run(replace_calc()))
    room.set_cell(1, source="x = 2\nprint(x)")
    in_worker(lambda: run.approve("c1"))
    assert run.item("c1").status == "applied"
    assert sources(room) == ["# Title", "x = 2\nprint(x)", "y = x + 2"]


def test_approve_and_run_clears_the_replaced_cells_outputs_in_the_same_transaction(
    make_operator, root, extension, loop, nb_path, room
) -> None:
    """Approve & Run of a replaced cell in a room: its old outputs and execution count go
    with the change, in one transaction (no collaborator sees the new source beside the old
    source's outputs), as on the page route; then the cell runs."""
    from base64 import b64encode

    from jupyter_operator.execution import DeferredRunner

    op = make_operator(extensions=("nb",), runner=DeferredRunner())
    op.rooms = SharedRooms(Server(root, extension), loop=loop)
    before = nb_path.read_bytes()
    assert room.get_cell(1)["outputs"] and room.get_cell(1)["execution_count"] == 1
    reply = block("r1", "nb.replaceCell", notebook="nb.ipynb", cell_id="load",
                  content_b64=b64encode(b"x = 2\nprint(x)").decode())  # fmt: skip
    run = in_worker(lambda: op.run(reply))
    transactions: list[Any] = []
    room.ydoc.observe(lambda event: transactions.append(event))
    in_worker(lambda: run.approve("r1", and_run=True))
    item = run.item("r1")
    cell = room.get_cell(1)
    assert cell["source"] == "x = 2\nprint(x)"
    assert cell["outputs"] == [] and cell["execution_count"] is None
    assert len(transactions) == 1  # the source and the cleared outputs: one transaction
    assert item.live["route"] == "room" and item.live["and_run"]
    assert item.status == "running" and item.execution is not None  # the cell runs now
    assert item.execution.request.source == "x = 2\nprint(x)"
    assert "outputs stale" not in item.result.summary
    assert nb_path.read_bytes() == before
    # A plain approve keeps the outputs (the model is told they are stale).
    room.set_cell(1, value={**room.get_cell(1), "outputs": [
        {"output_type": "stream", "name": "stdout", "text": "2\n"}], "execution_count": 2})
    reply = block("r2", "nb.replaceCell", notebook="nb.ipynb", cell_id="load",
                  content_b64=b64encode(b"x = 3\nprint(x)").decode())  # fmt: skip
    item = in_worker(lambda: approve(op, reply, "r2"))
    assert item.status == "applied" and room.get_cell(1)["execution_count"] == 2
    assert room.get_cell(1)["outputs"]


def test_undo_and_redo_go_through_the_room(op, nb_path, room) -> None:
    before = nb_path.read_bytes()
    item = in_worker(lambda: approve(op, replace_calc(), "c1"))
    room.set_cell(0, source="# Title (Bob)")  # a collaborator's edit elsewhere stays
    entry = in_worker(lambda: op.undo(item.entry_id))
    assert entry.undone and item.status == "undone"
    assert sources(room) == ["# Title (Bob)", "x = 1\nprint(x)", "y = x + 1"]
    in_worker(lambda: op.redo(item.entry_id))
    assert item.status == "applied"
    assert sources(room) == ["# Title (Bob)", "x = 1\nprint(x)", "y = x + 2"]
    assert nb_path.read_bytes() == before


def test_an_undo_whose_cell_a_collaborator_edited_since_is_refused_by_name(op, room) -> None:
    from jupyter_operator.protocol import OperatorError

    item = in_worker(lambda: approve(op, replace_calc(), "c1"))
    room.set_cell(2, source="y = x + 2  # Bob")
    with pytest.raises(OperatorError) as error:
        in_worker(lambda: op.undo(item.entry_id))
    assert error.value.code == codes.ERR_UNDO_CONFLICT and "cell calc" in error.value.message
    assert sources(room)[2] == "y = x + 2  # Bob"


def test_a_change_the_room_cannot_take_as_cells_is_refused_not_written(op, nb_path,
                                                                       room) -> None:  # fmt: skip
    """A delete, or a write that is not a notebook with cell ids, would replace the file
    beneath the open room: refused, the file and the room as they were."""
    before = nb_path.read_bytes()
    delete = in_worker(lambda: approve(op, block("d1", "fs.delete", path="nb.ipynb"), "d1"))
    assert delete.status == "failed" and delete.result.code == codes.ERR_PAGE_UNAVAILABLE
    whole = json.loads(before)
    for cell in whole["cells"]:
        del cell["id"]  # nbformat 4.5 without ids: no cell to edit by
    reply = write("w1", "nb.ipynb", json.dumps(whole))
    whole_write = in_worker(lambda: approve(op, reply, "w1"))
    assert whole_write.status == "failed", whole_write.result
    assert whole_write.result.code == codes.ERR_PAGE_UNAVAILABLE
    assert nb_path.read_bytes() == before
    assert sources(room) == ["# Title", "x = 1\nprint(x)", "y = x + 1"]


def test_no_room_no_collaboration_the_disk_as_before(make_operator, root, nb_path, loop) -> None:
    """Collaboration off (``disable_rtc``) or no room open for the notebook: the file."""
    for extension in (Extension({"nb.ipynb": object()}, disable_rtc=True), Extension({})):
        op = make_operator(extensions=("nb",))
        op.rooms = SharedRooms(Server(root, extension), loop=loop)
        item = in_worker(lambda op=op: approve(op, replace_calc(id="k1"), "k1"))
        assert item.status == "applied" and "shared" not in item.result.summary
        assert "y = x + 2" in nb_path.read_text()
        nb_path.write_text(standard(), encoding="utf-8")
        if extension.disable_rtc:
            assert extension.asked == []  # collaboration off: no room is even looked up


def test_a_room_is_never_waited_for_on_its_own_loop(root, loop) -> None:
    rooms = SharedRooms(Server(root, Extension({})), loop=loop)

    async def on_loop() -> None:
        rooms.holds(root / "nb.ipynb")

    with pytest.raises(RuntimeError):
        asyncio.run_coroutine_threadsafe(on_loop(), loop).result(10)


def test_room_bytes_are_the_notebook_as_saved_without_transient_fields(room) -> None:
    saved = json.loads(notebook_bytes(room))
    assert [c["id"] for c in saved["cells"]] == ["intro", "load", "calc"]
    assert all("trusted" not in c["metadata"] for c in saved["cells"])


def test_cell_edits_insert_move_delete_and_outputs_in_one_transaction(room) -> None:
    from jupyter_operator.notebooks.cell_edits import cell_edits

    before = notebook_bytes(room)
    after = json.loads(before)
    cells = after["cells"]
    cells[1]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["2\n"]}]
    cells.insert(0, {"id": "new", "cell_type": "markdown", "metadata": {}, "source": "new"})
    cells[:] = [cells[0], cells[3], cells[2]]  # calc before load; intro deleted
    edits = cell_edits(before, json.dumps(after).encode())
    updates: list[bytes] = []
    room.ydoc.observe(lambda event: updates.append(event.update))
    assert apply_edits(room, edits) == {"state": "applied"}
    assert len(updates) == 1  # one transaction: collaborators get it as one update
    saved = json.loads(notebook_bytes(room))
    assert [c["id"] for c in saved["cells"]] == ["new", "calc", "load"]
    assert "".join(saved["cells"][2]["outputs"][0]["text"]) == "2\n"


def test_a_cell_the_room_cannot_take_changes_nothing(room) -> None:
    """All or nothing: an insert the shared document refuses fails before any other edit of
    the same change is made (a transaction is not rolled back)."""
    from jupyter_operator.notebooks.cell_edits import source_hash

    edits = {"ops": [{"op": "set", "id": "calc", "fields": {"source": "y = 0"}},
                     {"op": "insert", "after": "calc", "index": 3, "cell": {"id": "odd"}}],
             "guards": {"calc": source_hash("y = x + 1")}}  # fmt: skip
    with pytest.raises(KeyError):
        apply_edits(room, edits)
    assert sources(room) == ["# Title", "x = 1\nprint(x)", "y = x + 1"]


def test_a_link_in_the_workspace_never_leads_into_another_notebooks_room(make_operator, root,
                                                                         loop) -> None:  # fmt: skip
    """A symlink in the workspace to a notebook elsewhere under the server's root that has a
    room: the room is not looked up, read or edited (the file route's jail decides)."""
    from pycrdt import Awareness, Doc

    server_root = root.parent
    other = server_root / "other.ipynb"
    other.write_text(standard(), encoding="utf-8")
    ydoc = Doc()
    elsewhere = jupyter_ydoc.YNotebook(ydoc, Awareness(ydoc))
    elsewhere.set(json.loads(other.read_text()))
    (root / "link.ipynb").symlink_to(other)
    extension = Extension({"other.ipynb": elsewhere, "ws/link.ipynb": elsewhere})
    op = make_operator(extensions=("nb",))
    op.rooms = SharedRooms(Server(server_root, extension), loop=loop)
    reply = block("l1", "nb.replaceCell", notebook="link.ipynb", cell_id="calc", content="boom")
    item = in_worker(lambda: approve(op, reply, "l1"))
    assert extension.asked == []
    assert sources(elsewhere) == ["# Title", "x = 1\nprint(x)", "y = x + 1"]
    assert item.status == "failed" and item.result.code == codes.ERR_PATH_ESCAPE
    assert "boom" not in other.read_text()


def test_the_server_says_on_its_own_loop_whether_a_room_holds_a_notebook(
    root, nb_path, loop, extension
) -> None:
    """What ``GET rooms?path=`` answers a kernel's magics (``kernel/server_rooms.py``)."""
    rooms = SharedRooms(Server(root, extension), loop=loop)
    ask = lambda path: asyncio.run_coroutine_threadsafe(rooms.held(path), loop).result(5)  # noqa: E731
    assert ask(nb_path) is True
    assert ask(root / "other.ipynb") is False


def test_a_json_operation_never_writes_a_notebook_beneath_its_room(op, nb_path, room) -> None:
    """The JSON operations dialect writes files itself: a notebook a room holds is refused
    there too, the file and the room as they were."""
    from jupyter_operator.engine import run_json

    before = nb_path.read_bytes()
    whole = json.loads(before)
    whole["cells"][2]["source"] = "y = 0"
    text = json.dumps({"operations": [{"type": "createFile", "path": "nb.ipynb", "overwrite": True,
                                       "content": json.dumps(whole)}]})  # fmt: skip
    run = in_worker(lambda: run_json(op, text))
    [item] = run.pending
    in_worker(lambda: run.approve(item.id))
    event = run.events[-1]
    assert event["success"] is False and event["code"] == codes.ERR_PAGE_UNAVAILABLE, event
    assert nb_path.read_bytes() == before
    assert sources(room) == ["# Title", "x = 1\nprint(x)", "y = x + 1"]
