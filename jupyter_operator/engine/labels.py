"""What a person reads about an item: one badge word per outcome, and plain sentences.

The model reads results in its own format (``Invalid OPERATOR_CMD (ERR_X): ...``,
``ERROR(CODE): ...``); a person reads the same outcome as a badge from ``BADGES`` and the
message as a sentence (``person_text``). Every Python front (the command line, the notebook
cards, the kernel's status text) takes its words from here; the panel's twin table is
``STATUS_LABELS`` in ``labextension/src/state.ts`` (tests check the two are the same).
"""

from __future__ import annotations

import re
from typing import Any

#: The badge of each item status. One word for every outcome kind:
#: ``Invalid`` the block failed validation (the model wrote it wrong), ``Failed`` a valid
#: command failed when it was planned or run, ``Denied`` a rule refused it, ``Rejected`` a
#: person refused it, ``Stale`` the file changed after its preview, ``Undone`` a person undid it.
BADGES: dict[str, str] = {
    "pending": "Waiting for you",
    "waiting": "Waiting for an earlier change",
    "done": "Done",
    "applied": "Applied",
    "error": "Invalid",
    "failed": "Failed",
    "denied": "Denied",
    "rejected": "Rejected",
    "stale": "Stale",
    "undone": "Undone",
    "running": "Running",
}

# The model's prefixes: ``Invalid OPERATOR_CMD (ERR_X): `` (and the host's ``Rejected``,
# ``Denied``, ``Not applied``, ``Undone``), and the string commands' ``ERROR(CODE): ``.
_MODEL_PREFIX = re.compile(
    r"^(?:(?:Invalid OPERATOR_CMD|Rejected|Denied|Not applied|Undone|Cell failed|Not run)"
    r" \(ERR_[A-Z0-9_]+\)"
    r"|ERROR\([A-Z0-9_]+\)): "
)


def badge(status: str) -> str:
    """The badge word of an item status (the status itself for one this table lacks)."""
    return BADGES.get(status, status)


def sentence(text: str) -> str:
    """``text`` ending with a full stop. Its first letter is left alone: messages often start
    with a path or an action name (``notes does not exist``, ``fs.delete is not allowed``)."""
    text = text.strip()
    return text if not text or text[-1] in ".!?)" else text + "."


def person_text(summary: str) -> str:
    """A result summary as a person reads it: the message without the model's prefix and code.

    ``Invalid OPERATOR_CMD (ERR_NOT_FOUND): nothing to undo in this workspace.`` becomes
    ``nothing to undo in this workspace.``; a summary in no model format is left as it is.
    """
    match = _MODEL_PREFIX.match(summary)
    return sentence(summary[match.end() :]) if match else summary


def outcome_line(item: Any) -> str:
    """``Badge: what happened`` for one item (its result when decided, else its summary)."""
    result = getattr(item, "result", None)
    summary = result.summary if result is not None else item.summary
    return f"{badge(item.status)}: {person_text(summary)}"


#: What a reply without commands was searched for (the Operator dialect).
NO_BLOCKS = (
    "No OPERATOR_CMD blocks found (looked for blocks of the Operator dialect: a line "
    "OPERATOR_CMD, key: value lines, a line END_OPERATOR_CMD)."
)


def cut_warning(truncated_chars: int, unread_markers: int) -> str:
    """What a person is told when the reply was longer than the scan window ("" if it was not).

    With ``OPERATOR_CMD`` markers in the cut part this is a warning: those commands did not run
    (the results ask the model to send them again).
    """
    if unread_markers:
        many = unread_markers != 1
        return (
            f"This reply is longer than the 200,000 characters that are scanned: the first "
            f"{truncated_chars:,} characters were not read, and they hold {unread_markers} "
            f"OPERATOR_CMD marker{'s' * many} whose command{'s' * many} did not run. The "
            f"results ask the model to send {'them' if many else 'it'} again."
        )
    if truncated_chars:
        return (
            f"Only the last 200,000 characters were scanned ({truncated_chars:,} characters "
            "cut from the start, with no OPERATOR_CMD marker in them)."
        )
    return ""
