"""The attack table of the jail (security catalogue P, R, K): every escape is refused with a
code, nothing outside the workspace is read or changed, and a refusal never leaks content or an
absolute host path."""

from __future__ import annotations

import hashlib
import os
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from jupyter_operator.protocol import OperatorError, codes
from jupyter_operator.workspace import Snapshot, Workspace
from jupyter_operator.workspace import jail as jail_module

from .sandbox import Sandbox

ABSENT = Snapshot("x", False, False, None, None)
SECRETS = ("TOP SECRET", "INNER SECRET")


def refused(sandbox: Sandbox, call: Callable[[], object], *allowed: str) -> OperatorError:
    """Run ``call``; it must raise OperatorError with one of ``allowed`` codes and leak nothing."""
    with pytest.raises(OperatorError) as info:
        call()
    err = info.value
    assert err.code.startswith("ERR_")
    if allowed:
        assert err.code in allowed, err
    text = err.summary
    assert str(sandbox.root) not in text and str(sandbox.outside) not in text
    assert not any(s in text for s in SECRETS)
    sandbox.assert_outside_untouched()
    return err


def every_action(ws: Workspace, path: str, tmp: Path) -> dict[str, Callable[[], object]]:
    trash = tmp / "trash"
    trash.mkdir(exist_ok=True)
    return {
        "read": lambda: ws.read_bytes(path, limit=1000),
        "stat": lambda: ws.stat(path),
        "list": lambda: ws.list_dir(path),
        "snapshot": lambda: ws.snapshot(path, limit=1000),
        "search": lambda: ws.search_tree(path, "SECRET"),
        "write": lambda: ws.write(path, b"pwned\n", expect=ABSENT),
        "move_out": lambda: ws.move_out(path, trash, expect=ABSENT),
    }


LEXICAL = [
    "../outside/secret.txt",
    "sub/../../outside/secret.txt",
    "/etc/passwd",
    "//etc/passwd",
    "C:\\Windows\\win.ini",
    "\\\\host\\share\\x",
    "~/.bashrc",
    "a\0.txt",
    "a\nb.txt",
    "x" * 300,
    "a/" * 2100,
]


@pytest.mark.parametrize("path", LEXICAL)
def test_lexical_escapes_refused_for_every_action(
    sandbox: Sandbox, ws: Workspace, tmp_path: Path, path: str
) -> None:
    for call in every_action(ws, path, tmp_path).values():
        refused(sandbox, call, codes.ERR_PATH_ESCAPE)


def test_absolute_path_to_a_real_outside_file(sandbox: Sandbox, ws: Workspace, tmp_path) -> None:
    target = str(sandbox.outside / "secret.txt")
    for call in every_action(ws, target, tmp_path).values():
        refused(sandbox, call, codes.ERR_PATH_ESCAPE)


def test_symlinked_file_pointing_outside(sandbox: Sandbox, ws: Workspace, tmp_path) -> None:
    (sandbox.root / "link.txt").symlink_to(sandbox.outside / "secret.txt")
    for name, call in every_action(ws, "link.txt", tmp_path).items():
        if name == "list":
            refused(sandbox, call, codes.ERR_NOT_A_DIRECTORY, codes.ERR_PATH_ESCAPE)
        elif name in ("write", "move_out"):
            refused(sandbox, call, codes.ERR_STALE_PREVIEW, codes.ERR_PATH_ESCAPE)
        else:
            refused(sandbox, call, codes.ERR_PATH_ESCAPE)
    assert (sandbox.root / "link.txt").is_symlink()  # the link itself is left alone


def test_symlinked_parent_directory(sandbox: Sandbox, ws: Workspace, tmp_path) -> None:
    (sandbox.root / "dirlink").symlink_to(sandbox.outside / "dir", target_is_directory=True)
    for path in ("dirlink/inner.txt", "dirlink/new.txt", "dirlink"):
        for name, call in every_action(ws, path, tmp_path).items():
            if path == "dirlink" and name in ("write", "move_out"):
                refused(sandbox, call, codes.ERR_STALE_PREVIEW, codes.ERR_PATH_ESCAPE)
            elif path == "dirlink" and name == "list":
                refused(sandbox, call, codes.ERR_PATH_ESCAPE)
            else:
                refused(sandbox, call, codes.ERR_PATH_ESCAPE)
    assert not (sandbox.outside / "dir" / "new.txt").exists()


def test_symlink_inside_pointing_inside_is_not_followed_either(sandbox: Sandbox, ws) -> None:
    (sandbox.root / "alias").symlink_to(sandbox.root / "sub", target_is_directory=True)
    refused(sandbox, lambda: ws.read_bytes("alias/b.txt", limit=100), codes.ERR_PATH_ESCAPE)
    names = {e.name: e.is_dir for e in ws.list_dir(".")}
    assert names["alias"] is False


