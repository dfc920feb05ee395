"""``Workspace``: every file-system call of the project, jailed to one root folder.

Paths are the model's relative paths: checked lexically first (``paths.parse_path``), then
reached by descriptor walks (``jail.Jail``). Protected paths are refused for every action,
reads included. Mutations are only ever called by the engine with bytes a person approved, and
apply only if the file is still in the state the preview was computed from.

Policy on symbolic links: never followed, for any action - a link met on the way or as the
target gives ``ERR_PATH_ESCAPE``; ``list_dir`` shows a link as a non-directory entry and
``search_tree`` skips it. Hard-linked files (``st_nlink > 1``) may be read but not changed or
deleted: a hard link can share its bytes with a file outside the workspace.

The undo journal's directory (and every folder that holds it) is reserved by its real location:
walks refuse to enter it and deletes refuse to take it, whatever its name inside the workspace.
Every compare-and-swap holds an OS file lock keyed by the real file (``locks.py``), so other
processes and overlapping workspaces cannot slip a write in between the check and the rename.
"""

from __future__ import annotations

import hashlib
import os
import stat as st
import threading
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from jupyter_operator.protocol import OperatorError, codes

from .atomic import write_replace
from .budget import MAX_PLANNED_BYTES
from .errors import FileTooLarge, os_error
from .host_python import host_python_locations, kept_patterns, startup_folders
from .jail import Jail, close_quietly, read_bounded, reserved_refused
from .journal_paths import journal_base
from .locks import FileLocks
from .moves import PartialDelete, PartialMove, host_folder, move, restore_missing
from .notebook_guard import carries_policy, check_change, check_read, is_notebook_name
from .out_of_reach import host_secret_locations
from .paths import (
    DEFAULT_PROTECTED,
    TEMP_PREFIX,
    ProtectedMatcher,
    display_name,
    display_path,
    parse_path,
)
from .records import DirEntry, Limits, Snapshot, StatInfo, TreeSearch
from .sandbox_masks import SandboxMasks, nearest_existing
from .sandbox_masks import sandbox_masks as _sandbox_masks
from .sweep import sweep_temps
from .tree_search import search_tree as _search_tree
from .tree_walk import TreeListing, walk_tree


def stale_preview(rel: str, why: str) -> OperatorError:
    """``ERR_STALE_PREVIEW``: ``rel`` is no longer as the preview saw it."""
    return OperatorError(
        codes.ERR_STALE_PREVIEW, f"{rel} {why} after the preview; ask for a new preview."
    )


