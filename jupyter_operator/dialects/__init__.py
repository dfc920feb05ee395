"""Dialects: the ways a model (or a person) can ask for file operations.

Each dialect is a pure package (no file access): a parser and a response formatter. The engine
plans, previews, asks and applies in one way for all of them.

``DIALECTS`` maps a dialect's name to its module (imported on first use, so importing this
registry stays cheap); ``detect(text)`` names the dialect a text is written in.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator, Mapping
from types import ModuleType

#: Dialect name -> the module that holds its parser and formatter.
_MODULES = {
    "operator": "jupyter_operator.protocol",
    "commands": "jupyter_operator.dialects.commands",
}

# A string-commands script starts (after blank lines) with a slash command such as "/open".
_COMMAND_START = re.compile(
    r"\A\s*(?:\[[A-Za-z0-9_-]{1,32}\]\s*)?/[A-Za-z][\w.-]*(?:[ \t]|$)", re.M
)


class _Registry(Mapping[str, ModuleType]):
    """A read-only mapping that imports a dialect's module when it is first looked up."""

    def __getitem__(self, name: str) -> ModuleType:
        return importlib.import_module(_MODULES[name])

    def __iter__(self) -> Iterator[str]:
        return iter(_MODULES)

    def __len__(self) -> int:
        return len(_MODULES)


DIALECTS: Mapping[str, ModuleType] = _Registry()


def detect(text: str) -> str:
    """The dialect ``text`` is written in: ``"operator"`` unless it is clearly another one.

    A text is string commands when its first non-blank line is a slash command and it holds
    no ``OPERATOR_CMD`` marker.
    """
    if "OPERATOR_CMD" not in text and _COMMAND_START.match(text):
        return "commands"
    return "operator"


__all__ = ["DIALECTS", "detect"]
