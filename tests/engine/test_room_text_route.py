"""Approved changes to a text file open in a collaborative room land in the room's shared text
(``engine/live_route.py``, ``server/rooms.py``) as the smallest edits in one transaction, never
in the file beneath it; undo and redo go through the room too, and no route writes the file
beneath its room.

The room here is a real ``jupyter_ydoc.YUnicode`` (what jupyter-collaboration's rooms hold for
a text file), reached through ``SharedRooms`` over the stand-in server of
``test_room_route.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.replies import block, edits, write
from test_room_route import Extension, Server, approve, in_worker, loop  # noqa: F401

from jupyter_operator.protocol import OperatorError, codes
from jupyter_operator.server.rooms import SharedRooms, apply_text, text_edits

jupyter_ydoc = pytest.importorskip(
    "jupyter_ydoc", reason="jupyter-collaboration is not installed (pip install -e '.[test]')"
)

ORIGINAL = "import math\n\n\ndef area(r):\n    return math.pi * r ** 2\n"


@pytest.fixture
def py_path(root: Path) -> Path:
    path = root / "geo.py"
    path.write_text(ORIGINAL, encoding="utf-8")
    return path


@pytest.fixture
def room(py_path: Path) -> Any:
    """The room's shared text, loaded from the file as a room loads it."""
    from pycrdt import Awareness, Doc

    ydoc = Doc()
    doc = jupyter_ydoc.YUnicode(ydoc, Awareness(ydoc))
    doc.set(py_path.read_text())
    return doc


class TextExtension(Extension):
    """The stand-in extension, which only finds a text file's room when asked for one."""

    async def get_document(self, **kwargs: Any) -> Any:
        self.asked.append(kwargs)
        doc = self.rooms.get(kwargs["path"])
        wanted = jupyter_ydoc.YNotebook if kwargs["content_type"] == "notebook" else (
            jupyter_ydoc.YUnicode)  # fmt: skip
        return doc if isinstance(doc, wanted) else None


@pytest.fixture
def extension(room: Any) -> TextExtension:
    return TextExtension({"geo.py": room})


@pytest.fixture
def op(make_operator, root: Path, extension: TextExtension, loop):  # noqa: F811
    op = make_operator()
    op.rooms = SharedRooms(Server(root, extension), loop=loop)
    return op


def retype(op) -> str:
    return block("p1", "fs.applyEdits", path="geo.py", edits_b64=edits(
        {"op": "replaceFirst", "find": "r ** 2", "text": "r * r"}))  # fmt: skip


def test_a_text_change_lands_in_the_room_as_small_edits_and_the_file_is_never_written(
    op, py_path, room, extension
) -> None:
    before = py_path.read_bytes()
    updates: list[Any] = []
    room.ydoc.observe(lambda event: updates.append(event))
    item = in_worker(lambda: approve(op, retype(op), "p1"))
    assert item.status == "applied" and item.result.ok, item.result
    assert "in the shared file" in item.result.summary
    assert room.get() == ORIGINAL.replace("r ** 2", "r * r")
    assert len(updates) == 1  # one transaction: collaborators get it as one update
    assert py_path.read_bytes() == before  # the room saves it, not the engine
    [entry] = op.history()
    assert entry.route == "room" and entry.entry_id == item.entry_id
    assert item.live["route"] == "room"  # the panel leaves the open file alone
    assert extension.asked[-1] == {"path": "geo.py", "content_type": "file",
                                   "file_format": "text", "copy": False}  # fmt: skip
    user = room.awareness.get_local_state()["user"]
    assert user["display_name"] == "Operator"
    assert room.awareness.get_local_state()["cursors"]  # its caret where it wrote


def test_a_collaborators_unsaved_typing_is_the_preview_and_stays(op, py_path, room) -> None:
    """Bob typed a line the file does not have yet: the preview is made on the room's text
    (its diff shows only the change) and applying it keeps his line."""
    room.set("# Bob's note\n" + ORIGINAL)
    run = in_worker(lambda: op.run(retype(op)))
    item = run.item("p1")
    assert item.proposal.snapshot.data.startswith(b"# Bob's note")
    assert "Bob" not in (item.diff or "")
    in_worker(lambda: run.approve("p1"))
    assert item.status == "applied"
    assert room.get() == "# Bob's note\n" + ORIGINAL.replace("r ** 2", "r * r")
    assert "Bob" not in py_path.read_text()  # the file beneath is the room's to save


def test_text_typed_in_the_room_since_the_preview_refuses_the_change(op, py_path, room) -> None:
    before = py_path.read_bytes()
    run = in_worker(lambda: op.run(retype(op)))
    room.set(ORIGINAL + "# typed meanwhile\n")
    in_worker(lambda: run.approve("p1"))
    item = run.item("p1")
    assert item.status == "stale" and item.result.code == codes.ERR_STALE_PREVIEW
    assert "shared file" in item.result.summary
    assert room.get() == ORIGINAL + "# typed meanwhile\n"  # nothing was changed
    assert py_path.read_bytes() == before and op.history() == []


