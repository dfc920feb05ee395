"""Error codes of string-command responses: ``ERROR(CODE): message``.

The workspace and engine raise ``OperatorError`` with ``ERR_*`` codes; a string-command response
shows the same code without its ``ERR_`` prefix (``ERR_PATH_ESCAPE`` -> ``PATH_ESCAPE``), so one
vocabulary runs from the bottom up. The codes only this dialect produces are listed here.
"""

from __future__ import annotations

USAGE = "USAGE"  # a command written the wrong way: the message shows the right way
UNKNOWN_COMMAND = "UNKNOWN_COMMAND"  # no such slash command
NOT_FOUND = "NOT_FOUND"  # a file, folder, heading, menu, action or history entry
AMBIGUOUS = "AMBIGUOUS"  # a heading title used more than once: the message lists the addresses
NO_DOCUMENT = "NO_DOCUMENT"  # /refresh or /close with nothing open
NO_HISTORY = "NO_HISTORY"  # /back with an empty back stack
NOT_MARKDOWN = "NOT_MARKDOWN"  # #block on a file that is not Markdown
BASH_UNAVAILABLE = "BASH_UNAVAILABLE"  # bash lines need the shell runner, not installed here
ACTION_FAILED = "ACTION_FAILED"  # a registered action raised
REJECTED = "REJECTED"  # the person refused the change
DENIED = "DENIED"  # the policy refuses the command
STALE = "STALE"  # the file changed after the preview was shown
INTERNAL = "INTERNAL"  # a fault of the host; never a traceback

#: Every code this dialect itself produces (the workspace's codes come through as well:
#: PATH_ESCAPE, PROTECTED_PATH, NOT_A_FILE, NOT_A_DIRECTORY, FILE_TOO_LARGE, NOT_UTF8,
#: INVALID_NOTEBOOK, UNDO_CONFLICT, IO, ...).
DIALECT_CODES = (
    USAGE, UNKNOWN_COMMAND, NOT_FOUND, AMBIGUOUS, NO_DOCUMENT, NO_HISTORY, NOT_MARKDOWN,
    BASH_UNAVAILABLE, ACTION_FAILED, REJECTED, DENIED, STALE, INTERNAL,
)  # fmt: skip

_RENAMED = {"STALE_PREVIEW": STALE, "POLICY_DENIED": DENIED}


def from_operator_code(code: str) -> str:
    """The response code for an engine or workspace ``ERR_*`` code."""
    bare = code.removeprefix("ERR_")
    return _RENAMED.get(bare, bare)