def test_dangling_symlink_is_not_created_through(sandbox: Sandbox, ws: Workspace) -> None:
    (sandbox.root / "new.txt").symlink_to(sandbox.outside / "created.txt")
    refused(sandbox, lambda: ws.write("new.txt", b"x", expect=ABSENT), codes.ERR_STALE_PREVIEW)
    refused(sandbox, lambda: ws.snapshot("new.txt", limit=10), codes.ERR_PATH_ESCAPE)
    assert not (sandbox.outside / "created.txt").exists()


def test_symlink_loops(sandbox: Sandbox, ws: Workspace) -> None:
    (sandbox.root / "loop_a").symlink_to("loop_b")
    (sandbox.root / "loop_b").symlink_to("loop_a")
    (sandbox.root / "self").symlink_to("self")
    for path in ("loop_a", "loop_a/x", "self/x"):
        refused(sandbox, lambda p=path: ws.read_bytes(p, limit=10), codes.ERR_PATH_ESCAPE)
    found = ws.search_tree(".", "alpha")
    assert [m[0] for m in found.matches] == ["a.txt"]


def test_hard_link_to_an_outside_file_is_never_changed(sandbox: Sandbox, ws, tmp_path) -> None:
    os.link(sandbox.outside / "secret.txt", sandbox.root / "hl.txt")
    sandbox.rebaseline()  # the new link changed the inode's link count; baseline after it
    refused(sandbox, lambda: ws.snapshot("hl.txt", limit=100), codes.ERR_PATH_ESCAPE)
    real = os.stat(sandbox.root / "hl.txt")
    claimed = Snapshot(
        "hl.txt", True, False, b"TOP SECRET\n",
        hashlib.sha256(b"TOP SECRET\n").hexdigest(), real.st_dev, real.st_ino,
    )  # fmt: skip
    refused(sandbox, lambda: ws.write("hl.txt", b"pwned", expect=claimed), codes.ERR_PATH_ESCAPE)
    assert (sandbox.outside / "secret.txt").read_text() == "TOP SECRET\n"


def test_fifo_never_blocks(sandbox: Sandbox, ws: Workspace) -> None:
    os.mkfifo(sandbox.root / "pipe")
    start = time.monotonic()
    refused(sandbox, lambda: ws.read_bytes("pipe", limit=10), codes.ERR_NOT_A_FILE)
    refused(sandbox, lambda: ws.snapshot("pipe", limit=10), codes.ERR_NOT_A_FILE)
    found = ws.search_tree(".", "alpha")
    assert found.files_skipped >= 1 and [m[0] for m in found.matches] == ["a.txt"]
    assert time.monotonic() - start < 5


def test_socket_is_not_a_file(sandbox: Sandbox, ws: Workspace, tmp_path: Path) -> None:
    cwd = os.getcwd()
    os.chdir(sandbox.root)  # AF_UNIX names are limited to ~100 bytes: bind a relative name
    try:
        server = socket.socket(socket.AF_UNIX)
        server.bind("sock")
    finally:
        os.chdir(cwd)
    try:
        refused(sandbox, lambda: ws.read_bytes("sock", limit=10), codes.ERR_NOT_A_FILE)
    finally:
        server.close()


@pytest.mark.parametrize("path", [".git/config", ".GIT/config", ".git/hooks/new", "sub/.git/x"])
def test_protected_paths_refused_even_when_missing(
    sandbox: Sandbox, ws: Workspace, tmp_path: Path, path: str
) -> None:
    sandbox.write(".git/config", "[core]\n\tfsmonitor = evil\n")
    state = (sandbox.root / ".git" / "config").read_bytes()
    for call in every_action(ws, path, tmp_path).values():
        refused(sandbox, call, codes.ERR_PROTECTED_PATH)
    assert (sandbox.root / ".git" / "config").read_bytes() == state
    assert not (sandbox.root / ".git" / "hooks").exists()
    assert ws.is_protected(path)


def test_root_cannot_be_written_or_moved(sandbox: Sandbox, ws: Workspace, tmp_path) -> None:
    trash = tmp_path / "trash"
    trash.mkdir()
    root_snap = ws.snapshot(".", limit=10)
    assert root_snap.is_dir
    refused(sandbox, lambda: ws.write(".", b"x", expect=ABSENT), codes.ERR_PROTECTED_PATH)
    refused(sandbox, lambda: ws.move_out(".", trash, expect=root_snap), codes.ERR_PROTECTED_PATH)
    refused(sandbox, lambda: ws.move_out("./", trash, expect=root_snap), codes.ERR_PROTECTED_PATH)
    assert (sandbox.root / "a.txt").exists()


