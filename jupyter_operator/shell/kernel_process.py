"""The process of a headless kernel: started here, like every process the package starts.

``execution/headless.py`` decides which kernel and talks to it; this module only makes its
private folder (the connection file and the ``ipc`` sockets), starts the command (inside the
bubblewrap sandbox when asked) and removes the folder again.

A kernel gets the process limit of a shell command (``Limits.max_processes``): a pids cgroup
for its whole life where the host lets one be made, and ``ulimit -u`` (non-root users), so a
cell that forks without end stops there.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from . import sandbox
from .cgroup import PidsGroup, make_group
from .command_runner import JOIN, Limits

#: Sets the kernel's process limit (``$0``) and no core dumps, then becomes the kernel.
LIMITED = 'ulimit -u "$0" 2>/dev/null; ulimit -c 0 2>/dev/null; exec "$@"'


def private_folder() -> str:
    """A new folder only this user can enter, for one kernel's connection file and sockets."""
    return tempfile.mkdtemp(prefix="jupyter-operator-kernel-")


def remove_private_folder(folder: str) -> None:
    """Remove a folder made by :func:`private_folder` (never a workspace path)."""
    shutil.rmtree(folder, ignore_errors=True)


def start(argv: list[str], *, env: Mapping[str, str], root: Path, cwd: Path, sandboxed: bool,
          folder: str, read_only: Iterable[Path] = (), masks: sandbox.Masks = ((), ()),
          max_processes: int = Limits.max_processes,
          ) -> tuple[subprocess.Popen[bytes], PidsGroup | None]:  # fmt: skip
    """Start a kernel command: in the sandbox (the workspace at ``sandbox.MOUNT``, ``folder``
    bound at its own path) when ``sandboxed``, else directly in ``cwd``; limited to
    ``max_processes`` at once. Returns the process and its pids cgroup (None where the host
    allows none), which :func:`stop_group` removes once the kernel is gone."""
    argv = ["/bin/sh", "-c", LIMITED, str(max_processes), *argv]
    if sandboxed:
        argv = sandbox.wrap(argv, root=root, cwd=cwd, read_only=read_only, masks=masks,
                            private=[Path(folder)])  # fmt: skip
    group = make_group(max_processes)
    if group is not None:  # joined before anything else starts: every child is counted
        argv = ["/bin/sh", "-c", JOIN, str(group.join), *argv]
    try:
        proc = subprocess.Popen(  # the kernel a person's approval starts
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=dict(env),
            cwd=None if sandboxed else cwd,
            start_new_session=True,
            close_fds=True,
        )
    except BaseException:
        stop_group(group)
        raise
    return proc, group


def exit_fd(proc: subprocess.Popen[bytes]) -> int | None:
    """A descriptor that becomes readable once ``proc`` has ended (its pidfd; the caller
    closes it), or None where there is none: no pidfd on this host, or ``proc`` was reaped
    already (its pid may be another process's now)."""
    if proc.returncode is not None:
        return None
    try:
        return os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        return None


def stop_group(group: PidsGroup | None) -> None:
    """Kill what is left of a kernel's processes and remove its cgroup (None: nothing to do)."""
    if group is not None:
        group.remove()
