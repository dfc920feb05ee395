"""The one write path: atomic, byte-exact, mode-keeping, compare-and-swap, no stray temps."""

from __future__ import annotations

import errno
import os
import stat
import threading
from pathlib import Path

import pytest

from jupyter_operator.protocol import OperatorError, codes
from jupyter_operator.workspace import Snapshot, Workspace
from jupyter_operator.workspace import atomic as atomic_module
from jupyter_operator.workspace import moves as moves_module
from jupyter_operator.workspace.paths import TEMP_PREFIX

from .sandbox import Sandbox

ABSENT = Snapshot("x", False, False, None, None)


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_create_with_missing_parents(sandbox: Sandbox, ws: Workspace) -> None:
    snap = ws.snapshot("deep/er/x.txt", limit=100)
    assert not snap.exists
    ws.write("deep/er/x.txt", b"hello", expect=snap)
    assert (sandbox.root / "deep/er/x.txt").read_bytes() == b"hello"
    umask = os.umask(0)
    os.umask(umask)
    mode = stat.S_IMODE(os.stat(sandbox.root / "deep/er/x.txt").st_mode)
    assert mode == 0o666 & ~umask
    assert names(sandbox.root / "deep/er") == ["x.txt"]


def test_replace_keeps_mode_and_writes_exact_bytes(sandbox: Sandbox, ws: Workspace) -> None:
    path = sandbox.write("run.sh", b"#!/bin/sh\r\necho hi\r\n")
    os.chmod(path, 0o751)
    snap = ws.snapshot("run.sh", limit=100)
    ws.write("run.sh", b"\xef\xbb\xbf#!/bin/sh\r\necho bye", expect=snap)
    assert path.read_bytes() == b"\xef\xbb\xbf#!/bin/sh\r\necho bye"
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    assert os.stat(path).st_ino != snap.ino  # a new inode: never an in-place write
    assert names(sandbox.root) == ["a.txt", "run.sh", "sub"]


def test_stale_when_changed_after_preview(sandbox: Sandbox, ws: Workspace) -> None:
    snap = ws.snapshot("a.txt", limit=100)
    (sandbox.root / "a.txt").write_text("edited by a person\n")  # same inode, new bytes
    with pytest.raises(OperatorError) as info:
        ws.write("a.txt", b"model's version\n", expect=snap)
    assert info.value.code == codes.ERR_STALE_PREVIEW
    assert (sandbox.root / "a.txt").read_text() == "edited by a person\n"
    assert names(sandbox.root) == ["a.txt", "sub"]


def test_stale_when_same_size_change(sandbox: Sandbox, ws: Workspace) -> None:
    snap = ws.snapshot("a.txt", limit=100)
    (sandbox.root / "a.txt").write_text("ALPHA\n")
    with pytest.raises(OperatorError) as info:
        ws.write("a.txt", b"x", expect=snap)
    assert info.value.code == codes.ERR_STALE_PREVIEW


def test_stale_when_created_meanwhile_or_removed(sandbox: Sandbox, ws: Workspace) -> None:
    snap = ws.snapshot("new.txt", limit=100)
    sandbox.write("new.txt", "someone else")
    with pytest.raises(OperatorError) as info:
        ws.write("new.txt", b"mine", expect=snap)
    assert info.value.code == codes.ERR_STALE_PREVIEW
    assert (sandbox.root / "new.txt").read_text() == "someone else"
    snap = ws.snapshot("sub/b.txt", limit=100)
    (sandbox.root / "sub/b.txt").unlink()
    (sandbox.root / "sub").rmdir()
    with pytest.raises(OperatorError) as info:
        ws.write("sub/b.txt", b"x", expect=snap)
    assert info.value.code == codes.ERR_STALE_PREVIEW
    assert not (sandbox.root / "sub").exists()


def test_stale_when_replaced_by_another_inode(sandbox: Sandbox, ws: Workspace) -> None:
    snap = ws.snapshot("a.txt", limit=100)
    sandbox.write("a2.txt", "alpha\n")
    os.replace(sandbox.root / "a2.txt", sandbox.root / "a.txt")  # same bytes, another inode
    with pytest.raises(OperatorError) as info:
        ws.write("a.txt", b"x", expect=snap)
    assert info.value.code == codes.ERR_STALE_PREVIEW


def test_expected_state_without_identity_is_checked_by_hash(sandbox: Sandbox, ws) -> None:
    import hashlib

    built = Snapshot("a.txt", True, False, b"alpha\n", hashlib.sha256(b"alpha\n").hexdigest())
    ws.write("a.txt", b"beta\n", expect=built)
    assert (sandbox.root / "a.txt").read_bytes() == b"beta\n"


