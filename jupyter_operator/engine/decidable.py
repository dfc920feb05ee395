"""What every kind of run offers the fronts, whatever the dialect that made it.

``Run`` (Operator blocks), ``JsonRun`` (JSON operations) and ``BashRun`` (a bash line of a
string-command session) carry items out differently, but the notebook cards, the panel and the
command line read and decide them the same way: their items, which wait for a person, who to
tell of a change, and one template for every decision (``DecidableRun._decide``) whose hooks are
all a dialect writes.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

from . import edited_proposals as edits
from .decisions import Decision, reason_note
from .errors import DecideFirst, UnknownItem
from .items import DecidedBy, Item

log = logging.getLogger(__name__)

I = TypeVar("I", bound=Item)  # noqa: E741 (the item type, as in the fronts' annotations)


@dataclass(frozen=True)
class _Choice:
    """One decision as asked: approve or refuse, by whom, and what came with it."""

    approve: bool
    by: DecidedBy
    rule: str | None = None
    reason: str | None = None
    content: bytes | None = None
    and_run: bool = False


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

    # -- the decisions: one template for every dialect ---------------------------------------
    #
    # approve, approve_by_rule and reject all go the same way (``_decide``): find the run that
    # holds the item, take it (``DecideFirst`` while what it builds on waits), leave an item
    # decided before alone, take the person's edit, record who decided, carry the item out or
    # refuse it (and settle what follows in the run), and tell the subscribers. A dialect says
    # only what carrying out and refusing mean for it (the two hooks below the template): one
    # call into the dialect per decision.

    #: ``approve_all`` / ``reject_all`` go on to what comes up after each decision (a batch
    #: that continues to its next question), or decide only what waits when they start.
    approve_all_goes_on = False
    reject_all_goes_on = False
    #: Approve & Run starts a cell in this run's dialect (elsewhere ``and_run`` is dropped).
    runs_cells = False

    def approve(self, id: str, *, content: bytes | None = None,
                and_run: bool = False) -> Decision:  # fmt: skip
        """Carry out the pending item ``id`` (a person's decision) and say what happened.

        An item decided before is left alone (``outcome="already_decided"``); one that builds
        on an undecided item (an earlier change of its file, an operation the batch has not
        reached) raises ``DecideFirst``; an unknown id raises ``UnknownItem``.

        ``content`` approves the person's edit of a change's new content instead of the model's:
        exactly those bytes are written, on the same snapshot guard, size limit and notebook
        check (``BadEdit`` leaves the item pending otherwise); the item is then ``edited`` and
        its result tells the model what changed from its proposal (``engine/edited_proposals.py``).
        ``and_run`` (Approve & Run, for an insert or replace of a code cell): once applied, the
        cell runs in the notebook's kernel (a dialect that runs no cells ignores it).
        """
        return self._decide(id, _Choice(True, "person", content=content, and_run=and_run))

    def approve_by_rule(self, id: str, rule: str | None) -> Decision:
        """Carry out a pending item because a rule (its text: ``rule 2: ...``) allows it."""
        return self._decide(id, _Choice(True, "rule", rule))

    def reject(self, id: str, reason: str | None = None) -> Decision:
        """Refuse the pending item ``id``; ``reason`` is passed on to the model.

        An item decided before is left alone (``outcome="already_decided"``).
        """
        return self._decide(id, _Choice(False, "person", reason=reason))

    def approve_all(self, *, unattended: bool = False) -> list[Decision]:
        """Approve what waits, in order. ``unattended`` (decided before anyone saw the items,
        as a command line's ``--approve all``): an item the dialect will not run unattended
        (code outside the sandbox) is rejected instead, the model told why."""
        decided = []
        for item in self._in_turn(self.approve_all_goes_on):
            why = self._unattended_refusal(item) if unattended else None
            decided.append(self.reject(item.id, why) if why else self.approve(item.id))
        return decided

    def reject_all(self, reason: str | None = None) -> list[Decision]:
        """Reject what waits (and, where the run goes on, what comes up after it)."""
        return [self.reject(item.id, reason) for item in self._in_turn(self.reject_all_goes_on)]

    def _decide(self, id: str, choice: _Choice) -> Decision:
        if choice.and_run and not self.runs_cells:
            choice = replace(choice, and_run=False)
        holder = self._holder(id)
        if holder is not self:  # a view over other runs: the one holding the item decides
            return holder._decide(id, choice)
        with self._lock:
            item = self._take(id)
            if not item.needs_approval:
                return Decision.already(item)
            if choice.content is not None:
                written = edits.plan_edited(item, choice.content)
                if written is not item.proposal:
                    item.proposed, item.proposal, item.edited = item.proposal, written, True
            item.decided_by, item.rule = choice.by, choice.rule
            if choice.approve:
                changed = self._carry_out(item, choice.and_run)
            else:
                changed = self._refuse(item, reason_note(choice.reason))
            decision = Decision.made(item)
        for each in changed:
            self._notify(each)
        return decision

    def _in_turn(self, goes_on: bool) -> Iterator[I]:
        """The pending items, in order, each while it still waits; with ``goes_on`` then
        whatever became pending meanwhile, until nothing waits."""
        for item in list(self.pending):
            if item.needs_approval:
                yield item
        while goes_on and self.pending:
            yield self.pending[0]

    def _take(self, id: str) -> I:
        """The item to decide; ``DecideFirst`` while the item it builds on is undecided."""
        item = self.item(id)
        if item.status == "waiting" or (
            item.needs_approval and item.builds_on and self.item(item.builds_on).needs_approval
        ):
            raise DecideFirst(id, item.builds_on or "")
        return item

    # -- what differs per dialect ---------------------------------------------------------------
    def _holder(self, id: str) -> DecidableRun:
        """The run that decides item ``id``: this one, or the one a view over runs holds it in."""
        return self

    def _carry_out(self, item: I, and_run: bool) -> list[Item]:
        """Do what the approved ``item`` proposes, give it its result, and settle what the
        decision settles in the rest of the run. Returns the items whose change is still to be
        told (the decided one first), or ``[]`` when the dialect told them as they changed."""
        raise NotImplementedError

    def _refuse(self, item: I, note: str) -> list[Item]:
        """Give the refused ``item`` its result and status, and settle the rest of the run;
        ``note`` is the person's reason as the model reads it (`` Reason: ...``,
        ``decisions.reason_note``), or ``""``. Returns what ``_carry_out`` returns."""
        raise NotImplementedError

    def _unattended_refusal(self, item: I) -> str | None:
        """Why ``item`` is not approved unattended (the model reads it), or None."""
        return None

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
