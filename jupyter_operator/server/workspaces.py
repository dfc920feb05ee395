"""The configured workspaces: a name for clients, a root folder for the host, one write lock each.

Clients only ever send a workspace *name*; the mapping to a folder is server configuration
(``c.OperatorExtension.workspaces``), so no request can choose a root.
"""

from __future__ import annotations

import asyncio
import os
import re
import tempfile
from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..engine import Operator, Policy, ShellPolicy
    from ..engine.live_route import LivePages, LiveRooms
    from ..workspace import Journal, Workspace

#: What a workspace name may look like (it appears in URLs, messages and logs).
NAME_PATTERN = re.compile(r"[A-Za-z0-9_.-]{1,64}")
#: Review copies kept at once (the oldest goes first; its sessions then answer not found).
MAX_REVIEWS = 100
#: A review copy's files, all together.
MAX_REVIEW_BYTES = 16 * 1024 * 1024


def resolve_roots(configured: Mapping[str, str], base: str) -> dict[str, Path]:
    """Check configured names and roots; relative roots are taken from ``base``.

    Raises ValueError on a bad name or a root that is not an existing directory, so a
    misconfigured server says so at start instead of failing on the first request.
    """
    roots: dict[str, Path] = {}
    for name, root in configured.items():
        if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
            raise ValueError(f"workspace name {name!r} must match {NAME_PATTERN.pattern}")
        path = Path(os.path.expanduser(str(root)))
        if not path.is_absolute():
            path = Path(base) / path
        if not path.is_dir():
            raise ValueError(f"workspace {name!r}: root {str(path)!r} is not a directory")
        roots[name] = path.resolve()
    return roots


class ReadWriteLock:
    """Many readers or one writer, for the requests of one workspace.

    Writers (file API writes, approvals, undo) run one at a time and never while a read runs:
    the workspace layer refuses to read a file that is swapped while it opens it, so a read
    racing an atomic replace would fail for no fault of the client. A waiting writer holds
    back new readers, so a stream of reads cannot starve it.
    """

    def __init__(self) -> None:
        self._cond = asyncio.Condition()
        self._readers = 0
        self._writing = False
        self._writers_waiting = 0

    @asynccontextmanager
    async def read(self) -> AsyncIterator[None]:
        """Hold the lock shared."""
        async with self._cond:
            await self._cond.wait_for(lambda: not self._writing and not self._writers_waiting)
            self._readers += 1
        try:
            yield
        finally:
            async with self._cond:
                self._readers -= 1
                self._cond.notify_all()

    @asynccontextmanager
    async def write(self) -> AsyncIterator[None]:
        """Hold the lock exclusively."""
        async with self._cond:
            self._writers_waiting += 1
            try:
                await self._cond.wait_for(lambda: not self._writing and not self._readers)
            finally:
                self._writers_waiting -= 1
                self._cond.notify_all()  # a cancelled writer must release waiting readers
            self._writing = True
        try:
            yield
        finally:
            async with self._cond:
                self._writing = False
                self._cond.notify_all()


#: Host extensions of the protocol the server's sessions (the panel, Ask mode) run by default:
#: the notebook cell actions, so a model can change a notebook cell by cell
#: (``c.OperatorExtension.cell_actions = False`` turns them off).
EXTENSIONS: tuple[str, ...] = ("nb",)


