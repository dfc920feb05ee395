"""The bubblewrap sandbox: the workspace is the only writable path, no network by default.

``bwrap`` gets a new mount, PID, IPC, UTS and network namespace (``--unshare-all``; the network
comes back only with ``network=True``). The system folders and the Python installations the host
names are mounted read-only, ``/tmp`` is an empty tmpfs, the workspace root is bound read-write
at :data:`MOUNT` (never at its host path, so ``pwd`` or an error message cannot show the model
where the workspace lives on the host), and ``--die-with-parent`` plus the PID namespace mean
killing ``bwrap`` ends every process the command started.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path

#: Where the workspace root appears inside the sandbox.
MOUNT = "/workspace"

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")


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
    argv: list[str], *, root: Path, cwd: Path, network: bool = False, read_only: Iterable[Path] = ()
) -> list[str]:
    """``argv`` prefixed by the ``bwrap`` invocation (call only when :func:`available`)."""
    program = bwrap()
    assert program is not None, "bubblewrap is not available"
    args = [program, "--die-with-parent", "--new-session", "--unshare-all"]
    if network:
        args.append("--share-net")
    for path in SYSTEM_DIRS:
        args += _mount(path)
    for extra in sorted({str(p) for p in read_only}):
        if os.path.isdir(extra) and not any(extra.startswith(d + "/") for d in SYSTEM_DIRS):
            args += ["--ro-bind", extra, extra]
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    inside = Path(MOUNT, cwd.relative_to(root))  # cwd is already resolved inside root
    args += ["--bind", str(root), MOUNT, "--chdir", str(inside)]
    return [*args, "--", *argv]