def test_change_between_temp_and_rename_is_caught(
    sandbox: Sandbox, ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The compare-and-swap runs again after the temp file is written, right before rename."""
    snap = ws.snapshot("a.txt", limit=100)
    real_fsync = os.fsync
    seen = []

    def fsync_then_edit(fd: int) -> None:
        real_fsync(fd)
        if not seen:
            seen.append(fd)
            (sandbox.root / "a.txt").write_text("late edit\n")

    monkeypatch.setattr(atomic_module.os, "fsync", fsync_then_edit)
    with pytest.raises(OperatorError) as info:
        ws.write("a.txt", b"x", expect=snap)
    assert info.value.code == codes.ERR_STALE_PREVIEW
    assert (sandbox.root / "a.txt").read_text() == "late edit\n"
    assert names(sandbox.root) == ["a.txt", "sub"]  # the temp file is gone


def test_disk_full_leaves_original_and_no_temp(
    sandbox: Sandbox, ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    snap = ws.snapshot("a.txt", limit=100)
    calls = []
    real_write = os.write

    def short_then_enospc(fd: int, data) -> int:
        calls.append(len(data))
        if len(calls) == 1:
            return real_write(fd, bytes(data[:3]))  # a short write, as on a nearly full disk
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic_module.os, "write", short_then_enospc)
    with pytest.raises(OperatorError) as info:
        ws.write("a.txt", b"0123456789", expect=snap)
    monkeypatch.undo()
    assert info.value.code == codes.ERR_IO
    assert info.value.message == "a.txt: No space left on device"
    assert len(calls) == 2  # the short write was continued, then failed
    assert (sandbox.root / "a.txt").read_text() == "alpha\n"
    assert names(sandbox.root) == ["a.txt", "sub"]


def test_unwritable_directory_is_an_io_error_not_an_in_place_write(
    sandbox: Sandbox, ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    snap = ws.snapshot("sub/b.txt", limit=100)
    real_open = os.open

    def no_temp_allowed(path, flags, *args, **kwargs):
        if isinstance(path, str) and path.startswith(TEMP_PREFIX):
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(atomic_module.os, "open", no_temp_allowed)
    with pytest.raises(OperatorError) as info:
        ws.write("sub/b.txt", b"x", expect=snap)
    monkeypatch.undo()
    assert info.value.code == codes.ERR_IO
    assert info.value.message == "sub/b.txt: Permission denied"
    assert (sandbox.root / "sub/b.txt").read_text() == "beta\n"


def test_directory_target_is_refused(sandbox: Sandbox, ws: Workspace) -> None:
    snap = ws.snapshot("sub", limit=100)
    with pytest.raises(OperatorError) as info:
        ws.write("sub", b"x", expect=snap)
    assert info.value.code == codes.ERR_NOT_A_FILE
    with pytest.raises(OperatorError) as info:
        ws.write("sub", b"x", expect=ABSENT)
    assert info.value.code == codes.ERR_STALE_PREVIEW
    assert (sandbox.root / "sub").is_dir()


def test_concurrent_writers_one_wins(sandbox: Sandbox, ws: Workspace) -> None:
    snap = ws.snapshot("a.txt", limit=100)
    outcomes: list[str] = []

    def writer(data: bytes) -> None:
        try:
            ws.write("a.txt", data, expect=snap)
            outcomes.append("ok")
        except OperatorError as err:
            outcomes.append(err.code)

    threads = [threading.Thread(target=writer, args=(f"w{i}\n".encode(),)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes.count("ok") == 1
    assert outcomes.count(codes.ERR_STALE_PREVIEW) == 7
    assert (sandbox.root / "a.txt").read_text().startswith("w")


# -- delete to the trash and back ----------------------------------------------------------


def test_move_out_and_back_in_file(sandbox: Sandbox, ws: Workspace, tmp_path: Path) -> None:
    trash = tmp_path / "trash" / "j1"
    trash.mkdir(parents=True)
    ws.move_out("sub/b.txt", trash, expect=ws.snapshot("sub/b.txt", limit=100))
    assert not (sandbox.root / "sub/b.txt").exists()
    assert (trash / "b.txt").read_text() == "beta\n"
    ws.move_in(trash / "b.txt", "sub/b.txt", expect=ws.snapshot("sub/b.txt", limit=100))
    assert (sandbox.root / "sub/b.txt").read_text() == "beta\n"
    assert names(trash) == []


def test_move_out_directory_and_restore_into_missing_parent(
    sandbox: Sandbox, ws: Workspace, tmp_path: Path
) -> None:
    sandbox.write("sub/deeper/c.txt", "gamma")
    trash = tmp_path / "trash"
    trash.mkdir()
    ws.move_out("sub", trash, expect=ws.snapshot("sub", limit=100))
    assert not (sandbox.root / "sub").exists()
    assert (trash / "sub/deeper/c.txt").read_text() == "gamma"
    ws.move_in(trash / "sub", "sub", expect=ws.snapshot("sub", limit=100))
    assert (sandbox.root / "sub/deeper/c.txt").read_text() == "gamma"


def test_move_out_refusals(sandbox: Sandbox, ws: Workspace, tmp_path: Path) -> None:
    trash = tmp_path / "trash"
    trash.mkdir()
    with pytest.raises(OperatorError) as info:
        ws.move_out("ghost.txt", trash, expect=ws.snapshot("ghost.txt", limit=10))
    assert info.value.code == codes.ERR_NOT_FOUND
    snap = ws.snapshot("a.txt", limit=100)
    (sandbox.root / "a.txt").write_text("changed\n")
    with pytest.raises(OperatorError) as info:
        ws.move_out("a.txt", trash, expect=snap)
    assert info.value.code == codes.ERR_STALE_PREVIEW
    assert (sandbox.root / "a.txt").exists() and names(trash) == []


def test_move_in_refuses_to_overwrite(sandbox: Sandbox, ws: Workspace, tmp_path: Path) -> None:
    trash = tmp_path / "trash"
    trash.mkdir()
    ws.move_out("a.txt", trash, expect=ws.snapshot("a.txt", limit=100))
    absent = ws.snapshot("a.txt", limit=100)
    sandbox.write("a.txt", "new work")
    with pytest.raises(OperatorError) as info:
        ws.move_in(trash / "a.txt", "a.txt", expect=absent)
    assert info.value.code == codes.ERR_STALE_PREVIEW
    assert (sandbox.root / "a.txt").read_text() == "new work"
    assert (trash / "a.txt").read_text() == "alpha\n"


def test_cross_device_move_copies_then_removes(
    sandbox: Sandbox, ws: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sandbox.write("sub/deeper/c.txt", "gamma")
    os.chmod(sandbox.root / "sub/deeper/c.txt", 0o640)
    (sandbox.root / "sub/link").symlink_to(sandbox.outside / "secret.txt")

    def exdev(*args, **kwargs):
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(moves_module.os, "rename", exdev)
    trash = tmp_path / "trash"
    trash.mkdir()
    ws.move_out("sub", trash, expect=ws.snapshot("sub", limit=100))
    assert not (sandbox.root / "sub").exists()
    assert (trash / "sub/deeper/c.txt").read_text() == "gamma"
    assert stat.S_IMODE((trash / "sub/deeper/c.txt").stat().st_mode) == 0o640
    assert os.readlink(trash / "sub/link") == str(sandbox.outside / "secret.txt")
    ws.move_in(trash / "sub", "sub", expect=ws.snapshot("sub", limit=100))
    assert (sandbox.root / "sub/b.txt").read_text() == "beta\n"
    assert (sandbox.root / "sub/link").is_symlink()
    assert names(trash) == []
    sandbox.assert_outside_untouched()


def test_temp_names_are_hidden_and_recognisable() -> None:
    name = atomic_module.temp_name()
    assert name.startswith(TEMP_PREFIX) and name.startswith(".") and name.endswith(".tmp")
    assert atomic_module.temp_name() != name


def test_missing_trash_never_deletes(sandbox: Sandbox, ws: Workspace, tmp_path: Path) -> None:
    with pytest.raises(OperatorError) as info:
        ws.move_out("a.txt", tmp_path / "no-trash", expect=ws.snapshot("a.txt", limit=100))
    assert info.value.code == codes.ERR_IO and "not deleted" in info.value.message
    assert (sandbox.root / "a.txt").read_text() == "alpha\n"


def test_undo_of_a_delete_whose_trash_item_is_gone(ws: Workspace, tmp_path: Path) -> None:
    absent = ws.snapshot("gone.txt", limit=10)
    for src in (tmp_path / "trash" / "gone.txt", tmp_path / "no-such-dir" / "gone.txt"):
        (tmp_path / "trash").mkdir(exist_ok=True)
        with pytest.raises(OperatorError) as info:
            ws.move_in(src, "gone.txt", expect=absent)
        assert info.value.code == codes.ERR_NOT_FOUND
        assert str(tmp_path) not in info.value.summary