class WorkspaceRegistry:
    """Per configured workspace: its :class:`Workspace`, its lock and its ``Operator`` factory.

    The lock serialises every change a server request makes in one workspace (file API writes,
    approvals, undo), so two writes never interleave and a preview is never applied while
    another request is writing the same tree.
    """

    def __init__(
        self,
        roots: Mapping[str, Path],
        *,
        policy: Policy | None = None,
        protected: Iterable[str] | None = None,
        journal_dir: str | os.PathLike[str] | None = None,
        shell_policy: ShellPolicy | None = None,
        extensions: Iterable[str] = EXTENSIONS,
        allow_auto_runs: bool = False,
        notebook_cap: str | None = None,
        pages: LivePages | None = None,
        rooms: LiveRooms | None = None,
    ) -> None:
        self._roots = dict(roots)
        #: The notebooks open in pages with the extension: approved changes to them go there.
        self.pages = pages
        #: The notebooks open in collaborative rooms: approved changes to them go there.
        self.rooms = rooms
        #: Cells run in the notebook open in JupyterLab (the panel posts their outcome back);
        #: rules may run them without asking only when the server allows it.
        self.allow_auto_runs = allow_auto_runs
        self.notebook_cap = notebook_cap
        #: Host extensions of the protocol every session of this server runs.
        self.extensions: tuple[str, ...] = tuple(extensions)
        self._policy = policy
        self._shell_policy = shell_policy
        self._protected = None if protected is None else tuple(protected)
        self._journal_dir = journal_dir
        self._file_protected = self._protected_for_files()
        self._locks = {name: ReadWriteLock() for name in self._roots}
        self._workspaces: dict[str, Workspace] = {}
        self._journals: dict[str, Journal] = {}
        self._history: dict[tuple[str, str], Operator] = {}
        #: Review copies (``add_review``), oldest first: name -> the folder that holds it.
        self._reviews: dict[str, tempfile.TemporaryDirectory[str]] = {}

    def names(self) -> list[str]:
        """Configured workspace names, in configuration order (review copies are not)."""
        return [name for name in self._roots if name not in self._reviews]

    def add_review(self, files: Mapping[str, bytes]) -> str:
        """A review copy: a fresh private folder of the server's holding ``files`` (relative
        path -> bytes, each written through the workspace's jail), registered under a new
        name for the sessions planned in it. Its rules are the defaults (reads run, every
        change asks), whatever the server's; nothing of a configured workspace is read or
        written. At most ``MAX_REVIEWS`` are kept (the oldest goes); ``OperatorError`` for a
        path the jail refuses or files over ``MAX_REVIEW_BYTES``."""
        import secrets

        from ..protocol import OperatorError, codes
        from ..workspace import Workspace

        if sum(len(data) for data in files.values()) > MAX_REVIEW_BYTES:
            raise OperatorError(codes.ERR_FILE_TOO_LARGE, "a review copy holds at most "
                                f"{MAX_REVIEW_BYTES} bytes")  # fmt: skip
        folder = tempfile.TemporaryDirectory(prefix="jupyter-operator-review-")
        try:
            copy = Workspace(Path(folder.name), protected=self._file_protected,
                             notebook_cap=self.notebook_cap)  # fmt: skip
            for path, data in files.items():
                copy.write(path, data, expect=copy.snapshot(path, limit=len(data) + 1))
        except BaseException:
            folder.cleanup()
            raise
        name = f"review-{secrets.token_hex(8)}"
        self._roots[name] = Path(folder.name).resolve()
        self._locks[name] = ReadWriteLock()
        self._reviews[name] = folder
        while len(self._reviews) > MAX_REVIEWS:
            self._drop_review(next(iter(self._reviews)))
        return name

    def _drop_review(self, name: str) -> None:
        folder = self._reviews.pop(name)
        self._roots.pop(name, None)
        self._locks.pop(name, None)
        self._workspaces.pop(name, None)
        self._journals.pop(name, None)
        folder.cleanup()

    def __contains__(self, name: object) -> bool:
        return name in self._roots

    def relative_root(self, name: str, base: str | os.PathLike[str]) -> str | None:
        """Where workspace ``name`` lies under ``base`` (``.`` for ``base`` itself), as a
        ``/`` path for people; None when it lies elsewhere (an absolute path is never shown)."""
        try:
            relative = self._roots[name].relative_to(Path(base).resolve())
        except ValueError:
            return None
        return relative.as_posix() or "."

    def jails(self, path: Path) -> bool:
        """Whether a configured workspace's jail lets a change be made to the file at the
        absolute ``path``: beneath its root, by a path it accepts (no ``..``, no link, not
        protected, not the host's Python), and an existing regular file. What a kernel asks
        the server to change in a room is checked by this, as any change of a session is."""
        from ..protocol import OperatorError

        for name in self.names():
            root = Path(self._roots[name]).resolve()
            try:
                relative = path.relative_to(root).as_posix()
            except ValueError:
                continue
            try:
                workspace = self.workspace(name)
                workspace.check_changeable(relative)
                if workspace.stat(relative).is_file:
                    return True
            except OperatorError:
                continue
        return False

    def files_below(self, folder: Path) -> list[Path] | None:
        """The absolute paths of every file below the folder at the absolute ``folder``, listed
        through the jail of a configured workspace that accepts it (``Workspace.files_below``:
        links not followed, bounded as a folder delete is), or None when no workspace lists
        it. What a kernel asks about a folder's rooms is checked by this (``jails``)."""
        from ..protocol import OperatorError

        for name in self.names():
            root = Path(self._roots[name]).resolve()
            try:
                relative = folder.relative_to(root).as_posix()
            except ValueError:
                continue
            try:
                workspace = self.workspace(name)
                workspace.check_changeable(relative)
                below = workspace.files_below(relative)
            except OperatorError:
                continue
            if below is not None:
                return [root.joinpath(*found.split("/")) for found in below]
        return None

    def lock(self, name: str) -> ReadWriteLock:
        """The lock of workspace ``name`` (KeyError if unknown)."""
        return self._locks[name]

    def workspace(self, name: str) -> Workspace:
        """The jailed file access of workspace ``name``, opened on first use."""
        found = self._workspaces.get(name)
        if found is None:
            from ..workspace import Workspace

            # The journal folder is refused by its real location (Workspace's journal_dir);
            # a notebook's own policy holds for the file API's reads as for every other.
            found = self._workspaces[name] = Workspace(
                self._roots[name], protected=self._file_protected, journal_dir=self._journal_dir,
                notebook_cap=self.notebook_cap,
            )
        return found

    def journal(self, name: str) -> Journal:
        """The undo journal of workspace ``name``'s root, opened on first use (shared by the
        sessions over the root as :meth:`workspace` is)."""
        found = self._journals.get(name)
        if found is None:
            from ..workspace import Journal

            journal_dir = Path(self._journal_dir) if self._journal_dir else None
            found = self._journals[name] = Journal(self._roots[name].resolve(), journal_dir)
        return found

    def policy_of(self, name: str) -> Policy | None:
        """The rules a session of workspace ``name`` decides by (None for a review copy, where
        everything asks): what a read made for a person's request must respect too."""
        return None if name in self._reviews else self._policy

    def _protected_for_files(self) -> tuple[str, ...]:
        from ..workspace import DEFAULT_PROTECTED

        return tuple(DEFAULT_PROTECTED if self._protected is None else self._protected)

    def new_operator(self, name: str, folder: str | None = None) -> Operator:
        """A fresh engine session on workspace ``name`` (duplicate ids are tracked per session).

        A session over the root shares the workspace's open file access (:meth:`workspace`,
        made with the same protected paths, journal and notebook cap): opening one per reply
        cost more than planning the reply.

        ``folder`` (relative to the workspace root) narrows the session to a subfolder, e.g. a
        notebook's own folder, so the panel and the notebook's kernel read the same relative
        paths alike. It is checked through the jail (no ``..``, no links, not protected, an
        existing directory); OperatorError otherwise.
        """
        from ..engine import Operator
        from ..execution import DeferredRunner
        from ..protocol import OperatorError, codes
        from ..workspace.paths import parse_path

        root = self._roots[name]
        shared = None
        if folder:
            parts = parse_path(folder)
            if parts:
                if not self.workspace(name).stat(folder).is_dir:
                    raise OperatorError(codes.ERR_NOT_A_DIRECTORY, "the folder is not a directory")
                root = root.joinpath(*parts)
                # The jail walked it without links; resolving must land inside the root still.
                if not root.resolve().is_relative_to(self._roots[name]):
                    raise OperatorError(codes.ERR_PATH_ESCAPE, "the folder leaves the workspace")
        journal = None
        if root == self._roots[name]:
            shared, journal = self.workspace(name), self.journal(name)
        operator = Operator(
            root,
            policy=None if name in self._reviews else self._policy,  # a review asks
            journal_dir=self._journal_dir,
            protected=self._protected,
            extensions=self.extensions,
            runner=DeferredRunner(allows_auto=self.allow_auto_runs),
            notebook_cap=self.notebook_cap,
            workspace=shared,
            journal=journal,
        )
        if self._shell_policy is not None:
            operator.shell_policy = self._shell_policy
        operator.pages, operator.rooms = self.pages, self.rooms
        return operator

    def history_operator(self, name: str, folder: str | None = None) -> Operator:
        """The long-lived session used for undo and history (the journal is shared on disk).

        A subfolder has a journal of its own (as a notebook kernel rooted there has), so its
        history is asked for with the same ``folder`` the sessions were created with.
        """
        key = (name, folder or "")
        found = self._history.get(key)
        if found is None:
            found = self._history[key] = self.new_operator(name, folder)
        return found

    def close(self) -> None:
        """Release open directory descriptors."""
        for workspace in self._workspaces.values():
            workspace.close()
        self._workspaces.clear()
        for journal in self._journals.values():
            journal.close()
        self._journals.clear()
        for operator in self._history.values():
            close_operator(operator)
        self._history.clear()
        for name in list(self._reviews):
            self._drop_review(name)


def close_operator(operator: Operator) -> None:
    """Release the directory descriptor an engine session holds.

    Callers make sure no request is using the session any more.
    """
    operator.close()
