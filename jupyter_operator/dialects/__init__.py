"""Dialects: the ways a model (or a client) can ask for work, each a pure parser and formatter.

- ``operator``: ``OPERATOR_CMD`` blocks (``jupyter_operator.protocol``).
- ``json``: JSON operations (``jupyter_operator.dialects.json_ops``): ``createFile``,
  ``readFile``, ``editFile``, ``deleteFile``, ``shell``, ``message``, answered by response events.
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
    "json": "jupyter_operator.dialects.json_ops",
    "commands": "jupyter_operator.dialects.commands",
}

#: A line that opens a fenced ``json`` block. Searched for only where "```" occurs
#: (:func:`_has_fenced_json`): the pattern alone is tried at every line of a long reply.
_FENCED_JSON = re.compile(r"^[ \t]*```[ \t]*json[ \t]*$", re.MULTILINE | re.IGNORECASE)
_JSON_TYPE = re.compile(r'^\s*[\[{]\s*(?:\{\s*)?"(?:type|operations|id)"\s*:')
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


def _has_fenced_json(text: str) -> bool:
    """Whether some line of ``text`` is what ``_FENCED_JSON`` matches (each line holding
    "```" is tried once, from its start)."""
    at = text.find("```")
    while at >= 0:
        if _FENCED_JSON.match(text, text.rfind("\n", 0, at) + 1):
            return True
        end = text.find("\n", at)
        if end < 0:
            return False
        at = text.find("```", end)
    return False


def detect(text: str) -> str:
    """``"operator"`` unless the text is clearly another dialect.

    JSON operations are recognised when the text has no ``OPERATOR_CMD`` marker and either
    starts with a JSON object or list whose first key is ``type``, ``id`` or ``operations``, or
    holds a fenced ``json`` block. String commands are recognised when the text has no
    ``OPERATOR_CMD`` marker and its first non-blank line is a slash command.
    """
    if "OPERATOR_CMD" in text:
        return "operator"
    if _JSON_TYPE.match(text) or _has_fenced_json(text):
        return "json"
    if _SLASH_COMMAND.match(text):
        return "commands"
    return "operator"


__all__ = ["DIALECTS", "detect", "module"]
