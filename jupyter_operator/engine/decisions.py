"""What deciding an item did: the value ``Run.approve`` and ``Run.reject`` return."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from .items import Item, Status

Outcome = Literal["applied", "rejected", "failed", "stale", "denied", "already_decided"]

# The outcome of a decision, by the item's status after it.
_OUTCOMES: dict[str, Outcome] = {
    "applied": "applied",
    "done": "applied",  # an approved read ran
    "rejected": "rejected",
    "failed": "failed",
    "error": "failed",
    "stale": "stale",
    "denied": "denied",
}


REASON_LIMIT = 500


def reason_note(reason: str | None) -> str:
    """A person's rejection reason as `` Reason: ...`` for a result, or ``""`` when blank.

    One line of printable ASCII, at most ``REASON_LIMIT`` characters: the reason goes into text
    the model reads and a terminal may print (an OPERATOR_RESULT summary, a JSON error, a bash
    answer), so a newline must not start a forged block and an escape must not reach a
    terminal. Every kind of run uses this one helper.
    """
    if not reason or not reason.strip():
        return ""
    flat = "".join(c if " " <= c <= "~" else "?" for c in " ".join(reason.split()))
    cut = flat[:REASON_LIMIT] + ("..." if len(flat) > REASON_LIMIT else "")
    return f" Reason: {cut}"


@dataclass(frozen=True)
class Decision:
    """The outcome of one approve or reject call.

    ``outcome`` says what the call did: ``applied`` (the change was written, or the read ran),
    ``rejected``, ``failed`` (the command failed when carried out), ``stale`` (the file changed
    since the preview: nothing written), ``denied`` or ``already_decided`` (the item had been
    decided before: nothing was done). ``status`` is the item's status after the call and
    ``message`` one plain sentence for a person.
    """

    id: str
    outcome: Outcome
    status: Status
    item: Item
    message: str

    def __repr__(self) -> str:
        return f"<Decision {self.id} {self.outcome}: {self.message}>"

    @property
    def ok(self) -> bool:
        """True when the call did what was asked (applied, or rejected)."""
        return self.outcome in ("applied", "rejected")

    @classmethod
    def made(cls, item: Item) -> Decision:
        """The decision just taken on ``item`` (its status tells what happened)."""
        outcome = _OUTCOMES.get(item.status, "failed")
        if outcome == "applied":
            message = f"{item.id}: {item.result.summary if item.result else item.summary}."
        else:
            message = f"{item.id}: {item.summary}"
        return cls(item.id, outcome, item.status, item, _sentence(message))

    @classmethod
    def already(cls, item: Item) -> Decision:
        """A decision asked for an item decided before: nothing was done."""
        message = f"{item.id} was already decided ({item.status}); nothing was done."
        return cls(item.id, "already_decided", item.status, item, message)


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return text if text.endswith((".", "!", "?")) else text + "."
