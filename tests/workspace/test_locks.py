"""The compare-and-swap holds across processes and overlapping workspaces; so does the journal.

Real processes hammer one file, each reading it and appending a line under the preview check.
Every write either lands or is reported ``ERR_STALE_PREVIEW``; no applied line is ever lost.
The rename is slowed down (inside the child processes only) to widen the window in which a
check-then-rename without a cross-process lock loses updates.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from pathlib import Path

import pytest

from jupyter_operator.protocol import OperatorError, codes
from jupyter_operator.workspace import Journal, Workspace
from jupyter_operator.workspace import atomic as atomic_module
from jupyter_operator.workspace.journal import HistoryEntry
from jupyter_operator.workspace.locks import STRIPES, FileLocks

ROUNDS = 30
_CTX = multiprocessing.get_context("fork")


def _slow_renames() -> None:
    real = os.replace

    def slow(*args: object, **kwargs: object) -> None:
        time.sleep(0.002)
        real(*args, **kwargs)  # type: ignore[arg-type]

    atomic_module.os.replace = slow  # this child's os module only (a forked process)


def _hammer(root: str, journal: str, path: str, tag: str, out) -> None:
    _slow_renames()
    applied, stale, other = [], 0, []
    with Workspace(root, journal_dir=journal) as ws:
        for i in range(ROUNDS):
            snap = ws.snapshot(path, limit=1 << 20)
            line = f"{tag}-{i}\n".encode()
            try:
                ws.write(path, (snap.data or b"") + line, expect=snap)
                applied.append(line.decode().strip())
            except OperatorError as exc:
                if exc.code == codes.ERR_STALE_PREVIEW:
                    stale += 1
                else:
                    other.append(exc.code)
    out.put((applied, stale, other))


def _run(workers: list[tuple[str, str]], journal: Path) -> tuple[list[str], int, list[str]]:
    out = _CTX.Queue()
    procs = [
        _CTX.Process(target=_hammer, args=(root, str(journal), path, f"p{n}", out))
        for n, (root, path) in enumerate(workers)
    ]
    for proc in procs:
        proc.start()
    results = [out.get(timeout=300) for _ in procs]
    for proc in procs:
        proc.join(timeout=60)
        assert proc.exitcode == 0
    applied = [line for result in results for line in result[0]]
    return applied, sum(r[1] for r in results), [c for r in results for c in r[2]]


def test_processes_on_one_file_lose_no_update(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "f.txt").write_bytes(b"")
    applied, stale, other = _run([(str(root), "f.txt")] * 4, tmp_path / "journal")
    assert other == []
    lines = (root / "f.txt").read_text().splitlines()
    assert sorted(lines) == sorted(applied)  # every applied write is there, exactly once
    assert len(applied) + stale == 4 * ROUNDS and applied


def test_overlapping_workspaces_share_the_lock(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "proj").mkdir(parents=True)
    (home / "proj" / "f.txt").write_bytes(b"")
    workers = [(str(home), "proj/f.txt"), (str(home / "proj"), "f.txt")] * 2
    applied, stale, other = _run(workers, tmp_path / "journal")
    assert other == []
    lines = (home / "proj" / "f.txt").read_text().splitlines()
    assert sorted(lines) == sorted(applied)
    assert len(applied) + stale == 4 * ROUNDS


def _append(root: str, journal: str, count: int, out) -> None:
    j = Journal(Path(root), Path(journal))
    ids = []
    for _ in range(count):
        entry_id = j.allocate_id()
        j.record(HistoryEntry(entry_id, time.time(), "c", "fs.write", "a.txt", "create",
                              None, "0" * 64))  # fmt: skip
        ids.append(entry_id)
    out.put(ids)


def test_the_journal_takes_appends_from_many_processes(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    out = _CTX.Queue()
    procs = [_CTX.Process(target=_append, args=(str(root), str(tmp_path / "j"), 40, out))
             for _ in range(4)]  # fmt: skip
    for proc in procs:
        proc.start()
    ids = [i for _ in procs for i in out.get(timeout=300)]
    for proc in procs:
        proc.join(timeout=60)
    assert sorted(ids, key=lambda i: int(i[1:])) == [f"j{n}" for n in range(1, 161)]
    j = Journal(root, tmp_path / "j")
    assert sorted(e.entry_id for e in j.entries()) == sorted(ids)
    j.close()


def test_lock_keys_follow_the_real_file(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "e").mkdir()
    locks = FileLocks(tmp_path)
    one = os.open(tmp_path / "d", os.O_RDONLY)
    two = os.open(tmp_path / "d", os.O_RDONLY)  # another descriptor (another root) same folder
    other = os.open(tmp_path / "e", os.O_RDONLY)
    try:
        assert FileLocks.key(one, "F.txt") == FileLocks.key(two, "f.txt")
        with locks.hold(one, "f.txt"):
            pass
        assert len(list((tmp_path / "locks").iterdir())) == 1
        # Other names and folders spread over the stripes, never past them: the folder stays
        # bounded however many files are changed.
        names = [f"f{n}.txt" for n in range(4 * STRIPES)]
        keys = {FileLocks.key(fd, name) for fd in (one, other) for name in names}
        assert STRIPES * 0.9 < len(keys) <= STRIPES
        # A lock file is made on its first use, and only the held stripes have one.
        for name in names[:50]:
            with locks.hold(other, name):
                pass
        held = {FileLocks.key(other, name) for name in names[:50]} | {FileLocks.key(one, "f.txt")}
        assert {path.name for path in (tmp_path / "locks").iterdir()} == held
    finally:
        os.close(one)
        os.close(two)
        os.close(other)
        locks.close()


def test_a_lock_shared_by_two_files_keeps_each_writer_waiting_only_for_the_other(
    tmp_path: Path,
) -> None:
    """Two files whose locks fall on one lock file: a holder of one makes a writer of the other
    wait (a false sharing, not a lost lock), and it goes on once released."""
    (tmp_path / "d").mkdir()
    locks = FileLocks(tmp_path)
    fd = os.open(tmp_path / "d", os.O_RDONLY)
    try:
        first = "a.txt"
        second = next(name for name in (f"b{n}.txt" for n in range(100 * STRIPES))
                      if FileLocks.key(fd, name) == FileLocks.key(fd, first))  # fmt: skip
        entered = threading.Event()
        with locks.hold(fd, first):
            waiter = threading.Thread(target=_hold_then_set, args=(locks, fd, second, entered))
            waiter.start()
            assert not entered.wait(0.5)  # blocked on the shared lock file
        assert entered.wait(10)
        waiter.join(10)
    finally:
        os.close(fd)
        locks.close()


def _hold_then_set(locks: FileLocks, fd: int, name: str, entered: threading.Event) -> None:
    with locks.hold(fd, name):
        entered.set()


@pytest.mark.parametrize("held", [True, False])
def test_a_writer_waits_for_the_lock_holder(tmp_path: Path, held: bool) -> None:
    """While another process holds the file's lock, the rename does not happen."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "f.txt").write_bytes(b"old")
    (tmp_path / "journal").mkdir()
    ready, release, done = _CTX.Event(), _CTX.Event(), _CTX.Event()

    def holder() -> None:
        locks = FileLocks(tmp_path / "journal")
        fd = os.open(root, os.O_RDONLY)
        with locks.hold(fd, "f.txt"):
            ready.set()
            release.wait(60)

    proc = _CTX.Process(target=holder)
    if held:
        proc.start()
        assert ready.wait(60)

    def writer() -> None:
        with Workspace(root, journal_dir=tmp_path / "journal") as ws:
            ws.write("f.txt", b"new", expect=ws.snapshot("f.txt", limit=10))
        done.set()

    proc2 = _CTX.Process(target=writer)
    proc2.start()
    if held:
        assert not done.wait(1.0)  # blocked on the lock (a wait, not a timing assertion)
        assert (root / "f.txt").read_bytes() == b"old"
        release.set()
        proc.join(60)
    proc2.join(60)
    assert done.is_set() and (root / "f.txt").read_bytes() == b"new"



def test_a_read_racing_another_writers_rename_sees_one_file(tmp_path: Path) -> None:
    """A snapshot taken while another process renames a new copy into place reads one whole
    file or the other; it used to fail with ERR_IO "changed while it was being opened"."""
    import threading

    root = tmp_path / "ws"
    root.mkdir()
    (root / "f.txt").write_bytes(b"a" * 1000)
    stop = threading.Event()

    def rename_loop() -> None:
        n = 0
        while not stop.is_set():
            n += 1
            (root / f".tmp{n}").write_bytes(bytes([97 + n % 2]) * 1000)
            os.replace(root / f".tmp{n}", root / "f.txt")

    writer = threading.Thread(target=rename_loop)
    writer.start()
    try:
        with Workspace(root, journal_dir=tmp_path / "journal") as ws:
            for _ in range(2000):
                snap = ws.snapshot("f.txt", limit=1 << 20)
                assert snap.data in (b"a" * 1000, b"b" * 1000)
    finally:
        stop.set()
        writer.join()
