"""The life of an item: its statuses and the only transitions between them.

Theory of operation
-------------------
An item (``items.Item``) is born with a status (``pending`` for a command the engine plans,
``waiting`` for a queued operation or request, ``error`` for a block that could not be read, or a
final one for an answer the engine already has or a saved run it loads) and then moves along the
table below, nothing else.

Rule 1: every change of an item's status goes through ``Item.move_to`` (``Lifecycle`` below, which
every item is), which checks this table; assigning ``item.status`` directly raises, in the engine
and in every front.

Rule 2: a status not in ``TRANSITIONS`` as a key with an empty set is final: the item has its
one result for the model and never changes again.

Rule 3: a transition to the status an item already has is not a transition: it is refused like
any other that is not in the table (a caller that may find the item there already checks).

An illegal transition raises ``IllegalTransition`` (code ``illegal_transition``), one of the
engine's typed errors: it is a mistake of the engine or of a front, never of the model.

The statuses, in the order an item meets them:

``waiting``
    A read (or a JSON batch's operation) queued behind an earlier change it depends on.
``pending``
    Waits for a decision (a person's, or a rule that asks).
``running``
    Approved, and under way elsewhere: a cell run in a kernel, or a notebook change handed to
    the page that holds the notebook open.
``applied``
    A change written (undo and redo move it to ``undone`` and back; Approve & Run moves it to
    ``running`` while its cell runs).
``undone``
    An applied change the person undid.
``done``, ``failed``, ``stale``, ``rejected``, ``denied``, ``error``
    Final: carried out, failed, refused because the file or cell changed since the preview,
    refused by the person, refused by a rule, or a block that could not be read.
"""

from __future__ import annotations

from typing import Literal, get_args

from .errors import IllegalTransition

Status = Literal[
    "done", "failed", "error", "pending", "waiting", "applied", "rejected", "denied", "stale",
    "undone", "running",
]  # fmt: skip

STATUSES: frozenset[Status] = frozenset(get_args(Status))

#: The statuses that end an item's life (its result is the model's answer, for good).
FINAL: frozenset[Status] = frozenset({"done", "failed", "error", "rejected", "denied", "stale"})

#: The outcomes of carrying out an approved item (``outcome_notes.finish``).
_OUTCOMES: frozenset[Status] = frozenset({"applied", "done", "failed", "stale"})

#: ``TRANSITIONS[old]`` is every status an item in ``old`` may move to.
TRANSITIONS: dict[Status, frozenset[Status]] = {
    # Decided: carried out (maybe under way elsewhere first), rejected, or refused by a rule;
    # a read of a reply becomes ``waiting`` when an earlier change of its path is pending.
    "pending": _OUTCOMES | {"waiting", "running", "rejected", "denied"},
    # Released once the change it waited for is decided: asks, runs by a rule, or is refused
    # (a JSON batch's operation may be unreadable: ``error``).
    "waiting": _OUTCOMES | {"pending", "denied", "error"},
    # A cell run or a page's answer ends it; a change under Approve & Run goes back to
    # ``applied`` (or is undone while its cell runs).
    "running": _OUTCOMES | {"undone"},
    # Undo; Approve & Run starts the cell the change wrote.
    "applied": frozenset({"undone", "running"}),
    # Redo (or a cell run of Approve & Run that ends after the undo).
    "undone": frozenset({"applied"}),
    **{status: frozenset() for status in FINAL},
}


def check(old: str, new: str) -> None:
    """Raise ``IllegalTransition`` unless an item may move from ``old`` to ``new``."""
    if new not in TRANSITIONS.get(old, frozenset()):  # type: ignore[call-overload]
        raise IllegalTransition(old, new)


class Lifecycle:
    """An item's status and the one way to change it (``items.Item`` is one).

    The item's constructor sets the first status; ``move_to`` is every later change. The table
    and the move live together here, so a status change is one call into this module.
    """

    status: Status
    #: True while the item waits for a person's decision (its status is ``pending``); kept
    #: with the status, so asking is reading an attribute.
    needs_approval: bool

    def move_to(self, status: Status) -> None:
        """Change the item's status along ``TRANSITIONS`` (the only way to).

        Raises ``IllegalTransition`` (code ``illegal_transition``) for any other move.
        """
        check(self.status, status)
        self.__dict__.update(status=status, needs_approval=status == "pending")


__all__ = ["FINAL", "STATUSES", "TRANSITIONS", "Lifecycle", "Status", "check"]
