"""The one exception for command faults, and the summary line every failure is reported with.

Every ``ok: false`` summary is built here, as ``<Prefix> (CODE): message``: the spec's
``Invalid OPERATOR_CMD`` for a faulty command, and three host prefixes for what was not the
command's fault (a person's refusal, the policy, a file changed after its preview, an undo).
"""

from __future__ import annotations

import re

from . import codes

SUMMARY_PREFIX = "Invalid OPERATOR_CMD"

#: Summary prefixes for failures that are not a fault of the command itself.
PREFIXES: dict[str, str] = {
    codes.ERR_REJECTED: "Rejected",
    codes.ERR_POLICY_DENIED: "Denied",
    codes.ERR_STALE_PREVIEW: "Not applied",
    codes.ERR_BASE_REJECTED: "Not applied",
    codes.ERR_PAGE_UNAVAILABLE: "Not applied",
    codes.ERR_UNDONE: "Undone",
    # A cell that ran and failed: the command was fine, the code was not.
    codes.ERR_CELL_ERROR: "Cell failed",
    codes.ERR_CELL_TIMEOUT: "Cell failed",
    codes.ERR_CELL_INTERRUPTED: "Cell failed",
    codes.ERR_KERNEL_DIED: "Cell failed",
    codes.ERR_KERNEL_UNAVAILABLE: "Not run",
    codes.ERR_NOTEBOOK_POLICY: "Denied",
}

_CODE_IN_SUMMARY = re.compile(
    r"^(?:Invalid OPERATOR_CMD|Rejected|Denied|Not applied|Undone|Cell failed|Not run)"
    r" \((ERR_[A-Z0-9_]+)\): "
)


def shown(value: str, limit: int = 40) -> str:
    """Model-supplied text for an error message: printable ASCII only, at most ``limit`` chars."""
    text = value if len(value) <= limit else value[:limit] + "..."
    if text.isascii() and text.isprintable():
        return text
    return "".join(ch if ch.isascii() and ch.isprintable() else "?" for ch in text)


def fault_summary(code: str, message: str) -> str:
    """The summary of a failure: ``Invalid OPERATOR_CMD (CODE): message`` (or a host prefix)."""
    return f"{PREFIXES.get(code, SUMMARY_PREFIX)} ({code}): {message}"


def code_in_summary(summary: str) -> str | None:
    """The code of a summary made by :func:`fault_summary` (for result text read back only)."""
    match = _CODE_IN_SUMMARY.match(summary)
    return match.group(1) if match else None


class OperatorError(Exception):
    """A command fault found after scanning (raised by the workspace and the engine).

    Parameters
    ----------
    code
        One of the ``ERR_*`` constants of :mod:`jupyter_operator.protocol.codes`.
    message
        What the model should fix. It never contains an absolute host path.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message

    @property
    def summary(self) -> str:
        """The result summary, ``Invalid OPERATOR_CMD (CODE): message`` (see ``fault_summary``)."""
        return fault_summary(self.code, self.message)

    def __str__(self) -> str:
        return self.summary

    def __repr__(self) -> str:
        return f"OperatorError({self.code!r}, {self.message!r})"
