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
from . import edited_proposals as edits
from . import foreign_calls, history, live_route, mutations, outcome_notes, run_items
from .carry_out import carry_out
from .decidable import DecidableRun
from .decisions import Decision
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
        if any(item.live for item in items):  # changes a rule approved, sent to a page
            live_route.wait_all(self, items)

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
            and_run = bool(item.live and item.live.get("and_run")) and item.status == "applied"
            changed = self._settle(item, and_run)
            decision = Decision.made(item)
        for each in changed:
            self._notify(each)
        return decision

    def ran(self, item: Item) -> None:
        """A run ended after it started (on a runner's thread): release what waited, tell
        everyone. One that ends while it starts is settled by the decision (``_settle``)."""
        with self._lock:
            refreshed = self._refresh_dependents(item) + self._release_waiting()
        for changed in [item, *refreshed]:
            self._notify(changed)

    # -- the hooks of the decision template (``DecidableRun._decide``) ------------------------
    runs_cells = True

    def _carry_out(self, item: Item, and_run: bool) -> list[Item]:
        """Apply the change, run the read or start the cell run; an edited change's result
        tells the model what the person changed."""
        carry_out(self._operator, item, self.budget, self, and_run=and_run)
        if item.edited and item.status == "applied" and item.result and item.proposed:
            item.result = edits.edited_result(item.result, item.proposed, item.proposal,
                                              item.path or "")  # fmt: skip
            item.summary = item.proposal.summary
        return self._settle(item, and_run)

    def _refuse(self, item: Item, note: str) -> list[Item]:
        result = Result.failure(item.id, codes.ERR_REJECTED, "nothing was changed." + note)
        if item.foreign is not None:  # the model is told the block it meant
            result = foreign_calls.rejected(item, note)
        outcome_notes.finish(item, result, "rejected")
        return self._settle(item, False)

    def _settle(self, item: Item, and_run: bool) -> list[Item]:
        """After a decision (or a page's answer): journal what was applied, start Approve &
        Run's cell, re-plan the changes built on the item and release the reads that waited
        for it. Returns the items to tell of, the decided one first."""
        history.track(self._operator.journal, self, item)
        if and_run and not live_route.waiting(item):  # a page runs it once it has it
            run_items.after_change(self._operator, self, item)
        return [item, *self._refresh_dependents(item), *self._release_waiting()]

    def _unattended_refusal(self, item: Item) -> str | None:
        """A run of code that would not be sandboxed: as with the rules, only a person's
        decision on that run itself runs code outside the sandbox."""
        if item.kind == "run" and run_items.runs_unsandboxed(self._operator):
            return run_items.UNATTENDED_UNSANDBOXED
        return None

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
