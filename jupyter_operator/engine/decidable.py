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

from .errors import UnknownItem
from .items import Item

log = logging.getLogger(__name__)

I = TypeVar("I", bound=Item)  # noqa: E741 (the item type, as in the fronts' annotations)


class DecidableRun(Generic[I]):
    """Items, the ones waiting for a decision, lookup by id and change subscribers.

    Subclasses set ``items``, ``_subscribers`` and ``_lock`` in their ``__init__``.
    """

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
