"""Where the host's Python runs code from: never changed through a workspace.

A ``.pth`` file in a site-packages folder, a ``sitecustomize.py`` on ``sys.path`` or a changed
``pyvenv.cfg`` runs, unsandboxed, at the next start of the host's Python (the server, the
person's next ``jupyter lab``). When the virtual environment lies inside the workspace (a
``.venv`` in the project, the home folder as the workspace and ``~/.local/lib/pythonX/site-
packages``), a file action or a sandboxed command could plant one. So every such location
inside the workspace is kept from changes: file actions refuse to write, move or delete there
(``ERR_PROTECTED_PATH``), and the sandbox binds it read-only. Reading stays allowed.

The locations are this interpreter's installations (``sys.prefix``, ``sys.base_prefix``,
``sys.exec_prefix``: the whole folder, and its ``bin``, ``lib``, ``pyvenv.cfg`` ... parts for
an installation that is the workspace itself), the folder of the interpreter, the site-packages
folders (the user's one included, existing or not), and any a host adds (a kernel's own
environment). Each is taken both as named and at its real location, so a link in front of a
virtual environment changes nothing. Where a location is the workspace root itself, the files
Python runs from such a folder at start-up are kept instead (``sitecustomize``,
``usercustomize``, ``*.pth``).

Other folders on ``sys.path`` (an editable install's ``src/``, the project itself) are the
person's own code, which a model is there to change with their approval: only their start-up
files are kept, since Python imports those at every start without anyone running them.

Resolving every location's real path costs about a millisecond (a ``realpath`` walks each
component), and every engine session opens a workspace: so :func:`kept_patterns` remembers its
answer per process, and answers anew only when the root or a location now stands for another
file or folder than when it was resolved (``os.stat`` of each, links followed), or appeared or
went away. A kept location and every folder above it are refused to file actions and bound
read-only in the sandbox, so nothing inside the workspace can move one to another inode's place
unnoticed. An absent location's real path is its nearest existing folder's plus the rest, so
for one the stat is of that folder.
"""

from __future__ import annotations

import contextlib
import glob
import os
import site
import sys
import threading
from collections.abc import Iterable
from pathlib import Path

#: Parts of an installation the interpreter runs or reads its configuration from.
INSTALLATION_PARTS = ("bin", "lib", "lib64", "Lib", "Scripts", "include", "etc", "share",
                      "pyvenv.cfg", "conda-meta")  # fmt: skip
#: Answers of :func:`kept_patterns` kept per process (the oldest is forgotten first).
MAX_REMEMBERED = 64
#: What Python runs from a folder on ``sys.path`` (or a site folder) at start-up: the two
#: customize modules in any form (``.py``, a package folder, a compiled module) and ``.pth`` files.
STARTUP_FILES = ("sitecustomize*", "usercustomize*", "*.pth")


def installation(prefix: str | os.PathLike[str]) -> list[Path]:
    """An installation folder and the parts of it Python runs code from."""
    base = Path(prefix)
    return [base, *(base / part for part in INSTALLATION_PARTS)]


def host_python_locations() -> list[Path]:
    """Every location this host's Python runs code from (see the module docstring).

    Made once per process while the interpreter's prefixes, its executable (and what that
    resolves to) and its site folders stay as they are.
    """
    user_site, user_base = site.getusersitepackages(), site.getuserbase()
    site_folders: tuple[str, ...] = ()
    with contextlib.suppress(AttributeError):  # an old virtualenv's site module has none
        site_folders = tuple(site.getsitepackages())
    key = (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.executable,
           _identity(sys.executable), site_folders, user_site, user_base)  # fmt: skip
    with _REMEMBERED_GUARD:
        found = _LOCATIONS.get(key)
    if found is None:
        found = tuple(_locations(site_folders, user_site, user_base))
        with _REMEMBERED_GUARD:
            if len(_LOCATIONS) >= MAX_REMEMBERED:
                _LOCATIONS.clear()
            _LOCATIONS[key] = found
    return list(found)


