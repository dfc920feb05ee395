"""Moving a file or directory between the workspace and a trash folder outside it.

Delete moves the item into the engine's trash (in the undo journal); undo moves it back. Both
are one ``rename`` between directory descriptors. When the trash is on another file system
(``EXDEV``) the tree is copied through descriptors (links copied as links, never followed) and
the source is removed only after the copy is complete - never a permanent delete. When removing
the source fails halfway, what was removed is copied back from the complete copy (a roll back);
only when that fails too is ``PartialMove`` raised, with the complete copy left at the destination.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat as st
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from jupyter_operator.protocol import OperatorError, codes

from .jail import O_DIR, O_READ, close_quietly

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC


def move(src_dir: int, src_name: str, dst_dir: int, dst_name: str) -> None:
    """Move ``src_name`` to ``dst_name`` (which must not exist) between two directories."""
    try:
        os.lstat(dst_name, dir_fd=dst_dir)
    except FileNotFoundError:
        pass
    else:
        raise FileExistsError(errno.EEXIST, "destination exists")
    try:
        os.rename(src_name, dst_name, src_dir_fd=src_dir, dst_dir_fd=dst_dir)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        try:
            copy_tree(src_dir, src_name, dst_dir, dst_name)
        except BaseException:
            _remove_quietly(dst_dir, dst_name)
            raise
        try:
            remove_tree(src_dir, src_name)
        except OSError:
            # Part of the source may be gone already: put back what the complete copy has.
            try:
                restore_missing(dst_dir, dst_name, src_dir, src_name)
            except (OSError, OperatorError):
                raise PartialMove(errno.EIO, "partly moved") from None
            _remove_quietly(dst_dir, dst_name)
            raise
    for fd in (dst_dir, src_dir):
        with contextlib.suppress(OSError):
            os.fsync(fd)


class PartialMove(OSError):
    """A move across file systems that removed part of its source and could not put it back.

    The destination then holds a complete copy of the source.
    """


def restore_missing(copy_dir: int, copy_name: str, dir_fd: int, name: str) -> None:
    """Copy back from ``copy_name`` whatever of the tree ``name`` is missing (links as links)."""
    try:
        here = os.lstat(name, dir_fd=dir_fd)
    except FileNotFoundError:
        copy_tree(copy_dir, copy_name, dir_fd, name)
        return
    copy_info = os.lstat(copy_name, dir_fd=copy_dir)
    if not (st.S_ISDIR(here.st_mode) and st.S_ISDIR(copy_info.st_mode)):
        return
    cfd = os.open(copy_name, O_DIR, dir_fd=copy_dir)
    try:
        dfd = os.open(name, O_DIR, dir_fd=dir_fd)
        try:
            for entry in sorted(os.listdir(cfd)):
                restore_missing(cfd, entry, dfd, entry)
        finally:
            os.close(dfd)
    finally:
        os.close(cfd)


def copy_tree(src_dir: int, src_name: str, dst_dir: int, dst_name: str) -> None:
    """Copy a file, link or directory tree without following any link."""
    info = os.lstat(src_name, dir_fd=src_dir)
    mode = info.st_mode
    if st.S_ISLNK(mode):
        os.symlink(os.readlink(src_name, dir_fd=src_dir), dst_name, dir_fd=dst_dir)
        return
    if st.S_ISDIR(mode):
        os.mkdir(dst_name, 0o700, dir_fd=dst_dir)
        sfd = os.open(src_name, O_DIR, dir_fd=src_dir)
        try:
            dfd = os.open(dst_name, O_DIR, dir_fd=dst_dir)
            try:
                for entry in sorted(os.listdir(sfd)):
                    copy_tree(sfd, entry, dfd, entry)
                os.fchmod(dfd, st.S_IMODE(mode))
            finally:
                os.close(dfd)
        finally:
            os.close(sfd)
        return
    if not st.S_ISREG(mode):
        raise OperatorError(codes.ERR_IO, "cannot move a special file (FIFO, socket, device)")
    sfd = os.open(src_name, O_READ, dir_fd=src_dir)
    try:
        dfd = os.open(dst_name, _O_NEW, 0o600, dir_fd=dst_dir)
        try:
            while chunk := os.read(sfd, 1 << 20):
                view = memoryview(chunk)
                while view:
                    view = view[os.write(dfd, view) :]
            os.fsync(dfd)
            os.fchmod(dfd, st.S_IMODE(mode))
        finally:
            os.close(dfd)
    finally:
        os.close(sfd)
    os.utime(dst_name, ns=(info.st_atime_ns, info.st_mtime_ns), dir_fd=dst_dir)


def remove_tree(dir_fd: int, name: str) -> None:
    """Remove a file, link or directory tree relative to ``dir_fd`` without following links."""
    info = os.lstat(name, dir_fd=dir_fd)
    if st.S_ISDIR(info.st_mode):
        fd = os.open(name, O_DIR, dir_fd=dir_fd)
        try:
            for entry in os.listdir(fd):
                remove_tree(fd, entry)
        finally:
            close_quietly(fd)
        os.rmdir(name, dir_fd=dir_fd)
    else:
        os.unlink(name, dir_fd=dir_fd)


def _remove_quietly(dir_fd: int, name: str) -> None:
    with contextlib.suppress(OSError):
        remove_tree(dir_fd, name)


_O_DIR_TRUSTED = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)


@contextmanager
def host_folder(folder: int | Path, rel: str, missing: OperatorError) -> Iterator[int]:
    """A descriptor for a folder the host chose: an open one as is, a path opened once."""
    if isinstance(folder, int):
        yield folder
        return
    try:
        fd = os.open(os.fspath(folder), _O_DIR_TRUSTED)
    except OSError:
        raise missing from None
    try:
        yield fd
    finally:
        close_quietly(fd)


class PartialDelete(OperatorError):
    """A delete across file systems that removed part of the path and could not put it back.

    The trash holds a complete copy; ``ERR_IO`` with a message that says so.
    """
