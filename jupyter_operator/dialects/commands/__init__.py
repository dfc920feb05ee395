"""The ``commands`` dialect: short slash commands (``/open notes.md#Setup``, ``/write path``,
``/undo``) and bash lines, each answered as ``re: [id] /cmd``, a system message, and ``---``
plus content when there is any. Pure: parsing, Markdown blocks and response formatting only;
the stateful session is ``jupyter_operator.engine.commands.CommandSession``.
"""

from . import codes, responses
from . import heading_blocks as blocks
from .parse import CommandError, Request, expand, parse_flags, parse_line, parse_script, parse_set

NAME = "commands"

__all__ = [
    "NAME", "CommandError", "Request", "blocks", "codes", "expand", "parse_flags", "parse_line",
    "parse_script", "parse_set", "responses",
]  # fmt: skip
