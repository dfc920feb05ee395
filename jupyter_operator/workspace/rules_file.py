"""Reading a policy rules file, on the host side, and checking it lies outside a workspace.

The person names the file (``--policy FILE``, ``%operator policy load FILE``, the server's
``policy_file``); a model never does. It must sit outside every workspace it governs: a file a
model can write would let the model approve its own changes.
"""

from __future__ import annotations

import os
import stat as st
from pathlib import Path

#: Rules files larger than this are refused (a rules file is a few lines).
MAX_RULES_BYTES = 256 * 1024


def read_rules_file(path: str | os.PathLike[str]) -> tuple[str, str]:
    """``(real_path, text)`` of a rules file; OSError (one-line message) when unusable."""
    real = os.path.realpath(os.path.expanduser(os.fspath(path)))
    name = Path(real).name
    info = os.stat(real)
    if not st.S_ISREG(info.st_mode):
        raise OSError(f"rules file {name} is not a regular file")
    if info.st_size > MAX_RULES_BYTES:
        raise OSError(f"rules file {name} is larger than {MAX_RULES_BYTES} bytes")
    with open(real, "rb") as handle:
        data = handle.read(MAX_RULES_BYTES + 1)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise OSError(f"rules file {name} is not UTF-8 text") from None
    return real, text


def inside(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> bool:
    """True when ``path`` is ``root`` or lies below it, compared by device and inode.

    By identity, not by name, so a differently spelt root (case, links) still counts.
    """
    try:
        top = os.stat(root)
    except OSError:
        return False
    current = os.path.realpath(os.fspath(path))
    while True:
        try:
            info = os.stat(current)
        except OSError:
            info = None
        if info is not None and (info.st_dev, info.st_ino) == (top.st_dev, top.st_ino):
            return True
        parent = os.path.dirname(current)
        if parent == current:
            return False
        current = parent
