"""The one write path (security rule D4): temp file, fsync, compare-and-swap, rename.

There is no in-place write anywhere in the project. A killed process leaves either the old or
the new file, never a mix; at worst a hidden temp file named ``.~operator-<random>.tmp`` stays
behind in the target directory (listing and search hide those names).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat as st
from collections.abc import Callable
from contextlib import AbstractContextManager

from jupyter_operator.protocol import OperatorError, codes

from .errors import os_error
from .jail import close_quietly
from .paths import TEMP_PREFIX, display_path

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_TEMP = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC


def temp_name() -> str:
    """A fresh, random, hidden and recognisable temp file name."""
    return f"{TEMP_PREFIX}{secrets.token_hex(8)}.tmp"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view[: 1 << 24])  # a short write (disk nearly full) just loops
        view = view[n:]


def write_replace(
    parent_fd: int,
    comps: tuple[str, ...],
    data: bytes,
    current: os.stat_result | None,
    check: Callable[[], None],
    guard: Callable[[], AbstractContextManager[object]] = contextlib.nullcontext,
) -> None:
    """Atomically make ``comps[-1]`` in ``parent_fd`` hold exactly ``data``.

    ``current`` is the ``lstat`` of the target (None to create). ``check`` is called after the
    temp file is complete and synced, right before the rename, and raises to abort (the
    compare-and-swap against the previewed state). ``guard()`` is held around that check and the
    rename only (the cross-process file lock), not while the bytes are written. The temp file is
    removed on every failure and the target is left untouched.
    """
    rel = display_path(comps)
    name = comps[-1]
    tmp = ""
    fd = -1
    try:
        for _ in range(5):
            tmp = temp_name()
            try:
                # New files get 0o666 & ~umask from the OS; existing ones get their mode back.
                fd = os.open(tmp, _O_TEMP, 0o600 if current else 0o666, dir_fd=parent_fd)
                break
            except FileExistsError:
                tmp = ""
        if fd < 0:
            raise OperatorError(codes.ERR_IO, f"{rel}: could not create a temporary file")
        _write_all(fd, data)
        os.fsync(fd)
        if current is not None:
            os.fchmod(fd, st.S_IMODE(current.st_mode))
            if (current.st_uid, current.st_gid) != (os.geteuid(), os.getegid()):
                # Not permitted for ordinary users: then the file becomes ours.
                with contextlib.suppress(OSError):
                    os.fchown(fd, current.st_uid, current.st_gid)
        os.close(fd)
        fd = -1
        with guard():
            check()
            os.replace(tmp, name, src_dir_fd=parent_fd, dst_dir_fd=parent_fd)
            tmp = ""
        # Durability of the rename; the new bytes are already in place either way.
        with contextlib.suppress(OSError):
            os.fsync(parent_fd)
    except OSError as exc:
        raise os_error(exc, rel) from None
    finally:
        if fd >= 0:
            close_quietly(fd)
        if tmp:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=parent_fd)