def _locations(site_folders: tuple[str, ...], user_site: str, user_base: str) -> list[Path]:
    found: list[Path] = []
    for prefix in (sys.prefix, sys.base_prefix, sys.exec_prefix):
        found += installation(prefix)
    found.append(Path(sys.executable).parent)
    found.append(Path(os.path.realpath(sys.executable)).parent)
    found += [Path(p) for p in site_folders]
    found.append(Path(user_site))  # used by the base interpreter outside a venv
    found.append(Path(user_base) / "bin")
    return list(dict.fromkeys(found))


def startup_folders() -> list[Path]:
    """The folders on ``sys.path``: only their start-up files are kept (see the module)."""
    key = tuple(sys.path)
    found = _STARTUP.get(key)
    if found is None:
        found = tuple(dict.fromkeys(Path(p) for p in key if p and os.path.isabs(p)))
        _STARTUP.clear()  # sys.path changed: the old answer is of no more use
        _STARTUP[key] = found
    return list(found)


def kept_patterns(root: str | os.PathLike[str], locations: Iterable[str | os.PathLike[str]],
                  startup: Iterable[str | os.PathLike[str]] = ()) -> list[str]:  # fmt: skip
    """Root-anchored protected-path patterns (``/.venv``) for the ``locations`` inside ``root``
    (a real path), each as named and at its real location; the start-up files of the
    ``startup`` folders, and of a location that is the root itself. Locations outside the
    root, or above it, give none.

    Remembered per process while the root and every location still stand for the same file or
    folder (see the module docstring): each call then costs one ``stat`` a path.
    """
    key = (os.fspath(root), tuple(os.fspath(p) for p in locations),
           tuple(os.fspath(p) for p in startup))  # fmt: skip
    identity = tuple(_identity(path) for path in (key[0], *key[1], *key[2]))
    with _REMEMBERED_GUARD:
        found = _REMEMBERED.get(key)
    if found is not None and found[0] == identity:
        return list(found[1])
    patterns = _resolve_patterns(key[0], key[1], key[2])
    with _REMEMBERED_GUARD:
        _REMEMBERED.pop(key, None)
        while len(_REMEMBERED) >= MAX_REMEMBERED:
            del _REMEMBERED[next(iter(_REMEMBERED))]
        _REMEMBERED[key] = (identity, tuple(patterns))
    return patterns


_REMEMBERED: dict[tuple[str, tuple[str, ...], tuple[str, ...]],
                  tuple[tuple[tuple[int, int, int] | None, ...], tuple[str, ...]]] = {}  # fmt: skip
_REMEMBERED_GUARD = threading.Lock()
_LOCATIONS: dict[tuple[object, ...], tuple[Path, ...]] = {}
_STARTUP: dict[tuple[str, ...], tuple[Path, ...]] = {}


def _identity(path: str) -> tuple[int, int, int] | None:
    """What ``path`` stands for now, links followed: its device and inode; for an absent path,
    how many names up the nearest existing folder is and that folder's (an absent location's
    real path is that folder's plus the rest). None when nothing of it exists."""
    for up in range(4096):
        try:
            info = os.stat(path)
        except (OSError, ValueError):
            parent = os.path.dirname(path)
            if parent == path:
                return None
            path = parent
            continue
        return up, info.st_dev, info.st_ino
    return None


def _resolve_patterns(root: str, locations: Iterable[str], startup: Iterable[str]) -> list[str]:
    """:func:`kept_patterns`, resolved now."""
    real_root = os.path.realpath(os.fspath(root))
    patterns: list[str] = []
    for whole, folders in ((True, locations), (False, startup)):
        for location in folders:
            named = os.path.abspath(os.fspath(location))
            for path in dict.fromkeys((named, os.path.realpath(named))):
                rel = _inside(path, real_root)
                if rel is None:
                    continue
                if whole and rel:
                    patterns.append(rel)
                else:
                    patterns += [f"{rel}/{name}" for name in STARTUP_FILES]
    return list(dict.fromkeys(patterns))


def _inside(path: str, real_root: str) -> str | None:
    """``path`` as a root-anchored pattern (``""`` for the root itself), or None outside it."""
    if path == real_root:
        return ""
    try:
        rel = os.path.relpath(path, real_root)
    except ValueError:
        return None
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return None
    return "/" + "/".join(glob.escape(part) for part in Path(rel).parts)
