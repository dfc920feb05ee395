"""A pids cgroup per command, where the host lets us make one (root with cgroup v1 ``pids``).

It caps how many processes a command can have at once (a fork bomb stops there, whoever runs
it: ``ulimit -u`` does not apply to root) and lets us find and kill every process the command
left behind, even ones that left its process group. Where no cgroup can be made, commands still
run; ``ulimit -u`` (non-root users), the timeout and the sandbox's PID namespace remain.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

BASES = (Path("/sys/fs/cgroup/pids"),)


class PidsGroup:
    """One cgroup: ``procs`` lists its processes; a single-threaded process joins it by writing
    ``0`` (itself) into ``tasks``.

    ``tasks`` and not ``cgroup.procs``: moving a whole thread group takes the kernel's global
    threadgroup lock, whose first taking after a quiet spell waits for an RCU grace period (about
    12 ms a command here); moving the calling thread alone skips that lock, and for a process of
    one thread (the joining shell, before it forks or execs) it moves the whole process.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.procs = path / "cgroup.procs"
        self.join = path / "tasks"

    def pids(self) -> list[int]:
        with contextlib.suppress(OSError), open(self.procs, encoding="ascii") as fh:
            return [int(line) for line in fh if line.strip()]
        return []

    def kill_all(self) -> None:
        """SIGKILL every process still in the group, until it is empty (bounded)."""
        pause = 0.001  # most groups empty within a few ms: wait short, then longer
        for _ in range(60):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(pause)
            pause = min(pause * 2, 0.02)

    def remove(self) -> None:
        """Kill every process left in the group, then remove the group (bounded waits)."""
        self.kill_all()
        for _ in range(50):
            try:
                self.path.rmdir()
                return
            except OSError:
                time.sleep(0.02)


def _make(base: Path, max_pids: int) -> PidsGroup | None:
    if not (base / "cgroup.procs").exists():
        return None
    path = base / f"jupyter-operator-{uuid.uuid4().hex[:12]}"
    try:
        path.mkdir()
    except OSError:
        return None
    try:
        with open(path / "pids.max", "w", encoding="ascii") as fh:
            fh.write(str(max_pids))
    except OSError:
        with contextlib.suppress(OSError):
            path.rmdir()
        return None
    return PidsGroup(path)


def make_group(max_pids: int) -> PidsGroup | None:
    """A fresh pids cgroup capped at ``max_pids`` (None where the host allows none); the caller
    removes it (:meth:`PidsGroup.remove`) once its processes are done."""
    for base in BASES:
        group = _make(base, max_pids)
        if group is not None:
            return group
    return None


@contextlib.contextmanager
def pids_group(max_pids: int) -> Iterator[PidsGroup | None]:
    """A fresh pids cgroup capped at ``max_pids`` (None where the host allows none).

    On exit every process left in it is killed and the cgroup removed.
    """
    group = make_group(max_pids)
    try:
        yield group
    finally:
        if group is not None:
            group.remove()
