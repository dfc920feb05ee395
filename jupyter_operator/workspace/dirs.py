"""Working folders for commands: a model's relative path, checked by the jail, as a host path.

A command needs a real path for its working folder. The path is checked like any other (D1
lexical rules, protected names) and then walked from the root descriptor without following
links, so at the moment of the check it names a folder inside the root. A folder swapped for a
link after the check could still move an unsandboxed command elsewhere; the sandbox (where the
workspace is the only writable path) and the approval of the exact command cover that gap.
"""

from __future__ import annotations

from pathlib import Path

from .folder import Workspace
from .jail import close_quietly


def working_dir(ws: Workspace, path: str | None) -> Path:
    """The host path of the folder ``path`` (the root for None, ``""`` or ``.``).

    Raises ``OperatorError`` (``ERR_PATH_ESCAPE``, ``ERR_PROTECTED_PATH``, ``ERR_NOT_FOUND``,
    ``ERR_NOT_A_DIRECTORY``) whose messages never show a host path.
    """
    comps = ws._parse(path) if path not in (None, "", ".") else ()
    fd = ws._jail.open_dir(comps)
    close_quietly(fd)
    return Path(ws._jail.path, *comps)
