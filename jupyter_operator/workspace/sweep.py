"""Removing the hidden temp files that killed writes left behind (run when a workspace starts).

A ``kill -9`` between creating a temp file and renaming it leaves ``.~operator-<16 hex>.tmp`` in
the target's folder. The sweep walks the workspace from its root descriptor (never following a
link, never crossing into another file system, a protected path or the undo journal) and removes
only files that are certainly ours and certainly abandoned: exactly our name pattern, a regular
file with one link, owned by this user, untouched for ``stale_after`` seconds (a write that is
still running in another process keeps its temp file fresh).
"""

from __future__ import annotations

import contextlib
import os
import re
import stat as st
import time

from .jail import O_DIR, Jail, close_quietly
from .paths import ProtectedMatcher

TEMP_NAME = re.compile(r"\.~operator-[0-9a-f]{16}\.tmp")
#: Folders visited at most: a sweep of a huge home folder stays a bounded cost.
MAX_FOLDERS = 5000


def sweep_temps(jail: Jail, protected: ProtectedMatcher, *, stale_after: float,
                max_depth: int) -> int:  # fmt: skip
    """Remove stale temp files of ours below the jail's root; return how many."""
    cutoff = time.time() - stale_after
    removed = 0
    visited = 0
    stack: list[tuple[int, tuple[str, ...]]] = [(os.dup(jail.fd), ())]
    try:
        while stack and visited < MAX_FOLDERS:
            fd, comps = stack.pop()
            visited += 1
            try:
                with os.scandir(fd) as it:
                    entries = [(e.name, e.is_dir(follow_symlinks=False)) for e in it]
            except OSError:
                entries = []
            for name, is_dir in entries:
                child = (*comps, name)
                if is_dir:
                    if len(child) <= max_depth and not protected.child_matches(child):
                        _push(stack, jail, fd, name, child)
                elif TEMP_NAME.fullmatch(name) and _abandoned(fd, name, cutoff):
                    with contextlib.suppress(OSError):
                        os.unlink(name, dir_fd=fd)
                        removed += 1
            close_quietly(fd)
    finally:
        for fd, _ in stack:
            close_quietly(fd)
    return removed


def _push(stack: list, jail: Jail, fd: int, name: str, child: tuple[str, ...]) -> None:
    try:
        cfd = os.open(name, O_DIR, dir_fd=fd)
    except OSError:  # a link (O_NOFOLLOW), vanished, unreadable
        return
    info = os.fstat(cfd)
    if info.st_dev != jail.dev or (info.st_dev, info.st_ino) in jail.reserved:
        close_quietly(cfd)
        return
    stack.append((cfd, child))


def _abandoned(fd: int, name: str, cutoff: float) -> bool:
    try:
        info = os.lstat(name, dir_fd=fd)
    except OSError:
        return False
    return (
        st.S_ISREG(info.st_mode) and info.st_nlink == 1 and info.st_uid == os.geteuid()
        and info.st_mtime < cutoff
    )  # fmt: skip
