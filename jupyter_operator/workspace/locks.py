"""Locks that hold across processes and overlapping workspaces (the compare-and-swap's guard).

A ``threading.Lock`` inside one ``Workspace`` cannot stop another process, or another workspace
whose root contains this one, from replacing the same file between our check and our rename.
So every check-and-rename also holds an OS file lock (``flock``) on a lock file chosen by the
real file: a hash of the ``(st_dev, st_ino)`` of its parent directory and its case-folded name
picks one of ``STRIPES`` lock files. Every name of one real file picks the same one; two files
that share one only wait for each other's check and rename (a few system calls: no holder takes
a second lock, so none waits for itself). Lock files live in ``<journal directory>/locks/``
(outside every workspace, opened without following links), are empty, and are never removed
(removing one could let two holders lock different files of the same name). A bounded number,
unlike one per file: the folder does not grow with every file ever changed, and a change to a
new file finds its lock file made already instead of creating one on its path.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from jupyter_operator.protocol import OperatorError, codes

from .jail import O_DIR, close_quietly
from .shared_handles import SharedHandles

_O_LOCK = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
#: How many lock files every file's lock is spread over. Few enough that all are made within
#: a workspace's first few hundred changes (each made is a file created on a change's path),
#: many enough that the few writers of one journal folder (a server, its kernels) seldom share
#: one, and sharing one costs only a wait for the other's check and rename.
STRIPES = 64


def _unavailable() -> OperatorError:
    return OperatorError(codes.ERR_IO, "the folder for file locks cannot be opened")


# One descriptor per lock folder and process, however many workspaces use it.
_FOLDERS: SharedHandles[int] = SharedHandles(close_quietly)


def _open_locks(path: str) -> int:
    try:
        base = os.open(path, O_DIR)
    except OSError:
        raise _unavailable() from None
    try:
        with suppress(FileExistsError):
            os.mkdir("locks", 0o700, dir_fd=base)
        return os.open("locks", O_DIR, dir_fd=base)
    except OSError:
        raise _unavailable() from None
    finally:
        close_quietly(base)


class FileLocks:
    """Exclusive ``flock`` locks keyed by a file's real location."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        """Lock files go in ``directory/locks`` (made 0o700; a link there is refused)."""
        self._path = os.path.realpath(directory)
        self._open = False
        self._folders = _FOLDERS
        self.fd = self._folders.take(self._path, lambda: _open_locks(self._path))
        self._open = True

    def close(self) -> None:
        """Release this user's share of the lock folder's descriptor (idempotent)."""
        if getattr(self, "_open", False):
            self._open = False
            self._folders.give_back(self._path)

    def __del__(self) -> None:
        if getattr(self, "_open", False):
            self._open = False
            # The instance's own reference: at interpreter exit the module's globals are
            # already None when the last objects are collected.
            self._folders.give_back_collected(self._path)

    @staticmethod
    def key(parent_fd: int, name: str) -> str:
        """The lock file name of ``name`` in the directory open as ``parent_fd``."""
        info = os.fstat(parent_fd)
        where = f"{info.st_dev:x}-{info.st_ino:x}/{name.casefold()}"
        digest = hashlib.sha256(where.encode("utf-8", "surrogateescape")).digest()
        return f"{int.from_bytes(digest[:4], 'big') % STRIPES:03x}.lock"

    @contextmanager
    def hold(self, parent_fd: int, name: str) -> Iterator[None]:
        """Hold the lock of ``name`` in ``parent_fd`` (blocks while another holder has it)."""
        try:
            fd = os.open(self.key(parent_fd, name), _O_LOCK, 0o600, dir_fd=self.fd)
        except OSError:
            raise OperatorError(codes.ERR_IO, "a file lock cannot be taken") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the lock
