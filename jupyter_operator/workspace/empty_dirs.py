"""Removing the folders a write created, when undoing it leaves them empty.

A write to ``a/b/new.txt`` makes ``a/b`` when it is missing (``Workspace.write`` says how many
folders it made); undoing the write moves the file to the trash, and these folders go too,
innermost first, as long as they are empty. ``rmdir`` relative to the parent's descriptor
removes an empty folder and nothing else in one step, so a file put there meanwhile (by
anyone) keeps its folder and every folder above it; a link is never followed (``rmdir`` on a
link fails), and a folder that is or holds a reserved host folder stays.
"""

from __future__ import annotations

import os
import stat as st

from jupyter_operator.protocol import OperatorError

from .folder import Workspace
from .paths import display_path


def remove_empty_parents(ws: Workspace, path: str, count: int) -> int:
    """Remove up to ``count`` folders above ``path``, innermost first, each only while empty.

    Stops at the first folder that is not an empty folder of its own (the root and protected
    folders are never removed). Returns how many were removed; never raises for a folder that
    stays.
    """
    comps = ws._parse_target(path)
    removed = 0
    for depth in range(len(comps) - 1, max(0, len(comps) - 1 - count), -1):
        folder = comps[:depth]
        if ws.is_protected(display_path(folder)):
            break
        try:
            with ws._lock(folder), ws._jail.parent(folder) as pfd:
                info = os.lstat(folder[-1], dir_fd=pfd)
                if not st.S_ISDIR(info.st_mode):
                    break
                ws._jail.check_not_holding_reserved(info, display_path(folder))
                os.rmdir(folder[-1], dir_fd=pfd)  # fails unless empty: nothing else is lost
        except (OSError, OperatorError):
            break
        removed += 1
    return removed
