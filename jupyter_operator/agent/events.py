"""What an agent run reports to its displays (notebook view, panel stream, terminal).

Subscribers get these in order; every event has ``to_json()`` for the server's stream.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..engine import DecidableRun, Item


@dataclass(frozen=True)
class TurnStarted:
    """The model has been asked for turn ``turn`` (of at most ``max_turns``)."""

    turn: int
    max_turns: int
    kind: str = "turn_started"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "turn": self.turn, "max_turns": self.max_turns}


@dataclass(frozen=True)
class TextDelta:
    """A piece of the model's reply, as it arrived."""

    turn: int
    text: str
    kind: str = "delta"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "turn": self.turn, "text": self.text}


@dataclass(frozen=True)
class BlockReady:
    """A command block of the reply is complete (its card can be shown as received)."""

    turn: int
    index: int
    text: str
    kind: str = "block"

    def fields(self) -> dict[str, str]:
        """``id``, ``action`` and ``path`` as written in the block (for a "received" card)."""
        found: dict[str, str] = {}
        for line in self.text.split("\n", 12)[1:12]:
            key, sep, value = line.partition(":")
            if sep and key.strip() in ("id", "action", "path"):
                found.setdefault(key.strip(), value.strip())
        return found

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "turn": self.turn, "index": self.index, **self.fields()}


@dataclass(frozen=True)
class TurnPlanned:
    """The reply went through the engine: reads ran, mutations wait for decisions."""

    turn: int
    run: DecidableRun = field(repr=False)
    session_id: str | None = None  # set by hosts that register the run (the server)
    #: The run's tokens so far, this reply's included (its usage is known once it ended): a
    #: turn waiting for decisions shows what it cost already.
    tokens: int = 0
    #: This reply's usage as the endpoint reported it (``estimated`` for offline models).
    usage: dict[str, Any] | None = None
    #: What this reply cost when the model's price is known: an estimate when ``usage`` is
    #: (priced all the same, since ``max_cost`` counts it too; the panel labels it).
    turn_cost: float | None = None
    kind: str = "planned"

    def to_json(self) -> dict[str, Any]:
        data = {
            "kind": self.kind,
            "turn": self.turn,
            "session": self.session_id,
            "items": [item.to_dict() for item in self.run.items],
            "tokens": self.tokens,
            "usage": self.usage,
        }
        if self.turn_cost is not None:
            data["turn_cost"] = self.turn_cost
        return data


@dataclass(frozen=True)
class ItemChanged:
    """An item of this turn's run changed (a decision, an apply, a released read)."""

    turn: int
    item: Item = field(repr=False)
    kind: str = "item"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "turn": self.turn, "item": self.item.to_dict()}


@dataclass(frozen=True)
class TurnFinished:
    """Every decision of the turn is in; ``tokens`` is the run's total so far."""

    turn: int
    tokens: int
    usage: dict[str, Any] | None
    results_text: str
    kind: str = "turn_finished"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "turn": self.turn,
            "tokens": self.tokens,
            "usage": self.usage,
            "results_text": self.results_text,
        }


@dataclass(frozen=True)
class Notice:
    """Something a person should read: a continue request, a model fault, a budget."""

    turn: int
    message: str
    kind: str = "notice"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "turn": self.turn, "message": self.message}


@dataclass(frozen=True)
class Stopped:
    """The run has ended: ``reason`` is one of ``STOP_REASONS``, ``message`` one sentence."""

    reason: str
    message: str
    turns: int
    tokens: int
    kind: str = "stopped"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "reason": self.reason,
            "message": self.message,
            "turns": self.turns,
            "tokens": self.tokens,
        }


Event = (
    TurnStarted
    | TextDelta
    | BlockReady
    | TurnPlanned
    | ItemChanged
    | TurnFinished
    | Notice
    | Stopped
)

#: Why a run ends.
STOP_REASONS = (
    "done",  # a reply with no commands: the model says it has finished
    "max_turns",
    "budget",  # a budget is used up (tokens, cost or seconds: the stop record's ``budget``)
    "stopped",  # the person pressed Stop (or called agent.stop())
    "model_error",  # the endpoint failed; the message says how
    "repeated_failure",  # the same command failed three turns in a row
)
