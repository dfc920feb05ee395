"""Reads: listing, stat, bounded reads (a 2 GB sparse file is refused by size), snapshots."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from jupyter_operator.protocol import OperatorError, codes
from jupyter_operator.workspace import FileTooLarge, Limits, Workspace
from jupyter_operator.workspace import jail as jail_module
from jupyter_operator.workspace.paths import TEMP_PREFIX

from .sandbox import Sandbox

TWO_GB = 2 * 1024**3


def test_list_dir_sorted_with_dirs_and_sizes(sandbox: Sandbox, ws: Workspace) -> None:
    sandbox.write("z.txt", "zz")
    sandbox.write(f"{TEMP_PREFIX}abc.tmp", "half-written")
    entries = ws.list_dir(".")
    assert [e.name for e in entries] == ["a.txt", "sub", "z.txt"]
    assert [e.is_dir for e in entries] == [False, True, False]
    assert entries[0].size == 6 and entries[2].size == 2
    assert [e.name for e in ws.list_dir("sub")] == ["b.txt"]


def test_list_dir_errors(sandbox: Sandbox, ws: Workspace) -> None:
    with pytest.raises(OperatorError) as info:
        ws.list_dir("missing")
    assert info.value.code == codes.ERR_NOT_FOUND and info.value.message == "missing does not exist"
    with pytest.raises(OperatorError) as info:
        ws.list_dir("a.txt")
    assert info.value.code == codes.ERR_NOT_A_DIRECTORY


def test_list_dir_cap_and_odd_names(sandbox: Sandbox) -> None:
    for i in range(5):
        sandbox.write(f"f{i}", "")
    (sandbox.root / "bad\nname").write_text("")
    with Workspace(sandbox.root, limits=Limits(max_list_entries=3)) as ws:
        assert [e.name for e in ws.list_dir(".")] == ["a.txt", "bad\\x0aname", "f0"]


def test_stat_file_dir_and_root(sandbox: Sandbox, ws: Workspace) -> None:
    info = ws.stat("a.txt")
    assert (info.size, info.is_file, info.is_dir) == (6, True, False)
    assert info.mtime_ms == pytest.approx(os.stat(sandbox.root / "a.txt").st_mtime * 1000, abs=1)
    assert ws.stat("sub").is_dir and ws.stat(".").is_dir
    with pytest.raises(OperatorError) as err:
        ws.stat("nope")
    assert err.value.code == codes.ERR_NOT_FOUND


def test_read_bytes_exact(sandbox: Sandbox, ws: Workspace) -> None:
    sandbox.write("crlf.txt", b"\xef\xbb\xbfa\r\nb")
    assert ws.read_bytes("crlf.txt", limit=100) == b"\xef\xbb\xbfa\r\nb"
    assert ws.read_bytes("sub\\b.txt", limit=100) == b"beta\n"
    assert ws.read_bytes("./sub/b.txt", limit=5) == b"beta\n"  # exactly at the limit


@pytest.mark.parametrize("path,code", [(".", codes.ERR_NOT_A_FILE), ("sub", codes.ERR_NOT_A_FILE),
                                       ("nope.txt", codes.ERR_NOT_FOUND),
                                       ("a.txt/x", codes.ERR_NOT_A_DIRECTORY)])  # fmt: skip
def test_read_bytes_errors(ws: Workspace, path: str, code: str) -> None:
    with pytest.raises(OperatorError) as info:
        ws.read_bytes(path, limit=100)
    assert info.value.code == code


def test_too_large_by_one_byte(sandbox: Sandbox, ws: Workspace) -> None:
    sandbox.write("big.txt", b"x" * 200_001)
    with pytest.raises(FileTooLarge) as info:
        ws.read_bytes("big.txt", limit=200_000)
    assert info.value.code == codes.ERR_FILE_TOO_LARGE and info.value.size == 200_001


def test_sparse_2gb_file_refused_by_size_without_reading(
    sandbox: Sandbox, ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = sandbox.root / "sparse.bin"
    with open(path, "wb") as handle:
        os.truncate(handle.fileno(), TWO_GB)
    reads: list[int] = []
    real_read = os.read

    def counting_read(fd: int, n: int) -> bytes:
        if os.fstat(fd).st_size == TWO_GB:  # os.read is patched process-wide: note ours only
            reads.append(n)
        return real_read(fd, n)

    monkeypatch.setattr(jail_module.os, "read", counting_read)
    for limit in (200_000, 2_000_000):
        with pytest.raises(FileTooLarge) as info:
            ws.read_bytes("sparse.bin", limit=limit)
        assert info.value.size == TWO_GB
    with pytest.raises(FileTooLarge):
        ws.snapshot("sparse.bin", limit=16 * 1024 * 1024)
    found = ws.search_tree(".", "x")
    assert found.files_skipped >= 1
    assert reads == []  # refused by fstat size alone, not one byte read


def test_file_growing_while_read_is_caught(
    sandbox: Sandbox, ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = sandbox.write("log.txt", b"x" * 10)
    real_fstat = os.fstat

    def fstat_then_grow(fd: int) -> os.stat_result:
        info = real_fstat(fd)
        with open(path, "ab") as handle:  # the log grows after fstat
            handle.write(b"y" * 100)
        return info

    monkeypatch.setattr(jail_module.os, "fstat", fstat_then_grow)
    with pytest.raises(FileTooLarge) as info:
        ws.read_bytes("log.txt", limit=50)
    assert info.value.size == 51  # it stopped at limit + 1 bytes


def test_snapshot_states(sandbox: Sandbox, ws: Workspace) -> None:
    snap = ws.snapshot("a.txt", limit=100)
    assert (snap.exists, snap.is_dir, snap.data, snap.path) == (True, False, b"alpha\n", "a.txt")
    assert snap.sha256 == hashlib.sha256(b"alpha\n").hexdigest()
    info = os.stat(sandbox.root / "a.txt")
    assert (snap.dev, snap.ino) == (info.st_dev, info.st_ino)
    missing = ws.snapshot("no/such/dir/file.txt", limit=100)
    assert (missing.exists, missing.data, missing.sha256) == (False, None, None)
    folder = ws.snapshot("sub", limit=100)
    assert folder.exists and folder.is_dir and folder.data is None


def test_snapshot_sha256_is_of_the_exact_bytes(sandbox: Sandbox, ws: Workspace) -> None:
    sandbox.write("x.bin", b"\r\n\xef\xbb\xbf\x00")
    snap = ws.snapshot("x.bin", limit=100)
    assert snap.sha256 == hashlib.sha256(b"\r\n\xef\xbb\xbf\x00").hexdigest()


def test_messages_never_show_host_paths(sandbox: Sandbox, ws: Workspace) -> None:
    for call in (
        lambda: ws.read_bytes("nope/x.txt", limit=1),
        lambda: ws.list_dir("a.txt"),
        lambda: ws.stat("nope"),
    ):
        with pytest.raises(OperatorError) as info:
            call()
        assert str(sandbox.root) not in info.value.summary
        assert "Error" not in info.value.message and "Traceback" not in info.value.message


def test_root_given_through_a_symlink_is_resolved_once(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (real / "f.txt").write_text("hi")
    (tmp_path / "alias").symlink_to(real, target_is_directory=True)
    with Workspace(tmp_path / "alias") as ws:
        assert ws.root == real
        assert ws.read_bytes("f.txt", limit=10) == b"hi"


def test_fs_read_and_search_refuse_sparse_2gb_through_the_engine(
    sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jupyter_operator.engine import Operator

    with open(sandbox.root / "sparse.bin", "wb") as handle:
        os.truncate(handle.fileno(), TWO_GB)
    reads: list[int] = []
    real_read = os.read

    def counting_read(fd: int, n: int) -> bytes:
        if os.fstat(fd).st_size == TWO_GB:
            reads.append(n)
        return real_read(fd, n)

    monkeypatch.setattr(jail_module.os, "read", counting_read)
    reply = (
        "OPERATOR_CMD\nversion: 1\nid: r1\naction: fs.read\npath: sparse.bin\nEND_OPERATOR_CMD\n"
        "OPERATOR_CMD\nversion: 1\nid: s1\naction: fs.search\npath: sparse.bin\nquery: x\n"
        "END_OPERATOR_CMD\n"
    )
    run = Operator(sandbox.root, journal_dir=tmp_path / "journal").run(reply)
    read_item, search_item = run.items
    assert not read_item.result.ok and not search_item.result.ok
    assert f"({TWO_GB} bytes)" in read_item.result.summary
    assert "ERR_FILE_TOO_LARGE" in search_item.result.summary
    assert reads == []


def test_short_reads_mid_file_are_continued(
    sandbox: Sandbox, ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Network and FUSE file systems may return short reads before the end: never truncate."""
    data = bytes(range(256)) * 40
    sandbox.write("net.bin", data)
    real_read = os.read
    monkeypatch.setattr(jail_module.os, "read", lambda fd, n: real_read(fd, min(n, 1000)))
    assert ws.read_bytes("net.bin", limit=100_000) == data
    assert ws.snapshot("net.bin", limit=100_000).data == data


def test_root_descriptor_released_on_close_and_when_dropped(sandbox: Sandbox) -> None:
    import gc

    def open_fds() -> int:
        return len(os.listdir("/proc/self/fd"))

    before = open_fds()
    for _ in range(20):
        with Workspace(sandbox.root) as ws:
            ws.list_dir(".")
            ws.read_bytes("a.txt", limit=10)
    for _ in range(20):
        Workspace(sandbox.root).search_tree(".", "alpha")  # never closed
    gc.collect()
    assert open_fds() <= before
