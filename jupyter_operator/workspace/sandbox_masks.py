"""What the shell sandbox must cover inside the workspace it binds read-write.

The sandbox binds the whole workspace root writable, so a command (say ``python3 -m unittest``
running a test file a model wrote) could otherwise write ``.git/hooks/pre-commit``, which every
file action refuses, or read ``.ssh`` or ``.jupyter`` in a home-folder workspace. Before a
command runs, one walk finds what a file action may not read: every protected path (``.git``,
``.jupyter``, ``.ipython``, a host's own patterns), the credential stores by name and every
location reserved by real location, such as Jupyter's runtime folder. Each is hidden behind an
empty read-only folder or an empty file, as ``fs.read`` refuses it. The places the host's Python
runs code from (``host_python.py``: a ``.venv`` in the workspace, the user's site-packages) are
bound read-only, and where one does not exist yet, the nearest folder above it that does (below
the root). The walk never follows a link and does not enter what it covers; above ``max_dirs``
folders it refuses (``ERR_TOO_MANY_ENTRIES``) rather than run a command it could not check.

A notebook's own policy (``notebook_guard``) holds in the sandbox too: a notebook that carries
``metadata.jupyter_operator`` is bound read-only (a command can neither change, delete nor
replace it, so it cannot lift its policy), and one set to ``off`` is hidden. A notebook too large
to read for its policy is hidden (it is not exposed unchecked).

A file open in a JupyterLab page or a collaborative room (``live``: the engine asks its pages
and rooms, ``engine/live_route.open_files``) is bound read-only too: the page or the room holds
the person's working copy, and a write beneath it would be lost at the page's next save or
reload the room for every collaborator. It is bound only when the walk finds it as a regular
file (never through a link), so no path named there exposes anything the walk would not.

Protected paths a command creates while it runs (a new ``.git`` in a new folder) are not
covered: binds are set up before the command starts. Nor is a new notebook a command writes.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection
from dataclasses import dataclass, field

from jupyter_operator.notebooks import teacher
from jupyter_operator.protocol import OperatorError, codes

from .budget import MAX_PLANNED_BYTES
from .errors import FileTooLarge
from .jail import O_DIR, O_READ, Jail, close_quietly, read_bounded
from .notebook_guard import is_notebook_name
from .out_of_reach import CREDENTIAL_NAMES
from .paths import ProtectedMatcher

#: Folders walked at most before a command is refused (about half a second of ``scandir``).
MAX_DIRS = 50_000

_SECRET_NAMES = frozenset(name.casefold() for name in CREDENTIAL_NAMES)


@dataclass
class SandboxMasks:
    """Workspace-relative paths (``/``-joined): bound read-only, or hidden (with is-a-folder)."""

    read_only: list[str] = field(default_factory=list)
    hidden: list[tuple[str, bool]] = field(default_factory=list)
    #: Notebooks that carry their own policy (among the two above): a notebook in this list
    #: after a command and not before is one the command gave a policy.
    policy_notebooks: list[str] = field(default_factory=list)
    #: Files open in a page or a room that are bound read-only (among ``read_only``).
    live: list[str] = field(default_factory=list)


def sandbox_masks(jail: Jail, protected: ProtectedMatcher,
                  host_python: ProtectedMatcher | None = None, *, max_dirs: int = MAX_DIRS,
                  max_depth: int = 64, notebook_cap: str | None = None,
                  live: Collection[str] = ()) -> SandboxMasks:  # fmt: skip
    """Walk the whole workspace once and say what the sandbox must cover (see the module);
    ``notebook_cap`` caps every notebook's own policy, as the workspace's does; ``live``
    names (relative, ``/``-joined) the files open in a page or a room."""
    live = frozenset(live)
    host_python = host_python or ProtectedMatcher(())
    out = SandboxMasks()
    stack: list[tuple[int, tuple[str, ...]]] = [(os.dup(jail.fd), ())]
    seen = 0
    try:
        while stack:
            fd, here = stack.pop()
            try:
                with os.scandir(fd) as it:
                    entries = sorted((e.name, e.is_dir(follow_symlinks=False), e.is_symlink())
                                     for e in it)  # fmt: skip
                for name, is_dir, is_link in entries:
                    if is_link:
                        continue  # never followed, so never a way in
                    child = (*here, name)
                    rel = "/".join(child)
                    if name.casefold() in _SECRET_NAMES:
                        out.hidden.append((rel, is_dir))
                    elif protected.child_matches(child):
                        out.hidden.append((rel, is_dir))  # as fs.read refuses it
                    elif host_python.child_matches(child):
                        out.read_only.append(rel)
                    elif not is_dir:
                        if _reserved(jail, os.lstat(name, dir_fd=fd)):
                            out.hidden.append((rel, False))
                            continue
                        covered = len(out.read_only) + len(out.hidden)
                        if is_notebook_name(name):
                            _cover_notebook(fd, name, rel, notebook_cap, out)
                        if rel in live and len(out.read_only) + len(out.hidden) == covered:
                            out.read_only.append(rel)  # hidden by its own policy stays hidden
                            out.live.append(rel)
                        elif rel in live and rel in out.read_only:
                            out.live.append(rel)
                    else:
                        seen += 1
                        if seen > max_dirs or len(child) > max_depth:
                            raise _too_big(max_dirs, max_depth)
                        _enter(jail, fd, name, child, stack, out)
            finally:
                close_quietly(fd)
    finally:
        for fd, _ in stack:
            close_quietly(fd)
    return out


def _cover_notebook(fd: int, name: str, rel: str, cap: str | None, out: SandboxMasks) -> None:
    """Bind a notebook read-only when it carries its own policy, hide it when that is off."""
    try:
        nfd = os.open(name, O_READ, dir_fd=fd)
    except OSError:  # a link (O_NOFOLLOW), vanished or unreadable: no bytes to expose
        return
    try:
        info = os.fstat(nfd)
        if not stat.S_ISREG(info.st_mode):
            return
        data = read_bounded(nfd, info.st_size, MAX_PLANNED_BYTES, rel)
    except FileTooLarge:
        out.hidden.append((rel, False))
        return
    except OperatorError:
        return
    finally:
        close_quietly(nfd)
    # Only a file that names the key (plainly or through a JSON escape) can carry a policy, in
    # UTF-8; JSON in UTF-16 or UTF-32 (json.loads reads those too) always holds NUL bytes.
    if b"jupyter_operator" not in data and b"\\u" not in data and b"\0" not in data:
        return
    doc = teacher.parse(data)
    if teacher.block_of(doc) is None:
        return
    out.policy_notebooks.append(rel)
    level = teacher.level_of_parsed(doc, cap)
    if level is not None and not teacher.allows(level, "read"):
        out.hidden.append((rel, False))
    else:
        out.read_only.append(rel)


def _reserved(jail: Jail, info: os.stat_result) -> bool:
    return (info.st_dev, info.st_ino) in jail.reserved


def _enter(jail: Jail, fd: int, name: str, child: tuple[str, ...],
           stack: list[tuple[int, tuple[str, ...]]], out: SandboxMasks) -> None:  # fmt: skip
    try:
        cfd = os.open(name, O_DIR, dir_fd=fd)
    except OSError:  # swapped for a link (O_NOFOLLOW), vanished or unreadable: nothing to bind
        return
    if _reserved(jail, os.fstat(cfd)):
        close_quietly(cfd)
        out.hidden.append(("/".join(child), True))
        return
    stack.append((cfd, child))


def _too_big(max_dirs: int, max_depth: int) -> OperatorError:
    return OperatorError(
        codes.ERR_TOO_MANY_ENTRIES,
        f"the workspace holds more than {max_dirs} folders (or is nested deeper than "
        f"{max_depth}); a command runs only where the sandbox can check every folder for "
        f"protected paths. Use a smaller workspace (a project folder, not the home folder).",
    )


def nearest_existing(jail: Jail, patterns: list[str]) -> list[str]:
    """For each root-anchored pattern (``/a/b/c``, no wildcards) whose path does not exist, the
    deepest folder above it that does, below the root (``a``); never following a link."""
    out: list[str] = []
    for pattern in patterns:
        comps = [c for c in pattern.split("/") if c]
        if not comps or any(ch in c for c in comps for ch in "*?["):
            continue  # start-up files at the root: no folder to bind
        fd = os.dup(jail.fd)
        depth = 0
        try:
            for comp in comps:
                try:
                    nfd = os.open(comp, O_DIR, dir_fd=fd)
                except OSError:
                    break
                close_quietly(fd)
                fd, depth = nfd, depth + 1
        finally:
            close_quietly(fd)
        if 0 < depth < len(comps):
            out.append("/".join(comps[:depth]))
    return list(dict.fromkeys(out))
