"""Descriptor walks from an open root directory (security rule D2).

The root is resolved once and held open. Every access then walks from that descriptor one
validated component at a time with ``O_DIRECTORY | O_NOFOLLOW``, so no symbolic link - present
from the start or swapped in between a check and a use - and no ``..`` can lead out of the root.
The final component is opened with ``O_NOFOLLOW | O_NONBLOCK`` (a FIFO can never block us) and
checked with ``fstat``; writers and deleters ``lstat`` it relative to the parent descriptor.

POSIX only: Windows has neither ``O_NOFOLLOW`` nor ``dir_fd``.
"""

from __future__ import annotations

import errno
import os
import stat as st
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from jupyter_operator.protocol import OperatorError, codes

from .errors import FileTooLarge, link_refused, os_error
from .paths import display_path

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
O_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
O_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC


def close_quietly(fd: int) -> None:
    """Close a descriptor, ignoring errors (used on cleanup paths)."""
    try:  # noqa: SIM105 - not contextlib.suppress: this runs once per file of a tree search
        os.close(fd)
    except OSError:
        pass


class Jail:
    """An open workspace root and the descriptor walks below it."""

    def __init__(self, root: str | os.PathLike[str],
                 reserved: Iterable[str | os.PathLike[str]] = ()) -> None:  # fmt: skip
        # The host chose the root, so resolving it (once) is fine; nothing below it is resolved.
        self.path = os.path.realpath(os.fspath(root))
        # Reserved folders (the undo journal) by real location: (st_dev, st_ino) of each, and
        # of every folder above one (deleting any of those would take the journal along).
        self.reserved: set[tuple[int, int]] = set()
        self.holding_reserved: set[tuple[int, int]] = set()
        for folder in reserved:
            self.reserve(folder)
        self.fd = os.open(self.path, O_DIR)
        # A workspace that is dropped without close() still gives its descriptor back.
        self._finalizer = weakref.finalize(self, close_quietly, self.fd)
        info = os.fstat(self.fd)
        self.dev, self.ino = info.st_dev, info.st_ino
        if self._inside_reserved():
            self.close()
            raise OperatorError(
                codes.ERR_PROTECTED_PATH,
                "the workspace root is inside a folder no workspace may reach (the undo "
                "journal, Jupyter's runtime, config or data folder, or a credential store)",
            )

    def reserve(self, item: str | os.PathLike[str]) -> None:
        """Put a host folder or file (the undo journal, the rules file) out of reach."""
        path = os.fspath(item)
        try:
            info = os.stat(path)
        except OSError:
            return  # absent (a credential store this host does not have): nothing to hold
        key = (info.st_dev, info.st_ino)
        self.reserved.add(key)
        if not st.S_ISDIR(info.st_mode):  # a file: its real folder holds it
            path = os.path.dirname(os.path.realpath(path))
            self.holding_reserved.add(key)
            try:
                info = os.stat(path)
            except OSError:
                return
            key = (info.st_dev, info.st_ino)
        # The item and every folder above its real location. ``..`` is taken by the OS from
        # the folder a path reaches (links followed), so no path needs resolving here. The
        # reserved locations share most parents (the home folder): the walk stops at one held.
        while key not in self.holding_reserved:
            self.holding_reserved.add(key)
            path = os.path.join(path, os.pardir)
            try:
                info = os.stat(path)
            except OSError:
                return
            key = (info.st_dev, info.st_ino)

    def _inside_reserved(self) -> bool:
        real = self.path
        while True:
            info = os.stat(real)
            if (info.st_dev, info.st_ino) in self.reserved:
                return True
            parent = os.path.dirname(real)
            if parent == real:
                return False
            real = parent

    def check_entry(self, fd: int, rel: str) -> None:
        """Refuse a directory just opened when it is a reserved folder (the undo journal)."""
        if not self.reserved:
            return
        info = os.fstat(fd)
        if (info.st_dev, info.st_ino) in self.reserved:
            raise reserved_refused(rel)

    def check_not_holding_reserved(self, info: os.stat_result, rel: str) -> None:
        """Refuse to move or delete a folder that is, or holds, a reserved folder."""
        if (info.st_dev, info.st_ino) in self.holding_reserved:
            raise reserved_refused(rel)

    def close(self) -> None:
        """Release the root descriptor (idempotent)."""
        if self.fd >= 0:
            self._finalizer()
            self.fd = -1

    def _step(self, fd: int, comp: str, done: tuple[str, ...], create: bool,
              created: list[tuple[str, ...]] | None = None) -> int:  # fmt: skip
        """Open directory ``comp`` below ``fd`` without following links (``created`` collects
        the folder when this call made it)."""
        for _attempt in range(3):
            try:
                nfd = os.open(comp, O_DIR, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise OperatorError(
                        codes.ERR_NOT_FOUND, f"{display_path(done)} does not exist"
                    ) from None
                try:
                    os.mkdir(comp, 0o777, dir_fd=fd)
                    if created is not None:
                        created.append(done)
                except FileExistsError:
                    pass  # created concurrently; open it on the next attempt
                except OSError as exc:
                    raise os_error(exc, display_path(done)) from None
            except OSError as exc:
                raise self._walk_error(exc, fd, comp, done) from None
            else:
                try:
                    self.check_entry(nfd, display_path(done))
                except BaseException:
                    close_quietly(nfd)
                    raise
                return nfd
        raise OperatorError(codes.ERR_IO, f"{display_path(done)} keeps changing")

    def _walk_error(self, exc: OSError, fd: int, comp: str, done: tuple[str, ...]) -> OperatorError:
        rel = display_path(done)
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            return os_error(exc, rel)
        # O_NOFOLLOW refused a link (ELOOP; some systems say ENOTDIR or EMLINK), or the
        # component is not a directory. Look again to say which; it may have changed meanwhile.
        try:
            mode = os.lstat(comp, dir_fd=fd).st_mode
        except FileNotFoundError:
            return OperatorError(codes.ERR_NOT_FOUND, f"{rel} does not exist")
        except OSError:
            mode = 0
        if st.S_ISLNK(mode) or (exc.errno != errno.ENOTDIR and not st.S_ISDIR(mode)):
            return link_refused(rel)
        if st.S_ISDIR(mode):
            return OperatorError(codes.ERR_IO, f"{rel} changed while it was being opened")
        return OperatorError(codes.ERR_NOT_A_DIRECTORY, f"{rel} is not a directory")

    def open_dir(self, comps: tuple[str, ...], *, create: bool = False,
                 created: list[tuple[str, ...]] | None = None) -> int:  # fmt: skip
        """A new descriptor for the directory at ``comps`` (the root for ``()``).

        With ``create`` missing directories are made (``mkdir`` relative to the parent
        descriptor); ``created`` then collects the ones this call made. The caller closes the
        descriptor.
        """
        fd = os.dup(self.fd)
        try:
            for i, comp in enumerate(comps):
                nfd = self._step(fd, comp, comps[: i + 1], create, created)
                os.close(fd)
                fd = nfd
        except BaseException:
            close_quietly(fd)
            raise
        return fd

    @contextmanager
    def parent(self, comps: tuple[str, ...], *, create: bool = False) -> Iterator[int]:
        """Descriptor of the directory holding the last component of ``comps``."""
        fd = self.open_dir(comps[:-1], create=create)
        try:
            yield fd
        finally:
            close_quietly(fd)

    @contextmanager
    def directory(self, comps: tuple[str, ...]) -> Iterator[int]:
        """Descriptor of the directory at ``comps``."""
        fd = self.open_dir(comps)
        try:
            yield fd
        finally:
            close_quietly(fd)

    def lstat_in(self, parent_fd: int, comps: tuple[str, ...]) -> os.stat_result | None:
        """``lstat`` of the last component relative to its parent; None when it is absent."""
        try:
            return os.lstat(comps[-1], dir_fd=parent_fd)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise os_error(exc, display_path(comps)) from None

    def open_regular(self, parent_fd: int, comps: tuple[str, ...]) -> tuple[int, os.stat_result]:
        """Open the last component for reading; refuse anything but a regular file.

        ``lstat`` first so devices and sockets are never opened, then open with
        ``O_NOFOLLOW | O_NONBLOCK`` and check with ``fstat`` that the same regular file was
        opened. A swap between the two calls is never followed: it is looked at again (another
        writer's atomic rename lands there), and only a path that keeps changing is refused.
        """
        rel = display_path(comps)
        # A writer that renames new copies in a tight loop can win a few races in a row on a
        # loaded machine (three attempts lost one in CI); a path that keeps changing for
        # OPEN_ATTEMPTS looks is refused.
        for _attempt in range(OPEN_ATTEMPTS):
            pre = self.lstat_in(parent_fd, comps)
            if pre is None:
                raise OperatorError(codes.ERR_NOT_FOUND, f"{rel} does not exist")
            check_regular(pre, rel)
            if (pre.st_dev, pre.st_ino) in self.reserved:
                raise reserved_refused(rel)
            try:
                fd = os.open(comps[-1], O_READ, dir_fd=parent_fd)
            except FileNotFoundError:
                continue  # renamed away in between: look again
            except OSError as exc:
                raise os_error(exc, rel) from None
            try:
                info = os.fstat(fd)
                check_regular(info, rel)
            except BaseException:
                close_quietly(fd)
                raise
            if (info.st_dev, info.st_ino) == (pre.st_dev, pre.st_ino):
                return fd, info
            close_quietly(fd)
        raise OperatorError(codes.ERR_IO, f"{rel} changed while it was being opened")


#: How many times a read looks again at a path swapped between its lstat and its open.
OPEN_ATTEMPTS = 16


def reserved_refused(rel: str) -> OperatorError:
    """A path that reaches a host location kept out of every workspace, under whatever name."""
    return OperatorError(
        codes.ERR_PROTECTED_PATH,
        f"{rel} is (or holds) a host location no workspace may reach (the undo journal, the "
        f"rules file, Jupyter's runtime, config or data, or a credential store)",
    )


def check_regular(info: os.stat_result, rel: str) -> None:
    """Raise unless ``info`` describes a regular file."""
    mode = info.st_mode
    if st.S_ISREG(mode):
        return
    if st.S_ISLNK(mode):
        raise link_refused(rel)
    if st.S_ISDIR(mode):
        raise OperatorError(codes.ERR_NOT_A_FILE, f"{rel} is a directory")
    raise OperatorError(codes.ERR_NOT_A_FILE, f"{rel} is not a regular file")


def read_bounded(fd: int, size: int, limit: int, rel: str) -> bytes:
    """Read a whole regular file of ``fstat`` size ``size`` but never more than ``limit`` bytes.

    Reads at most ``limit + 1`` bytes so a file growing after ``fstat`` is still caught.
    """
    if size > limit:
        raise FileTooLarge(rel, size, limit)
    chunks: list[bytes] = []
    want = limit + 1
    got = 0
    try:
        while got < want:
            # Ask for the expected rest plus one byte (one call for a quiet file). Past the
            # fstat size (a growing file) go on in small steps: os.read allocates what it is
            # asked for, so never ask for the whole remaining limit.
            ask = min(size - got + 1 if got < size else 1 << 16, want - got, 1 << 26)
            chunk = os.read(fd, ask)
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
            if len(chunk) < ask and got >= size:
                break  # short past the fstat size: the end, without one more call
    except OSError as exc:
        raise os_error(exc, rel) from None
    if got > limit:
        raise FileTooLarge(rel, got, limit)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)
