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
import tempfile
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
def _probe() -> tuple[str | None, str | None]:
    """``(program, None)`` when a command starts in the sandbox as :func:`wrap` builds it (a
    scratch folder as the workspace), else ``(None, why not)``."""
    found = shutil.which("bwrap")
    if not found:
        return None, "bubblewrap (bwrap) is not installed"
    with tempfile.TemporaryDirectory(prefix="jupyter-operator-probe-") as scratch:
        folder = Path(scratch)
        argv = _wrap(found, ["true"], root=folder, cwd=folder, network=False,
                     read_only=python_homes(), masks=((), ()), private=())  # fmt: skip
        try:
            done = subprocess.run(argv, capture_output=True, timeout=10, check=False)
        except (OSError, subprocess.SubprocessError) as exc:
            return None, f"bwrap did not start: {exc}"
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip()[:300] or f"exit {done.returncode}"
        return None, f"bwrap cannot start the sandbox here: {said}"
    return found, None


def bwrap() -> str | None:
    """The ``bwrap`` program when the sandbox starts on this machine, else None."""
    return _probe()[0]


def available() -> bool:
    """True when code runs sandboxed here: shell commands and headless kernels start inside
    the bubblewrap sandbox (bubblewrap is installed and the sandbox really starts).

    The engine asks a person for every run of code where this is False, whatever the rules
    say; a harness can refuse to run unattended.
    """
    return bwrap() is not None


def unavailable_reason() -> str | None:
    """Why code cannot run sandboxed here (None when :func:`available`)."""
    if available():
        return None
    return _probe()[1] or "the bubblewrap sandbox is not available"


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
    return _wrap(program, argv, root=root, cwd=cwd, network=network, read_only=read_only,
                 masks=masks, private=private)


def _wrap(program: str, argv: list[str], *, root: Path, cwd: Path, network: bool,
          read_only: Iterable[Path], masks: Masks,
          private: Iterable[Path]) -> list[str]:  # fmt: skip
    args = [program, "--die-with-parent", "--new-session", "--unshare-all"]
    if network:
        args.append("--share-net")
    # /dev and /tmp first: a later bind (a Python installation under /tmp, an eval run's task
    # folder under /dev/shm, bound at its own path) is mounted over them, not hidden by them.
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
    protected = sorted(protected)  # a folder before what lies below it: no bind hides another
    # The folders above a read-only or hidden path are bound onto themselves: a mount point
    # cannot be renamed or removed, so no command moves the path away and makes a writable one
    # in its place (the host's Python runs from that place, git from a .git), nor carries a
    # notebook of its author's away.
    covered = [*protected, *(rel for rel, _is_folder in hidden)]
    for folder in sorted({"/".join(rel.split("/")[:depth]) for rel in covered
                          for depth in range(1, rel.count("/") + 1)}):  # fmt: skip
        args += ["--bind", str(root / folder), f"{MOUNT}/{folder}"]
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
