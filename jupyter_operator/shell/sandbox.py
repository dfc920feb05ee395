"""The bubblewrap sandbox: the workspace is the only writable path, no network by default.

``bwrap`` gets a new mount, PID, IPC, UTS and network namespace (``--unshare-all``; the network
comes back only with ``network=True``). ``/tmp`` is an empty tmpfs, then the system folders and
the Python installations the host names are mounted read-only (over it, so one under ``/tmp``
stays visible), and the workspace root is bound read-write at :data:`MOUNT`, with its protected
paths read-only and its secrets hidden (``masks``). It is never bound at its host path, so
``pwd`` or an error message cannot show the model where the workspace lives on the host, and
``--die-with-parent`` plus the PID namespace mean killing ``bwrap`` ends every process the
command started.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

#: Where the workspace root appears inside the sandbox.
MOUNT = "/workspace"

#: Paths inside the workspace to bind read-only, and to hide (with whether each is a folder).
Masks = tuple[Iterable[str], Iterable[tuple[str, bool]]]

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")


def python_homes() -> set[Path]:
    """This interpreter's installation folders (a virtual environment and its base): bound
    read-only so ``python`` in a sandboxed command or kernel is the host's own."""
    return {Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix)}


@functools.lru_cache(maxsize=1)
def bwrap() -> str | None:
    """The ``bwrap`` program when it exists and can create namespaces here, else None."""
    found = shutil.which("bwrap")
    if not found:
        return None
    probe = [found, "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "true"]
    try:
        ok = subprocess.run(probe, capture_output=True, timeout=10, check=False).returncode == 0
    except (OSError, subprocess.SubprocessError):
        ok = False
    return found if ok else None


def available() -> bool:
    """True when commands can run inside the bubblewrap sandbox on this machine."""
    return bwrap() is not None


def _mount(path: str) -> list[str]:
    if os.path.islink(path):  # /bin -> usr/bin on merged-/usr systems
        return ["--symlink", os.readlink(path), path]
    if os.path.isdir(path):
        return ["--ro-bind", path, path]
    return []


def wrap(
    argv: list[str],
    *,
    root: Path,
    cwd: Path,
    network: bool = False,
    read_only: Iterable[Path] = (),
    masks: Masks = ((), ()),
    private: Iterable[Path] = (),
) -> list[str]:
    """``argv`` prefixed by the ``bwrap`` invocation (call only when :func:`available`).

    ``private`` folders are bound read-write at their own path (a headless kernel's socket
    folder: its channels are ``ipc`` sockets there, as there is no network to share).

    ``masks`` covers paths inside the workspace (relative, ``/``-joined): the first are bound
    read-only over the writable workspace (protected paths such as ``.git``), the second,
    ``(path, is_folder)``, are hidden behind an empty read-only folder or ``/dev/null``
    (credential stores, Jupyter's runtime folder).
    """
    program = bwrap()
    assert program is not None, "bubblewrap is not available"
    args = [program, "--die-with-parent", "--new-session", "--unshare-all"]
    if network:
        args.append("--share-net")
    # /tmp first: a later bind (a Python installation under /tmp) is mounted over it, not
    # hidden by it.
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    for path in SYSTEM_DIRS:
        args += _mount(path)
    for extra in sorted({str(p) for p in read_only}):
        if os.path.isdir(extra) and not any(extra.startswith(d + "/") for d in SYSTEM_DIRS):
            args += ["--ro-bind", extra, extra]
    for folder in private:
        args += ["--bind", str(folder), str(folder)]
    args += ["--bind", str(root), MOUNT]
    protected, hidden = masks
    for rel in protected:
        args += ["--ro-bind", str(root / rel), f"{MOUNT}/{rel}"]
    for rel, is_folder in hidden:
        inside = f"{MOUNT}/{rel}"
        if is_folder:
            args += ["--tmpfs", inside, "--remount-ro", inside]
        else:
            args += ["--ro-bind", "/dev/null", inside]
    inside_cwd = Path(MOUNT, cwd.relative_to(root))  # cwd is already resolved inside root
    args += ["--chdir", str(inside_cwd)]
    return [*args, "--", *argv]
