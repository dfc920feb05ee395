"""The one exception for command faults, and the summary line every fault is reported with."""

from __future__ import annotations

SUMMARY_PREFIX = "Invalid OPERATOR_CMD"


def shown(value: str, limit: int = 40) -> str:
    """Model-supplied text for an error message: printable ASCII only, at most ``limit`` chars."""
    text = value if len(value) <= limit else value[:limit] + "..."
    if text.isascii() and text.isprintable():
        return text
    return "".join(ch if ch.isascii() and ch.isprintable() else "?" for ch in text)


def fault_summary(code: str, message: str) -> str:
    """The spec's summary for an invalid command: ``Invalid OPERATOR_CMD (CODE): message``."""
    return f"{SUMMARY_PREFIX} ({code}): {message}"


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
        """The result summary, ``Invalid OPERATOR_CMD (CODE): message``."""
        return fault_summary(self.code, self.message)

    def __str__(self) -> str:
        return self.summary

    def __repr__(self) -> str:
        return f"OperatorError({self.code!r}, {self.message!r})"