class Workspace:
    """One workspace root and jailed access below it. Also a context manager."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        protected: Iterable[str] = DEFAULT_PROTECTED,
        limits: Limits = Limits(),  # noqa: B008  (frozen dataclass: a shared default is safe)
        journal_dir: str | os.PathLike[str] | None = None,
        reserved: Iterable[str | os.PathLike[str]] = (),
        notebook_cap: str | None = None,
        host_python: Iterable[str | os.PathLike[str]] | None = None,
    ) -> None:
        base = journal_base(journal_dir)
        # Every journal this host may use, Jupyter's own folders and the home folder's
        # credential stores are out of reach, by real location (not by name).
        folders = {base, journal_base(None), *host_secret_locations(),
                   *(Path(os.path.realpath(p)) for p in reserved)}  # fmt: skip
        self._jail = Jail(root, reserved=folders)
        self._file_locks = FileLocks(base)
        self.root = Path(self._jail.path)
        self.limits = limits
        self._protected = ProtectedMatcher(protected)
        # Where the host's Python runs code from (host_python.py): read, never changed.
        self._host_locations = (host_python_locations() if host_python is None
                                else [Path(p) for p in host_python])  # fmt: skip
        self._startup_folders = startup_folders() if host_python is None else []
        self._host_python = ProtectedMatcher(self._kept_patterns())
        self._locks: dict[tuple[str, ...], threading.Lock] = {}
        self._locks_guard = threading.Lock()
        #: The most any notebook's own policy may allow here (``notebook_guard``; None: no cap).
        self.notebook_cap = notebook_cap

    def close(self) -> None:
        """Release the root descriptor."""
        self._jail.close()
        self._file_locks.close()

    def sweep_temps(self, *, stale_after: float = 3600.0) -> int:
        """Remove the hidden temp files killed writes left (ours, older than ``stale_after``)."""
        return sweep_temps(self._jail, self._protected, stale_after=stale_after,
                           max_depth=self.limits.max_search_depth)  # fmt: skip

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Workspace {str(self.root)!r}>"

    # -- checks -------------------------------------------------------------------------------
    # What every action checks before it touches a path: the lexical parse of a model's path
    # with the protected-path refusal, the per-path thread lock, and the compare-and-swap that
    # refuses a change when the path is no longer as the preview saw it (ERR_STALE_PREVIEW).

    def _parse(self, path: str) -> tuple[str, ...]:
        comps = parse_path(path)
        if comps and self._protected.matches(comps):
            raise OperatorError(
                codes.ERR_PROTECTED_PATH, f"{display_path(comps)} is a protected path"
            )
        return comps

    def _parse_target(self, path: str) -> tuple[str, ...]:
        comps = self._parse(path)
        if not comps:
            raise OperatorError(codes.ERR_PROTECTED_PATH, "the workspace root cannot be changed")
        self._check_not_host_python(comps)
        return comps

    def _check_not_host_python(self, comps: tuple[str, ...]) -> None:
        """Refuse a change in (or of a folder holding) a place the host's Python runs code
        from: a ``.pth`` planted there would run unsandboxed at its next start."""
        if comps and (self._host_python.matches(comps) or self._host_python.holds(comps)):
            raise OperatorError(
                codes.ERR_PROTECTED_PATH,
                f"{display_path(comps)} is (or holds) part of the Python environment the host "
                f"runs (its site-packages, interpreter or start-up files); it is never changed "
                f"from here: reading it is fine",
            )

    @contextmanager
    def _lock(self, comps: tuple[str, ...]) -> Iterator[None]:
        key = tuple(c.casefold() for c in comps)
        with self._locks_guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            yield

    def _snapshot_in(self, pfd: int, comps: tuple[str, ...], limit: int) -> Snapshot:
        rel = display_path(comps)
        info = self._jail.lstat_in(pfd, comps)
        if info is None:
            return Snapshot(rel, False, False, None, None)
        if st.S_ISDIR(info.st_mode):
            return Snapshot(rel, True, True, None, None, info.st_dev, info.st_ino)
        fd, info = self._jail.open_regular(pfd, comps)
        try:
            if info.st_nlink > 1:
                raise OperatorError(
                    codes.ERR_PATH_ESCAPE,
                    f"{rel} has other hard links; changing it could change a file outside "
                    f"the workspace",
                )
            data = read_bounded(fd, info.st_size, limit, rel)
        finally:
            close_quietly(fd)
        digest = hashlib.sha256(data).hexdigest()
        return Snapshot(rel, True, False, data, digest, info.st_dev, info.st_ino)

    def _check(self, pfd: int, comps: tuple[str, ...], expect: Snapshot) -> os.stat_result | None:
        """Compare-and-swap: raise ``ERR_STALE_PREVIEW`` unless the path is as previewed."""
        rel = display_path(comps)
        info = self._jail.lstat_in(pfd, comps)
        if info is not None and (info.st_dev, info.st_ino) in self._jail.reserved:
            raise reserved_refused(rel)  # the active rules file, under whatever name
        if not expect.exists:
            if info is not None:
                raise stale_preview(rel, "was created")
            return None
        if info is None:
            raise stale_preview(rel, "was removed")
        if expect.is_dir != st.S_ISDIR(info.st_mode) or st.S_ISLNK(info.st_mode):
            raise stale_preview(rel, "changed kind")
        if (expect.dev or expect.ino) and (info.st_dev, info.st_ino) != (expect.dev, expect.ino):
            raise stale_preview(rel, "was replaced")
        if expect.is_dir:
            return info
        if expect.data is not None and info.st_size != len(expect.data):
            raise stale_preview(rel, "changed")
        try:
            current = self._snapshot_in(pfd, comps, info.st_size)
        except FileTooLarge:  # grew since the lstat above
            raise stale_preview(rel, "changed") from None
        if current.sha256 != expect.sha256:
            raise stale_preview(rel, "changed")
        return info


    def reserve(self, item: str | os.PathLike[str]) -> None:
        """Refuse every change to a host file or folder (the active rules file) from now on."""
        self._jail.reserve(item)

    def keep_host_python(self, location: str | os.PathLike[str]) -> None:
        """Keep one more place a host's Python runs code from (a kernel's own environment)
        from every change, here and in the sandbox (see ``host_python``)."""
        if Path(location) in self._host_locations:
            return
        self._host_locations.append(Path(location))
        self._host_python = ProtectedMatcher(self._kept_patterns())

    def _kept_patterns(self) -> list[str]:
        return kept_patterns(self.root, self._host_locations, self._startup_folders)

    def check_changeable(self, path: str) -> None:
        """Raise ``ERR_PROTECTED_PATH`` (or the parse's error) unless a change may be planned
        at ``path``: not the root, not protected, not the host's Python environment."""
        self._parse_target(path)

    def is_protected(self, path: str) -> bool:
        """True when ``path`` (or a folder above it) is protected. Invalid paths raise."""
        comps = parse_path(path)
        return bool(comps) and self._protected.matches(comps)

    # -- reads ----------------------------------------------------------------------------

    def list_dir(self, path: str) -> list[DirEntry]:
        """Entries of a directory sorted by name (at most ``limits.max_list_entries``).

        Our own temp files are hidden. Symbolic links are listed as non-directories with the
        size of the link itself.
        """
        comps = self._parse(path)
        rel = display_path(comps)
        with self._jail.directory(comps) as fd:
            try:
                names = sorted(n for n in os.listdir(fd) if not n.startswith(TEMP_PREFIX))
            except OSError as exc:
                raise os_error(exc, rel) from None
            out: list[DirEntry] = []
            for name in names[: self.limits.max_list_entries]:
                try:
                    info = os.lstat(name, dir_fd=fd)
                except OSError:
                    continue  # vanished meanwhile
                is_dir = st.S_ISDIR(info.st_mode)
                out.append(DirEntry(display_name(name), is_dir, 0 if is_dir else info.st_size))
        return out

    def stat(self, path: str) -> StatInfo:
        """Size, kind and times of a path; a final symbolic link is refused, not followed."""
        comps = self._parse(path)
        if not comps:
            with self._jail.directory(comps) as fd:
                info = os.fstat(fd)
        else:
            with self._jail.parent(comps) as pfd:
                found = self._jail.lstat_in(pfd, comps)
            if found is None:
                raise OperatorError(codes.ERR_NOT_FOUND, f"{display_path(comps)} does not exist")
            if st.S_ISLNK(found.st_mode):
                raise OperatorError(
                    codes.ERR_PATH_ESCAPE,
                    f"{display_path(comps)} is a symbolic link; links are not followed",
                )
            if (found.st_dev, found.st_ino) in self._jail.reserved:
                raise reserved_refused(display_path(comps))
            info = found
        return StatInfo(
            size=info.st_size,
            is_file=st.S_ISREG(info.st_mode),
            is_dir=st.S_ISDIR(info.st_mode),
            mtime_ms=info.st_mtime_ns / 1e6,
            ctime_ms=info.st_ctime_ns / 1e6,
        )

    def read_bytes(self, path: str, *, limit: int) -> bytes:
        """The bytes of a regular file; ``FileTooLarge`` (with ``.size``) over ``limit``.

        The size comes from ``fstat`` of the opened file, so an oversized (even sparse) file is
        refused without reading it; at most ``limit + 1`` bytes are ever read.
        """
        comps = self._parse(path)
        rel = display_path(comps)
        if not comps:
            raise OperatorError(codes.ERR_NOT_A_FILE, ". is a directory")
        with self._jail.parent(comps) as pfd:
            fd, info = self._jail.open_regular(pfd, comps)
        try:
            data = read_bounded(fd, info.st_size, limit, rel)
        finally:
            close_quietly(fd)
        check_read(comps, data, self.notebook_cap)  # a notebook set to off is never read
        return data

    def search_tree(
        self,
        path: str,
        query: str,
        *,
        max_matches: int = 200,
        max_files: int = 300,
        max_file_size: int = 500_000,
        hidden: Callable[[str], bool] | None = None,
    ) -> TreeSearch:
        """Search a file or a directory tree for lines containing ``query`` (see tree_search);
        ``hidden(relative path)`` keeps what a rule denies out of the search."""
        comps = self._parse(path)
        return _search_tree(
            self._jail,
            comps,
            query,
            self._protected,
            max_matches=max_matches,
            max_files=max_files,
            max_file_size=max_file_size,
            max_depth=self.limits.max_search_depth,
            hidden=hidden,
            notebook_cap=self.notebook_cap,
        )

    def sandbox_masks(self, live: Collection[str] = ()) -> SandboxMasks:
        """What the shell sandbox binds read-only or hides inside this workspace (see
        ``sandbox_masks``): protected paths, credential stores and reserved locations hidden,
        the host's Python environment read-only, notebooks carrying their own policy read-only
        and those set to off hidden, and the ``live`` files (open in a page or a room)
        read-only."""
        masks = _sandbox_masks(self._jail, self._protected, self._host_python,
                               notebook_cap=self.notebook_cap, live=live)
        patterns = self._kept_patterns()
        for folder in nearest_existing(self._jail, patterns):
            comps = tuple(folder.split("/"))
            if not (self._protected.matches(comps) or self._host_python.matches(comps)):
                masks.read_only.append(folder)  # a kept place not made yet: its parent
        return masks

    def tree_listing(self, path: str, *, shown: int = 200) -> TreeListing:
        """Everything a delete of the folder ``path`` would move (see ``tree_walk``).

        Refuses (``ERR_PROTECTED_PATH``) when a protected path lies anywhere below it, and
        (``ERR_TOO_MANY_ENTRIES``) above ``limits.max_delete_entries`` entries.
        """
        return walk_tree(
            self._jail,
            self._parse(path),
            self._protected,
            max_entries=self.limits.max_delete_entries,
            max_depth=self.limits.max_search_depth,
            shown=shown,
            check_file=self._check_removal,
        )

    def files_below(self, path: str) -> list[str] | None:
        """The workspace paths of the regular files anywhere below the folder ``path``, with
        their real names (links not followed, never listed), or None when ``path`` is not a
        folder (a file, a link, nothing). Walked as a folder delete is (``tree_listing``, its
        refusals and its bounds): a folder too large to delete is too large to list here."""
        try:
            if not self.stat(path).is_dir:
                return None
        except OperatorError:
            return None
        found: list[str] = []
        walk_tree(
            self._jail,
            self._parse(path),
            self._protected,
            max_entries=self.limits.max_delete_entries,
            max_depth=self.limits.max_search_depth,
            shown=0,
            check_file=lambda _fd, comps: found.append("/".join(comps)),
        )
        return found

    def _check_removal(self, dir_fd: int, comps: tuple[str, ...]) -> None:
        """Refuse moving away a notebook below a folder when its own policy forbids that
        (it carries ``metadata.jupyter_operator``, or is ``off``)."""
        if not is_notebook_name(comps[-1]):
            return
        fd, info = self._jail.open_regular(dir_fd, comps)
        try:
            data = read_bounded(fd, info.st_size, MAX_PLANNED_BYTES, display_path(comps))
        except FileTooLarge:
            # Its policy cannot be told without reading it all: it is not moved blindly.
            raise OperatorError(codes.ERR_NOTEBOOK_POLICY, f"{display_path(comps)} is too "
                                "large to check its own policy; nothing was changed.") from None
        finally:
            close_quietly(fd)
        check_change(comps, data, None, self.notebook_cap)

    def check_notebook_change(self, path: str, before: bytes | None, after: bytes | None) -> None:
        """Raise ``ERR_NOTEBOOK_POLICY`` for a planned change of ``path`` from ``before`` to
        ``after`` (None: absent) that the notebook's own policy refuses even as a preview
        (``notebook_guard``); ``write`` and ``move_out`` check again when applying."""
        check_change(self._parse(path), before, after, self.notebook_cap, applying=False)

    def snapshot(self, path: str, *, limit: int) -> Snapshot:
        """The current state of ``path``, the base a preview is computed from.

        A missing file (or missing parent folders) gives ``exists=False``. A regular file is
        read whole (``FileTooLarge`` over ``limit``); a directory gives ``is_dir=True``.
        Symbolic links and hard-linked files are refused.
        """
        comps = self._parse(path)
        rel = display_path(comps)
        if not comps:
            with self._jail.directory(comps) as fd:
                info = os.fstat(fd)
            return Snapshot(rel, True, True, None, None, info.st_dev, info.st_ino)
        try:
            pfd = self._jail.open_dir(comps[:-1])
        except OperatorError as exc:
            if exc.code == codes.ERR_NOT_FOUND:
                return Snapshot(rel, False, False, None, None)
            raise
        try:
            found = self._snapshot_in(pfd, comps, limit)
        finally:
            close_quietly(pfd)
        check_read(comps, found.data, self.notebook_cap)  # not even planned over when off
        return found

    # -- mutations ------------------------------------------------------------------------

    def write(self, path: str, data: bytes, *, expect: Snapshot) -> int:
        """Atomically replace (or create) a file with exactly ``data``.

        Only if the path is still as ``expect`` describes (else ``ERR_STALE_PREVIEW``). Missing
        parent folders are created; the number this call created is returned (the innermost
        ones: undo removes them again while empty, ``remove_empty_parents``). The file's mode is
        kept; new files get ``0o666 & ~umask``.
        """
        comps = self._parse_target(path)
        if expect.is_dir:
            raise OperatorError(codes.ERR_NOT_A_FILE, f"{display_path(comps)} is a directory")
        # ``expect`` is what the compare-and-swap below finds on disk, or nothing is written.
        check_change(comps, expect.data if expect.exists else None, data, self.notebook_cap)
        created: list[tuple[str, ...]] = []
        with self._lock(comps):
            try:
                pfd = self._jail.open_dir(comps[:-1], create=not expect.exists, created=created)
            except OperatorError as exc:
                if exc.code == codes.ERR_NOT_FOUND:
                    raise stale_preview(display_path(comps), "was removed") from None
                raise
            try:
                current = self._check(pfd, comps, expect)
                write_replace(pfd, comps, data, current, lambda: self._check(pfd, comps, expect),
                              lambda: self._file_locks.hold(pfd, comps[-1]))  # fmt: skip
            finally:
                close_quietly(pfd)
        return len(created)

    def policy_snapshot(self, path: str) -> Snapshot:
        """The state of a notebook that carries its own policy, read even when that is ``off``:
        only to set aside, with ``move_out(..., set_aside=True)``, a notebook that a shell
        command gave a policy (its bytes go to the undo journal, never to a model).
        ``ERR_NOTEBOOK_POLICY`` for anything else."""
        comps = self._parse_target(path)
        with self._jail.parent(comps) as pfd:
            found = self._snapshot_in(pfd, comps, MAX_PLANNED_BYTES)
        if not carries_policy(comps, found.data):
            raise OperatorError(codes.ERR_NOTEBOOK_POLICY,
                                f"{display_path(comps)} is no notebook carrying its own policy")
        return found

    def move_out(self, path: str, dest: int | Path, *, expect: Snapshot,
                 set_aside: bool = False) -> None:  # fmt: skip
        """Move a file or directory out of the workspace into the folder ``dest`` (fd or path).

        The item keeps its name inside the destination (the trash the engine chose, outside the
        workspace). Never the root, nor a folder holding the journal; only if the path is still
        as ``expect`` describes. ``PartialDelete`` when a move across file systems removed part
        of the path and could not put it back (the trash then holds a complete copy).
        ``set_aside`` moves only a notebook carrying its own policy, which the notebook's policy
        otherwise forbids: one a shell command gave a policy (``policy_snapshot``).
        """
        comps = self._parse_target(path)
        rel = display_path(comps)
        if set_aside:
            if expect.is_dir or not carries_policy(comps, expect.data):
                raise OperatorError(codes.ERR_NOTEBOOK_POLICY,
                                    f"{rel} is no notebook carrying its own policy")
        elif expect.is_dir:
            self.tree_listing(path, shown=0)  # every notebook below it, by its own policy
        else:
            check_change(comps, expect.data if expect.exists else None, None, self.notebook_cap)
        with self._lock(comps):
            try:
                pfd = self._jail.open_dir(comps[:-1])
            except OperatorError as exc:
                if exc.code == codes.ERR_NOT_FOUND and expect.exists:
                    raise stale_preview(rel, "was removed") from None
                raise
            try:
                with self._file_locks.hold(pfd, comps[-1]):
                    info = self._check(pfd, comps, expect)
                    if info is None:
                        raise OperatorError(codes.ERR_NOT_FOUND, f"{rel} does not exist")
                    self._jail.check_not_holding_reserved(info, rel)
                    # Never fall back to a permanent delete (D12): no trash, no delete.
                    gone = OperatorError(
                        codes.ERR_IO, f"the trash is not available; {rel} was not deleted"
                    )
                    with host_folder(dest, rel, gone) as dfd:
                        move(pfd, comps[-1], dfd, comps[-1])
            except PartialMove:
                raise PartialDelete(
                    codes.ERR_IO,
                    f"{rel} was only partly moved to the trash (moving it to another file "
                    f"system failed and could not be rolled back); the trash holds a complete "
                    f"copy, so undo can put back what is missing",
                ) from None
            except OSError as exc:
                raise os_error(exc, rel) from None
            except RecursionError:
                raise OperatorError(codes.ERR_IO, f"{rel} is nested too deeply to move") from None
            finally:
                close_quietly(pfd)

    def move_in(self, src: Path | tuple[int, str], path: str, *, expect: Snapshot,
                merge: bool = False) -> None:  # fmt: skip
        """Move ``src`` (an item in the trash: a path, or an open folder and a name) to ``path``.

        ``path`` must still be absent, as in ``expect``; missing parent folders are created.
        With ``merge`` (the undo of a delete that was only partly done) ``path`` may be a folder,
        and only what is missing from it is put back.
        """
        comps = self._parse_target(path)
        rel = display_path(comps)
        if expect.exists and not merge:
            raise stale_preview(rel, "exists")
        gone = OperatorError(codes.ERR_NOT_FOUND, "the item is no longer in the trash")
        folder, src_name = src if isinstance(src, tuple) else (Path(src).parent, Path(src).name)
        if not src_name or "/" in src_name or src_name in (".", ".."):
            raise gone
        with self._lock(comps), host_folder(folder, rel, gone) as src_fd:
            try:
                try:
                    os.lstat(src_name, dir_fd=src_fd)
                except FileNotFoundError:
                    raise gone from None
                pfd = self._jail.open_dir(comps[:-1], create=True)
                try:
                    with self._file_locks.hold(pfd, comps[-1]):
                        self._check(pfd, comps, expect)
                        if merge and expect.exists:
                            restore_missing(src_fd, src_name, pfd, comps[-1])
                        else:
                            move(src_fd, src_name, pfd, comps[-1])
                finally:
                    close_quietly(pfd)
            except FileExistsError:
                raise stale_preview(rel, "was created") from None
            except OSError as exc:
                raise os_error(exc, rel) from None
            except RecursionError:
                raise OperatorError(codes.ERR_IO, f"{rel} is nested too deeply to move") from None
