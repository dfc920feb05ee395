"""What every kind of run offers the fronts, whatever the dialect that made it.

``Run`` (Operator blocks), ``JsonRun`` (JSON operations) and ``BashRun`` (a bash line of a
string-command session) decide differently, but the notebook cards, the panel and the command
line read them the same way: their items, which wait for a person, who to tell of a change.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from .decisions import Decision
from .errors import UnknownItem
from .items import Item

log = logging.getLogger(__name__)

I = TypeVar("I", bound=Item)  # noqa: E741 (the item type, as in the fronts' annotations)


class DecidableRun(Generic[I]):
    """Items, the ones waiting for a decision, lookup by id and change subscribers.

    Subclasses set ``items``, ``_subscribers`` and ``_lock`` in their ``__init__``. Every front
    reads the attributes below on any run; their defaults are here, and a run of a dialect
    that has something else to say sets its own.
    """

    #: The dialect the reply was planned in (``operator``, ``json``, ``commands``).
    dialect: str = "operator"
    #: Characters of the reply left out of the scan window (its start), 0 when it fit.
    truncated_chars: int = 0
    #: Command markers found in the part that was left out (the model is asked to send them).
    unread_markers: int = 0
    #: Ids of commands that already ran in this session, skipped as identical copies.
    skipped_duplicates: tuple[str, ...] = ()

    items: list[I]
    _subscribers: list[Callable[[Item], None]]
    _lock: threading.RLock  # held while a decision changes the items

    @property
    def pending(self) -> list[I]:
        """Items that wait for a decision now."""
        return [item for item in self.items if item.needs_approval]

    @property
    def done(self) -> bool:
        """True when nothing waits for a decision (or for a decision it depends on)."""
        return not any(item.status in ("pending", "waiting", "running") for item in self.items)

    @property
    def results_text(self) -> str:
        """What the model reads back: every answer so far, in the run's own dialect."""
        raise NotImplementedError

    def approve(self, id: str) -> Decision:
        """Approve the pending item ``id``."""
        raise NotImplementedError

    def reject(self, id: str, reason: str | None = None) -> Decision:
        """Reject the pending item ``id`` (``reason`` is told to the model)."""
        raise NotImplementedError

    def approve_all(self, *, unattended: bool = False) -> list[Decision]:
        """Approve what waits now. ``unattended`` (decided before anyone saw the items): what
        would run code without a sandbox is rejected instead, where the dialect runs any."""
        raise NotImplementedError

    def reject_all(self, reason: str | None = None) -> list[Decision]:
        """Reject everything that waits, now or behind a decision."""
        raise NotImplementedError

    def subscribe(self, callback: Callable[[Item], None]) -> None:
        """Call ``callback(item)`` after an item changes (a decision, an apply, a failure, or
        output streaming in)."""
        self._subscribers.append(callback)

    def item(self, id: str) -> I:
        """The decidable item with this id; ``UnknownItem`` (a KeyError) if there is none."""
        for item in self.items:
            if item.id == id and item.kind != "error":
                return item
        raise UnknownItem(id)

    def _notify(self, item: Item) -> None:
        for callback in list(self._subscribers):
            try:
                callback(item)
            except Exception:  # a broken display must not undo a decision already made
                log.exception("run subscriber failed")
