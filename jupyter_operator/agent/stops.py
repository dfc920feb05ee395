"""Why a reply without commands ended a turn, and what the loop answers.

A reply with no ``OPERATOR_CMD`` block used to end the run as done. It often is not: the reply
was empty, promised to act ("Sure, I'll create hello.txt now.") without a block, was cut off at
the length limit, refused, or asked the person a question; or the model used its own
tool-call format (``protocol.leaks``; the engine plans those calls as translated items). Each
is classified, recorded in the transcript, and answered: one short corrective turn for an
empty reply, a promise or a cut-off reply (as a coding agent retries an unexpected stop), a
clean stop with the reason for a refusal or a question.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from ..engine import DecidableRun

Kind = Literal["done", "empty", "promise", "cut_off", "refusal", "question", "foreign_tool_call"]

#: Kinds answered with one corrective turn (twice in a row: the run stops with the reason).
CORRECTED: frozenset[str] = frozenset({"empty", "promise", "cut_off"})

CORRECTIONS: dict[str, str] = {
    "empty": "Your reply was empty. Go on with the task: send the OPERATOR_CMD blocks of the next "
    "step, or say in words that the task is done.",
    "promise": "Your reply says what you will do, but it has no OPERATOR_CMD block, so nothing "
    "was done. Send the block(s) now.",
    "cut_off": "Your reply was cut off at the length limit before a complete OPERATOR_CMD block. "
    "Send the next step again, shorter: one block per step, a large file in parts "
    "(fs.write, then fs.insertRegion or fs.applyEdits).",
}

_REFUSAL = re.compile(
    r"\b(I can(?:not|'t|’t) (?:help|assist|do|comply|complete)|I(?:'m| am) (?:sorry|unable|not "
    r"able)|I won(?:'t|’t)|I must decline)\b",
    re.I,
)  # fmt: skip
_PROMISE = re.compile(
    r"\b(I(?:'ll|’ll| will| am going to|'m going to|’m going to)|let me|let's|next,? I|"
    r"now I(?:'ll|’ll| will)?|I shall)\b",
    re.I,
)  # fmt: skip
_DONE = re.compile(r"\b(done|finished|complete[d]?|all set|no (?:more|further) changes)\b", re.I)


@dataclass(frozen=True)
class StopClass:
    """The kind of stop, and what the loop shows or sends (a question's text, a correction)."""

    kind: Kind
    text: str = ""


def classify(reply: str, finish_reason: str | None) -> StopClass:
    """Classify a reply that holds no ``OPERATOR_CMD`` block (leaked calls aside)."""
    stripped = reply.strip()
    if not stripped and finish_reason == "script_end":  # a scripted model ran out: done
        return StopClass("done")
    if not stripped:
        return StopClass("empty", CORRECTIONS["empty"])
    if finish_reason == "length":
        return StopClass("cut_off", CORRECTIONS["cut_off"])
    lines = [line.strip() for line in stripped.splitlines() if line.strip()]
    if _REFUSAL.search(stripped[:400]):
        return StopClass("refusal", stripped[:500])
    if lines[-1].endswith("?"):
        return StopClass("question", lines[-1][:500])
    if _PROMISE.search(stripped) and not _DONE.search(stripped):
        return StopClass("promise", CORRECTIONS["promise"])
    return StopClass("done")


STOP_WORDS = {"empty": "empty", "promise": "a promise with no command",
              "cut_off": "cut off at the length limit"}  # fmt: skip


def finished_after(turns: int, replies: int = 0) -> str:
    """``2 turns``, or ``2 turns (3 replies: 1 cut off inside a command block was continued)``
    when the model gave more replies than there were turns."""
    text = f"{turns} turn{'s' * (turns != 1)}"
    continued = replies - turns
    if continued > 0:
        text += (f" ({replies} replies: {continued} cut off inside a command block "
                 f"{'was' if continued == 1 else 'were'} continued)")  # fmt: skip
    return text


class TurnEnd:
    """The loop's answer to a reply: corrective turns, leaked calls, and how a run ends.

    ``record(type, **fields)`` adds to the transcript, ``notice(turn, text)`` tells the
    displays. One instance per run (it remembers whether the last turn was only leaked calls).
    """

    def __init__(self, record: Callable[..., Any], notice: Callable[[int, str], Any]) -> None:
        self._record = record
        self._notice = notice
        self._leaked_before = False

    def without_blocks(self, turn: int, reply: str, finish: str | None, corrected: bool,
                       replies: int = 0) -> str | tuple[str, str]:  # fmt: skip
        """A reply without blocks (nor calls in the model's own format): the message of a
        corrective turn, or ``(reason, message)`` to end the run with (``replies``: the
        model's replies so far, more than the turns when a cut-off reply was continued)."""
        self._leaked_before = False
        found = classify(reply, finish)
        self._record("stop_class", turn=turn, kind=found.kind)
        if found.kind in CORRECTED and not corrected:
            self._notice(turn, f"Unexpected stop ({found.kind}); asking the model once more.")
            return found.text
        if found.kind == "question":
            return "question", f"The model asks: {found.text}"
        if found.kind == "refusal":
            return "refusal", f"The model declined: {found.text}"
        if found.kind in CORRECTED:
            return found.kind, f"Stopped: the model's reply was {STOP_WORDS[found.kind]} twice."
        return "done", f"The model finished after {finished_after(turn, replies)}."

    def planned(self, turn: int, run: DecidableRun) -> None:
        """Record the calls in the model's own format (the engine's translated items)."""
        foreign = [item for item in run.items if item.foreign is not None]
        for item in foreign:
            f = item.foreign
            self._record("foreign_tool_call", turn=turn, id=f.id, family=f.family, name=f.name,
                         translation=f.block or "")  # fmt: skip
        if foreign and len(foreign) == len(run.items):
            self._record("stop_class", turn=turn, kind="foreign_tool_call")
        if foreign:
            self._notice(turn, "The model used its own tool-call format: its calls are shown "
                         "translated to OPERATOR_CMD blocks; the model is told.")  # fmt: skip

    def settled(self, run: DecidableRun) -> tuple[str, str] | bool:
        """After a turn's decisions: ``(reason, message)`` when a second turn in a row was only
        calls in the model's own format that nobody approved; else whether this one was."""
        leaked = bool(run.items) and all(
            item.foreign is not None and item.status not in ("applied", "done")
            for item in run.items
        )  # fmt: skip
        if leaked and self._leaked_before:
            return "foreign_tool_calls", ("Stopped: the model kept using its own tool-call "
                                          "format instead of OPERATOR_CMD blocks.")  # fmt: skip
        self._leaked_before = leaked
        return leaked
