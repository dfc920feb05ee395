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
"""

from __future__ import annotations

import contextlib
import glob
import os
import site
import sys
from collections.abc import Iterable
from pathlib import Path

#: Parts of an installation the interpreter runs or reads its configuration from.
INSTALLATION_PARTS = ("bin", "lib", "lib64", "Lib", "Scripts", "include", "etc", "share",
                      "pyvenv.cfg", "conda-meta")  # fmt: skip
#: What Python runs from a folder on ``sys.path`` (or a site folder) at start-up: the two
#: customize modules in any form (``.py``, a package folder, a compiled module) and ``.pth`` files.
STARTUP_FILES = ("sitecustomize*", "usercustomize*", "*.pth")


def installation(prefix: str | os.PathLike[str]) -> list[Path]:
    """An installation folder and the parts of it Python runs code from."""
    base = Path(prefix)
    return [base, *(base / part for part in INSTALLATION_PARTS)]


def host_python_locations() -> list[Path]:
    """Every location this host's Python runs code from (see the module docstring)."""
    found: list[Path] = []
    for prefix in (sys.prefix, sys.base_prefix, sys.exec_prefix):
        found += installation(prefix)
    found.append(Path(sys.executable).parent)
    found.append(Path(os.path.realpath(sys.executable)).parent)
    with contextlib.suppress(AttributeError):  # an old virtualenv's site module has none
        found += [Path(p) for p in site.getsitepackages()]
    found.append(Path(site.getusersitepackages()))  # used by the base interpreter outside a venv
    found.append(Path(site.getuserbase()) / "bin")
    return list(dict.fromkeys(found))


def startup_folders() -> list[Path]:
    """The folders on ``sys.path``: only their start-up files are kept (see the module)."""
    return list(dict.fromkeys(Path(p) for p in sys.path if p and os.path.isabs(p)))


def kept_patterns(root: str | os.PathLike[str], locations: Iterable[str | os.PathLike[str]],
                  startup: Iterable[str | os.PathLike[str]] = ()) -> list[str]:  # fmt: skip
    """Root-anchored protected-path patterns (``/.venv``) for the ``locations`` inside ``root``
    (a real path), each as named and at its real location; the start-up files of the
    ``startup`` folders, and of a location that is the root itself. Locations outside the
    root, or above it, give none."""
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