def test_a_whole_write_and_a_patch_go_to_the_room_too(op, py_path, room) -> None:
    before = py_path.read_bytes()
    whole = in_worker(lambda: approve(op, write("w1", "geo.py", ORIGINAL + "PI = 3\n"), "w1"))
    assert whole.status == "applied" and room.get() == ORIGINAL + "PI = 3\n"
    patch = "\n".join(["--- a/geo.py", "+++ b/geo.py", "@@ -1,1 +1,1 @@", "-import math",
                       "+import math as m", ""])  # fmt: skip
    from support.replies import b64

    patched = in_worker(lambda: approve(op, block("q1", "fs.patch", path="geo.py",
                                                  patch_b64=b64(patch)), "q1"))  # fmt: skip
    assert patched.status == "applied", patched.result
    assert room.get().startswith("import math as m\n")
    assert py_path.read_bytes() == before
    assert [e.route for e in op.history()] == ["room", "room"]


def test_undo_and_redo_of_a_text_change_go_through_the_room(op, py_path, room) -> None:
    before = py_path.read_bytes()
    item = in_worker(lambda: approve(op, retype(op), "p1"))
    entry = in_worker(lambda: op.undo(item.entry_id))
    assert entry.undone and item.status == "undone" and room.get() == ORIGINAL
    in_worker(lambda: op.redo(item.entry_id))
    assert item.status == "applied" and room.get() == ORIGINAL.replace("r ** 2", "r * r")
    assert py_path.read_bytes() == before
    # Text a collaborator typed since: the undo would not restore what the change found.
    room.set(room.get() + "# Bob\n")
    with pytest.raises(OperatorError) as error:
        in_worker(lambda: op.undo(item.entry_id))
    assert error.value.code == codes.ERR_UNDO_CONFLICT and "shared file" in error.value.message
    assert room.get().endswith("r * r\n# Bob\n") and py_path.read_bytes() == before


def test_a_change_the_room_cannot_take_as_text_is_refused_not_written(op, py_path,
                                                                      room) -> None:  # fmt: skip
    """Bytes that are not UTF-8 (as the person edited the change), or a delete, would
    replace the file beneath its open room: refused, the file and the room as they were."""
    before = py_path.read_bytes()
    run = in_worker(lambda: op.run(write("b1", "geo.py", "text\n")))
    in_worker(lambda: run.approve("b1", content=b"\xff\xfe\x00bin"))
    item = run.item("b1")
    assert item.status == "failed" and item.result.code == codes.ERR_PAGE_UNAVAILABLE, item.result
    delete = in_worker(lambda: approve(op, block("d1", "fs.delete", path="geo.py"), "d1"))
    assert delete.status == "failed" and delete.result.code == codes.ERR_PAGE_UNAVAILABLE
    assert py_path.read_bytes() == before and room.get() == ORIGINAL


def test_files_no_room_holds_go_to_the_disk(op, root, room) -> None:
    """Another text file, a new file: no room holds them, the disk as today."""
    (root / "notes.md").write_text("# Notes\n", encoding="utf-8")
    reply = "\n".join([write("n1", "notes.md", "# Notes\nmore\n"),
                       write("c1", "new.py", "x = 1\n")])  # fmt: skip
    run = in_worker(lambda: op.run(reply))
    for id in ("n1", "c1"):
        in_worker(lambda id=id: run.approve(id))
        assert run.item(id).status == "applied" and run.item(id).live is None
    assert (root / "notes.md").read_text() == "# Notes\nmore\n"
    assert (root / "new.py").read_text() == "x = 1\n"
    assert room.get() == ORIGINAL


def test_a_json_operation_never_writes_a_text_file_beneath_its_room(op, py_path, room) -> None:
    """The JSON operations dialect writes files itself: a text file a room holds is refused
    there, the file and the room as they were."""
    from jupyter_operator.engine import run_json

    before = py_path.read_bytes()
    text = json.dumps({"operations": [{"type": "createFile", "path": "geo.py", "overwrite": True,
                                       "content": "boom\n"}]})  # fmt: skip
    run = in_worker(lambda: run_json(op, text))
    [item] = run.pending
    in_worker(lambda: run.approve(item.id))
    event = run.events[-1]
    assert event["success"] is False and event["code"] == codes.ERR_PAGE_UNAVAILABLE, event
    assert py_path.read_bytes() == before and room.get() == ORIGINAL


def test_a_room_a_kernel_can_only_ask_about_refuses_a_text_file_write(make_operator, root,
                                                                      py_path) -> None:  # fmt: skip
    """A kernel's magics cannot edit their server's rooms; a text file one holds is refused,
    never written beneath it (``room_holders``)."""

    class Holder:
        def holds(self, path: Path) -> bool:
            return path == py_path

    op = make_operator()
    op.room_holders = Holder()
    item = in_worker(lambda: approve(op, retype(op), "p1"))
    assert item.status == "failed" and item.result.code == codes.ERR_PAGE_UNAVAILABLE
    assert py_path.read_text() == ORIGINAL


@pytest.mark.parametrize("before, after", [
    ("", "new\n"), ("a\nb\nc\n", "a\nB\nc\n"), ("héllo 😀\nwörld\n", "héllo 😀!\nwörld\n"),
    ("x = 1\n", ""), ("one\ntwo\n", "zero\none\ntwo\nthree"), ("no newline", "no newline\n"),
])  # fmt: skip
def test_text_edits_are_the_smallest_and_land_exactly(before: str, after: str) -> None:
    doc = jupyter_ydoc.YUnicode()
    doc.set(before)
    assert apply_text(doc, before, after)["state"] == "applied"
    assert doc.get() == after
    assert sum(len(text) for _s, _e, text in text_edits(before, after)) <= max(len(after), 1)


def test_one_changed_character_is_one_small_edit() -> None:
    assert text_edits("a = 1\nb = 2\n", "a = 1\nb = 3\n") == [(10, 11, "3")]
