"""Dialects: the ways a model (or a client) can ask for work, each a pure parser and formatter.

- ``operator``: ``OPERATOR_CMD`` blocks (``jupyter_operator.protocol``).
- ``commands``: string commands (``jupyter_operator.dialects.commands``): ``/open notes.md#Setup``,
  ``/write path``, ``/undo``, bash lines, each answered as ``re: [id] /cmd`` and a response.

Dialect modules are loaded on first use so ``import jupyter_operator`` stays cheap.
"""

from __future__ import annotations

import importlib
import re
from types import ModuleType

#: Dialect name -> module path (loaded lazily by :func:`module`).
DIALECTS: dict[str, str] = {
    "operator": "jupyter_operator.protocol",
    "commands": "jupyter_operator.dialects.commands",
}

# A string-commands script starts (after blank lines) with a slash command such as "/open".
_SLASH_COMMAND = re.compile(
    r"\A\s*(?:\[[A-Za-z0-9_-]{1,32}\]\s*)?/[A-Za-z][\w.-]*(?:[ \t]|$)", re.M
)


def module(name: str) -> ModuleType:
    """The module of a dialect. ValueError naming the known ones for an unknown name."""
    if name not in DIALECTS:
        known = ", ".join(sorted(DIALECTS))
        raise ValueError(f"unknown dialect {name!r} (known: {known})")
    return importlib.import_module(DIALECTS[name])


def detect(text: str) -> str:
    """``"operator"`` unless the text is clearly another dialect.

    String commands are recognised when the text has no ``OPERATOR_CMD`` marker and its first
    non-blank line is a slash command.
    """
    if "OPERATOR_CMD" in text:
        return "operator"
    if _SLASH_COMMAND.match(text):
        return "commands"
    return "operator"


__all__ = ["DIALECTS", "detect", "module"]
