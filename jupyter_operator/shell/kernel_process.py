"""The process of a headless kernel: started here, like every process the package starts.

``execution/headless.py`` decides which kernel and talks to it; this module only makes its
private folder (the connection file and the ``ipc`` sockets), starts the command (inside the
bubblewrap sandbox when asked) and removes the folder again.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from . import sandbox


def private_folder() -> str:
    """A new folder only this user can enter, for one kernel's connection file and sockets."""
    return tempfile.mkdtemp(prefix="jupyter-operator-kernel-")


def remove_private_folder(folder: str) -> None:
    """Remove a folder made by :func:`private_folder` (never a workspace path)."""
    shutil.rmtree(folder, ignore_errors=True)


def start(argv: list[str], *, env: Mapping[str, str], root: Path, cwd: Path, sandboxed: bool,
          folder: str, read_only: Iterable[Path] = (),
          masks: sandbox.Masks = ((), ())) -> subprocess.Popen[bytes]:  # fmt: skip
    """Start a kernel command: in the sandbox (the workspace at ``sandbox.MOUNT``, ``folder``
    bound at its own path) when ``sandboxed``, else directly in ``cwd``."""
    if sandboxed:
        argv = sandbox.wrap(argv, root=root, cwd=cwd, read_only=read_only, masks=masks,
                            private=[Path(folder)])  # fmt: skip
    return subprocess.Popen(  # the kernel a person's approval starts
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(env),
        cwd=None if sandboxed else cwd,
        start_new_session=True,
        close_fds=True,
    )