def test_file_swapped_for_a_symlink_between_check_and_open(
    sandbox: Sandbox, ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lstat sees a regular file; the open then meets a symlink: refused, not followed."""
    target = sandbox.root / "swap.txt"
    target.write_text("safe\n")
    real_open = os.open

    def swapping_open(path, flags, *args, **kwargs):
        if path == "swap.txt":
            target.unlink()
            target.symlink_to(sandbox.outside / "secret.txt")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(jail_module.os, "open", swapping_open)
    refused(sandbox, lambda: ws.read_bytes("swap.txt", limit=100), codes.ERR_PATH_ESCAPE)


def test_parent_swapped_for_a_symlink_mid_walk(
    sandbox: Sandbox, ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_open = os.open
    moved = sandbox.root.parent / "moved-away"

    def swapping_open(path, flags, *args, **kwargs):
        if path == "sub" and not moved.exists():
            (sandbox.root / "sub").rename(moved)
            (sandbox.root / "sub").symlink_to(sandbox.outside / "dir", target_is_directory=True)
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(jail_module.os, "open", swapping_open)
    refused(sandbox, lambda: ws.read_bytes("sub/inner.txt", limit=100), codes.ERR_PATH_ESCAPE)
    refused(sandbox, lambda: ws.write("sub/new.txt", b"x", expect=ABSENT), codes.ERR_PATH_ESCAPE)
    assert not (sandbox.outside / "dir" / "new.txt").exists()


def test_racing_symlink_swaps_never_leak(sandbox: Sandbox, ws: Workspace) -> None:
    """A thread keeps swapping a directory and a file for symlinks to the outside (P22)."""
    real_dir = sandbox.root / "real"
    real_dir.mkdir()
    (real_dir / "inner.txt").write_text("safe inner\n")
    (sandbox.root / "f.txt").write_text("safe file\n")
    stop = threading.Event()

    def swapper() -> None:
        tmp_dir = sandbox.root / "real-tmp"
        tmp_file = sandbox.root / "f-tmp"
        while not stop.is_set():
            try:
                real_dir.rename(tmp_dir)
                real_dir.symlink_to(sandbox.outside / "dir", target_is_directory=True)
                real_dir.unlink()
                tmp_dir.rename(real_dir)
                (sandbox.root / "f.txt").rename(tmp_file)
                (sandbox.root / "f.txt").symlink_to(sandbox.outside / "secret.txt")
                (sandbox.root / "f.txt").unlink()
                tmp_file.rename(sandbox.root / "f.txt")
            except OSError:
                pass

    thread = threading.Thread(target=swapper)
    thread.start()
    good = refusals = 0
    start = time.monotonic()
    try:
        # At least 1.5 s, and on until both outcomes were seen (a loaded machine may starve one).
        while time.monotonic() - start < 1.5 or (
            (good == 0 or refusals == 0) and time.monotonic() - start < 20
        ):
            for path in ("real/inner.txt", "f.txt"):
                try:
                    data = ws.read_bytes(path, limit=100)
                except OperatorError as err:
                    assert err.code in (
                        codes.ERR_PATH_ESCAPE, codes.ERR_NOT_FOUND, codes.ERR_IO,
                    ), err  # fmt: skip
                    refusals += 1
                else:
                    assert data in (b"safe inner\n", b"safe file\n")
                    good += 1
            found = ws.search_tree(".", "SECRET")
            assert found.matches == []
    finally:
        stop.set()
        thread.join()
    assert good > 0 and refusals > 0
    sandbox.assert_outside_untouched()


def test_target_swapped_for_a_symlink_right_before_the_rename(
    sandbox: Sandbox, ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last window of a write (after the compare-and-swap, before ``os.replace``): a link
    swapped in there is replaced itself; its outside target is never written."""
    from jupyter_operator.workspace import atomic as atomic_module

    snap = ws.snapshot("a.txt", limit=100)
    real_replace = os.replace

    def swap_then_replace(src, dst, **kwargs):
        (sandbox.root / "a.txt").unlink()
        (sandbox.root / "a.txt").symlink_to(sandbox.outside / "secret.txt")
        return real_replace(src, dst, **kwargs)

    monkeypatch.setattr(atomic_module.os, "replace", swap_then_replace)
    ws.write("a.txt", b"new\n", expect=snap)
    monkeypatch.undo()
    sandbox.assert_outside_untouched()
    assert not (sandbox.root / "a.txt").is_symlink()
    assert (sandbox.root / "a.txt").read_bytes() == b"new\n"
