"""Undo restores the exact bytes an applied change replaced, for every kind of mutation."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.replies import b64, block, edits

from jupyter_operator.protocol import OperatorError

# Byte-exact content with CRLF endings, a BOM and no final newline, so a lossy restore shows.
ORIGINAL = (
    "\ufeffimport os\r\n# OPERATOR_BEGIN r1\r\nx = 1\r\n# OPERATOR_END r1\r\nprint(x)"
).encode()

PATCH = (
    "--- a/code.py\n+++ b/code.py\n@@ -1,2 +1,2 @@\n"
    "-import os\n+import sys\n # OPERATOR_BEGIN r1\n"
)

MUTATIONS = {
    "write": block("m1", "fs.write", path="code.py", content_b64=b64("replaced\n")),
    "patch": block("m1", "fs.patch", path="code.py", patch_b64=b64(PATCH)),
    "edits": block(
        "m1", "fs.applyEdits", path="code.py",
        edits_b64=edits({"op": "replaceAll", "find": "x", "text": "value"}),
    ),
    "replaceRegion": block(
        "m1", "fs.replaceRegion", path="code.py", marker_id="r1", content_b64=b64("y = 2\n")
    ),
    "deleteRegion": block("m1", "fs.deleteRegion", path="code.py", marker_id="r1"),
    "insertRegion": block(
        "m1", "fs.insertRegion", path="code.py", marker_id="r2", anchor="print",
        content_b64=b64("z = 3\n"),
    ),
    "delete": block("m1", "fs.delete", path="code.py"),
}  # fmt: skip


@pytest.mark.parametrize("kind", sorted(MUTATIONS))
def test_undo_restores_exact_bytes(kind: str, root: Path, make_operator) -> None:
    target = root / "code.py"
    target.write_bytes(ORIGINAL)
    op = make_operator()
    run = op.run(MUTATIONS[kind])
    item = run.approve("m1").item
    assert item.status == "applied", item.summary
    changed = target.read_bytes() if target.exists() else None
    assert changed != ORIGINAL
    entry = op.undo()
    assert entry.command_id == "m1" and entry.undone
    assert target.read_bytes() == ORIGINAL
    assert [e.undone for e in op.history()] == [True]


def test_applied_bytes_are_exactly_the_previewed_diff(root: Path, make_operator) -> None:
    (root / "code.py").write_bytes(ORIGINAL)
    run = make_operator().run(MUTATIONS["patch"])
    item = run.items[0]
    assert item.status == "pending"
    added = [line for line in item.diff.splitlines() if line.startswith("+") and "+++" not in line]
    assert added == ["+\ufeffimport sys"]  # the BOM is part of the first line's bytes
    assert (root / "code.py").read_bytes() == ORIGINAL  # nothing written before approval
    run.approve("m1")
    assert (root / "code.py").read_bytes() == ORIGINAL.replace(b"import os", b"import sys")


def test_undo_of_a_created_file_removes_it(root: Path, make_operator) -> None:
    op = make_operator()
    op.run(block("c1", "fs.write", path="new/file.txt", content="hello")).approve("c1")
    assert (root / "new" / "file.txt").read_bytes() == b"hello"
    op.undo()
    assert not (root / "new" / "file.txt").exists()


def test_undo_of_a_directory_delete(root: Path, make_operator) -> None:
    (root / "sub" / "deep").mkdir(parents=True)
    (root / "sub" / "deep" / "a.txt").write_bytes(b"a\r\n")
    (root / "sub" / "b.txt").write_bytes(b"b")
    op = make_operator()
    run = op.run(block("d1", "fs.delete", path="sub"))
    assert "sub/deep/a.txt" in run.items[0].diff
    run.approve("d1")
    assert not (root / "sub").exists()
    op.undo()
    assert (root / "sub" / "deep" / "a.txt").read_bytes() == b"a\r\n"
    assert (root / "sub" / "b.txt").read_bytes() == b"b"


def test_undo_refuses_when_the_file_changed_since(root: Path, make_operator) -> None:
    (root / "a.txt").write_bytes(b"one\n")
    op = make_operator()
    op.run(block("w1", "fs.write", path="a.txt", content="two")).approve("w1")
    (root / "a.txt").write_bytes(b"edited by hand\n")
    with pytest.raises(OperatorError) as info:
        op.undo()
    assert info.value.code == "ERR_UNDO_CONFLICT"
    assert (root / "a.txt").read_bytes() == b"edited by hand\n"


def test_undo_by_id_and_nothing_left(root: Path, make_operator) -> None:
    op = make_operator()
    op.run(block("w1", "fs.write", path="a.txt", content="1")).approve("w1")
    op.run(block("w2", "fs.write", path="b.txt", content="2")).approve("w2")
    first, second = op.history()
    op.undo(first.entry_id)
    assert not (root / "a.txt").exists() and (root / "b.txt").exists()
    op.undo()
    with pytest.raises(OperatorError) as info:
        op.undo()
    assert info.value.code == "ERR_NOT_FOUND"
    with pytest.raises(OperatorError):
        op.undo(second.entry_id)


def test_history_is_shared_by_sessions_on_the_same_root(root: Path, make_operator) -> None:
    make_operator().run(block("w1", "fs.write", path="a.txt", content="1")).approve("w1")
    other = make_operator()
    assert [e.command_id for e in other.history()] == ["w1"]
    other.undo()
    assert not (root / "a.txt").exists()


def test_undo_and_redo_work_after_the_session_that_applied_closed(
    root: Path, make_operator
) -> None:
    # A run's engine session ends with the run; its cards still undo and redo what it applied.
    (root / "a.txt").write_text("before\n")
    op = make_operator()
    run = op.run(block("w1", "fs.write", path="a.txt", content_b64=b64("after\n")))
    run.approve("w1")
    op.close()
    [entry] = op.history()
    assert op.undo(entry.entry_id).undone and (root / "a.txt").read_text() == "before\n"
    assert run.item("w1").status == "undone"
    assert not op.redo().undone and (root / "a.txt").read_text() == "after\n"
    assert run.item("w1").status == "applied"
    assert op.executions() == []


# -- a delete across file systems that fails halfway -------------------------------------------


@pytest.fixture
def cross_device(monkeypatch: pytest.MonkeyPatch):
    """Make every move a copy-then-remove (as with the trash on another file system)."""
    import errno
    import os

    from jupyter_operator.workspace import moves

    real_rename = os.rename

    def rename(src, dst, *, src_dir_fd=None, dst_dir_fd=None):
        if src_dir_fd is not None:
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        return real_rename(src, dst)

    monkeypatch.setattr(os, "rename", rename)
    real_remove = moves.remove_tree
    calls = {"n": 0, "fail_at": None}

    def flaky_remove(dir_fd: int, name: str) -> None:
        calls["n"] += 1
        if calls["n"] == calls["fail_at"]:
            raise OSError(errno.EIO, "Input/output error")
        real_remove(dir_fd, name)

    monkeypatch.setattr(moves, "remove_tree", flaky_remove)
    return calls


def _tree(root: Path) -> dict[str, bytes]:
    files = sorted(p for p in root.rglob("*") if p.is_file())
    return {str(p.relative_to(root)): p.read_bytes() for p in files}


def test_cross_device_delete_failing_halfway_is_rolled_back(root: Path, make_operator,
                                                            cross_device) -> None:  # fmt: skip
    for name in ("a", "b", "c"):
        (root / "sub" / name).parent.mkdir(exist_ok=True)
        (root / "sub" / name).write_bytes(name.encode() * 3)
    before = _tree(root)
    cross_device["fail_at"] = 3  # "sub" itself, then "a" removed, then the failure
    op = make_operator()
    item = op.run(block("d1", "fs.delete", path="sub")).approve("d1").item
    assert item.status == "failed" and item.error_code == "ERR_IO"
    assert _tree(root) == before  # what was removed was put back
    assert op.history() == []  # the entry recorded ahead of the move is void
    assert not any((op.journal.path / "trash" / "j1").iterdir())


def test_cross_device_delete_that_cannot_roll_back_says_so_and_undoes(
    root: Path, make_operator, cross_device, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jupyter_operator.workspace import moves

    for name in ("a", "b", "c"):
        (root / "sub" / name).parent.mkdir(exist_ok=True)
        (root / "sub" / name).write_bytes(name.encode() * 3)
    before = _tree(root)
    cross_device["fail_at"] = 3

    def no_rollback(*args: object) -> None:
        raise OSError(5, "Input/output error")

    real_restore = moves.restore_missing
    monkeypatch.setattr(moves, "restore_missing", no_rollback)
    op = make_operator()
    item = op.run(block("d1", "fs.delete", path="sub")).approve("d1").item
    assert item.status == "failed" and item.error_code == "ERR_IO"
    assert "only partly moved" in item.summary and "undo j1" in item.summary
    assert str(root) not in item.summary
    assert _tree(root) != before  # "a" is gone: the report says what happened
    [entry] = op.history()
    assert entry.entry_id == "j1" and entry.partial and not entry.undone
    monkeypatch.setattr(moves, "restore_missing", real_restore)  # the disk works again
    op.undo("j1")
    assert _tree(root) == before
    assert not any((op.journal.path / "trash" / "j1").iterdir())


def test_undoing_a_new_file_removes_the_folders_its_write_created(
    root: Path, make_operator
) -> None:
    (root / "docs").mkdir()
    op = make_operator()
    run = op.run(block("w1", "fs.write", path="docs/a/b/new.txt", content="x"))
    assert run.approve("w1").item.status == "applied"
    assert (root / "docs" / "a" / "b" / "new.txt").exists()
    op.undo()
    # The file and the two folders it needed are gone; the folder that was there stays.
    assert (root / "docs").is_dir() and list((root / "docs").iterdir()) == []
    op.redo()  # puts the folders back with the file
    assert (root / "docs" / "a" / "b" / "new.txt").read_text() == "x"


def test_a_created_folder_that_holds_something_else_stays(root: Path, make_operator) -> None:
    op = make_operator()
    run = op.run(block("w1", "fs.write", path="a/b/new.txt", content="x"))
    run.approve("w1")
    (root / "a" / "mine.txt").write_text("written since")  # by someone else, in a created folder
    op.undo()
    assert not (root / "a" / "b").exists()  # empty: removed
    assert (root / "a" / "mine.txt").read_text() == "written since"  # not empty: stays
    # A folder that already existed is never removed, even when the undo leaves it empty.
    (root / "kept").mkdir()
    run = op.run(block("w2", "fs.write", path="kept/new.txt", content="y"))
    run.approve("w2")
    op.undo()
    assert (root / "kept").is_dir() and not (root / "kept" / "new.txt").exists()
