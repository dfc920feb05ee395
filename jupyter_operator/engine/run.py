"""A run: the items of one reply, in block order, and the decisions still to be made.

``Operator.run`` makes one; decisions arrive later as calls (``approve``, ``reject``, from a
click, a rule or a script), and each one may settle later items: a change previewed on top of
it is planned again, a read waiting for it runs, a cell run waiting for it is planned again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..execution import Outcome
from ..protocol import Result, codes, format_results, unread_note
from . import edits, foreign_calls, history, live_route, mutations, outcome_notes, run_items
from .carry_out import carry_out
from .decidable import DecidableRun
from .decisions import Decision, reason_note
from .errors import DecideFirst
from .items import Item
from .reads import OutputBudget

if TYPE_CHECKING:
    from .operating import Operating


class Run(DecidableRun[Item]):
    """The items of one reply, in block order, and the decisions still to be made."""

    def __init__(self, operator: Operating, items: list[Item], truncated_chars: int,
                 skipped_duplicates: tuple[str, ...],
                 budget: OutputBudget | None = None, unread_markers: int = 0) -> None:  # fmt: skip
        self._operator = operator
        #: What the reads of this reply may still return (shared by reads approved later).
        self.budget = budget or OutputBudget()
        self.items = items
        self.truncated_chars = truncated_chars
        #: ``OPERATOR_CMD`` markers in the characters cut from the front: commands never read.
        self.unread_markers = unread_markers
        self.skipped_duplicates = skipped_duplicates
        self._lock = threading.RLock()
        self._subscribers: list[Callable[[Item], None]] = []
        live_route.wait_all(self, items)  # changes a rule approved while planning

    @property
    def operator(self) -> Operating:
        """The session this run belongs to."""
        return self._operator

    def __repr__(self) -> str:
        return f"<Run items={len(self.items)} pending={len(self.pending)}>"

    @property
    def results_text(self) -> str:
        """``OPERATOR_RESULT`` blocks for every decided item, in block order; first, when the
        reply was cut with commands in the cut part, a line saying how many (``unread_note``)."""
        return format_results([item.result for item in self.items if item.result is not None],
                              note=unread_note(self.truncated_chars, self.unread_markers))

    def approve(self, id: str, *, content: bytes | None = None,
                and_run: bool = False) -> Decision:  # fmt: skip
        """Apply one pending item (or run a pending read) and say what happened.

        An item decided before is left alone (``outcome="already_decided"``). A change
        previewed on top of an earlier pending change to the same file raises ``DecideFirst``
        until that earlier change is decided; an unknown id raises ``UnknownItem``.

        ``content`` approves the person's edit of the new content instead of the model's:
        exactly those bytes are written, on the same snapshot guard, size limit and notebook
        check (``BadEdit`` leaves the item pending otherwise); the item is then ``edited`` and
        its result tells the model what changed from its proposal (``engine/edits.py``).

        ``and_run`` (Approve & Run, for an insert or replace of a code cell): once applied, the
        cell runs in the notebook's kernel and the change's result carries the outputs.
        """
        with self._lock:
            item = self._take(id)
            if not item.needs_approval:
                return Decision.already(item)
            proposed = item.proposal
            if content is not None:
                written = edits.plan_edited(item, content)
                item.proposal, item.edited = written, written is not proposed
            item.decided_by, item.rule = "person", None
            carry_out(self._operator, item, self.budget, self, and_run=and_run)
            if item.edited and item.status == "applied" and item.result and proposed:
                item.result = edits.edited_result(item.result, proposed, item.proposal,
                                                  item.path or "")  # fmt: skip
                item.summary = item.proposal.summary
            history.track(self._operator.journal, self, item)
            if and_run and not live_route.waiting(item):  # a page runs it once it has it
                run_items.after_change(self._operator, self, item)
            refreshed = self._refresh_dependents(item) + self._release_waiting()
            decision = Decision.made(item)
        for changed in [item, *refreshed]:
            self._notify(changed)
        return decision

    def finish_execution(self, id: str, outcome: Outcome) -> Decision:
        """The outcome of a run a front end carried out (``DeferredRunner``): the item ends."""
        with self._lock:
            item = self.item(id)
            if item.status != "running" or item.execution is None:
                return Decision.already(item)
            run_items.finish(self._operator, self, item, outcome)
            return Decision.made(item)

    def finish_live(self, id: str, answer: dict[str, Any]) -> Decision:
        """The answer of the page asked to apply an approved notebook change
        (``live_route.finish``): the item ends, or goes to the disk when the page let go."""
        with self._lock:
            item = self.item(id)
            if not live_route.waiting(item):
                return Decision.already(item)
            if live_route.finish(self._operator, item, answer):
                carry_out(self._operator, item, self.budget, self, disk=True)
            history.track(self._operator.journal, self, item)
            if item.live and item.live.get("and_run") and item.status == "applied":
                run_items.after_change(self._operator, self, item)
            refreshed = self._refresh_dependents(item) + self._release_waiting()
            decision = Decision.made(item)
        for changed in [item, *refreshed]:
            self._notify(changed)
        return decision

    def ran(self, item: Item) -> None:
        """A run ended (perhaps from a runner's thread): release what waited, tell everyone."""
        with self._lock:
            refreshed = self._refresh_dependents(item) + self._release_waiting()
        for changed in [item, *refreshed]:
            self._notify(changed)

    def approve_by_rule(self, id: str, rule: str) -> Decision:
        """Apply a pending item because a host rule (its text: ``rule 2: ...``) allows it."""
        with self._lock:
            item = self._take(id)
            if not item.needs_approval:
                return Decision.already(item)
            item.decided_by, item.rule = "rule", rule
            carry_out(self._operator, item, self.budget, self)
            history.track(self._operator.journal, self, item)
            refreshed = self._refresh_dependents(item) + self._release_waiting()
            decision = Decision.made(item)
        for changed in [item, *refreshed]:
            self._notify(changed)
        return decision

    def reject(self, id: str, reason: str | None = None) -> Decision:
        """Refuse one pending item; ``reason`` is passed on to the model.

        An item decided before is left alone (``outcome="already_decided"``).
        """
        with self._lock:
            item = self._take(id)
            if not item.needs_approval:
                return Decision.already(item)
            message = "nothing was changed." + reason_note(reason)
            item.decided_by, item.rule = "person", None
            result = Result.failure(item.id, codes.ERR_REJECTED, message)
            if item.foreign is not None:  # the model is told the block it meant
                result = foreign_calls.rejected(item, reason_note(reason))
            outcome_notes.finish(item, result, "rejected")
            refreshed = self._refresh_dependents(item) + self._release_waiting()
            decision = Decision.made(item)
        for changed in [item, *refreshed]:
            self._notify(changed)
        return decision

    def approve_all(self, *, unattended: bool = False) -> list[Decision]:
        """Apply every pending item, in block order.

        ``unattended`` (a command line's ``--approve all``, decided before anyone saw the
        items): a run of code that would not be sandboxed is rejected instead, the model told
        why; as with the rules, only a person's decision on that run itself runs code outside
        the sandbox (``run_items.runs_unsandboxed``).
        """
        unsandboxed = unattended and run_items.runs_unsandboxed(self._operator)
        decisions = []
        # A decision can settle later items (a dependent change that no longer applies).
        for item in list(self.pending):
            if not item.needs_approval:
                continue
            if unsandboxed and item.kind == "run":
                decisions.append(self.reject(item.id, run_items.UNATTENDED_UNSANDBOXED))
            else:
                decisions.append(self.approve(item.id))
        return decisions

    def reject_all(self, reason: str | None = None) -> list[Decision]:
        """Refuse every pending item."""
        return [self.reject(item.id, reason) for item in list(self.pending) if item.needs_approval]

    def _refresh_dependents(self, decided: Item) -> list[Item]:
        """Re-plan the pending changes previewed on top of ``decided``, now from the disk.

        When ``decided`` was applied the new preview is the same bytes; when it was not, the
        person sees the new diff before deciding, so what is applied is always what was shown.
        """
        refreshed: list[Item] = []
        bases = {decided.id: None}
        refused = decided.id if decided.status == "rejected" else None
        edited = decided.id if decided.edited else None
        for item in self.items[decided.index + 1 :]:
            if item.needs_approval and item.builds_on in bases:
                base = bases[item.builds_on]
                if item.kind == "run":
                    run_items.replan(self._operator, item, refused, edited)
                    refreshed.append(item)
                    continue
                self._operator.replan(item, base, refused, edited)
                refreshed.append(item)
                if item.needs_approval and item.proposal is not None:
                    bases[item.id] = mutations.after(item.proposal)
        return refreshed

    def _release_waiting(self) -> list[Item]:
        """Run the waiting reads whose earlier changes to their paths are all decided."""
        released: list[Item] = []
        for item in self.items:
            if item.status == "waiting" and not mutations.blockers(self.items, item):
                self._operator.start_read(item, self.budget)
                released.append(item)
        return released

    def _take(self, id: str) -> Item:
        """The item to decide; ``DecideFirst`` while the change it builds on is undecided."""
        item = self.item(id)
        if item.status == "waiting" or (
            item.needs_approval and item.builds_on and self.item(item.builds_on).needs_approval
        ):
            raise DecideFirst(id, item.builds_on or "")
        return item
