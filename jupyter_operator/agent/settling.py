"""Waiting for a turn's decisions without blocking (a part of ``Agent``): the run's changes
wake the loop, Stop rejects what still waits, and every decision goes into the transcript."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import time
from typing import TYPE_CHECKING

from . import events as ev
from . import records
from .budgets import BUDGET, used_up
from .streaming import _Stop

if TYPE_CHECKING:
    from ..engine import DecidableRun, Item

STOP_REASON_TEXT = "the person stopped the run"
#: Why what still waits is rejected when the run's time budget runs out.
OUT_OF_TIME_TEXT = "the run's time budget ran out before a decision"


class Settling:
    """Settling a turn for ``Agent`` (which sets the attributes used here)."""

    #: ``time.monotonic()`` when the run's time budget runs out (None: no time budget).
    _deadline: float | None = None

    def _left(self) -> float | None:
        """Seconds until the time budget runs out (None: no time budget)."""
        return None if self._deadline is None else max(0.0, self._deadline - time.monotonic())

    async def _settle(self, turn: int, run: DecidableRun) -> None:
        """Wait, without blocking, until every item of ``run`` is decided (or Stop, or the
        time budget runs out: what still waits is then rejected, and the run stops)."""
        loop = asyncio.get_running_loop()
        wake = self._wake = asyncio.Event()
        decided_at: dict[str, float] = {}

        def on_loop(item: Item) -> None:
            self._emit(ev.ItemChanged(turn, item))
            wake.set()

        def changed(item: Item) -> None:  # hosts may decide from a worker thread
            if item.kind == "mutation" and item.status not in ("pending",):
                decided_at.setdefault(item.id, time.monotonic())
            # An undo from the turn's card may come after the run ended and its loop closed.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(on_loop, item)

        run.subscribe(changed)
        waited = time.monotonic()
        self._settling = True
        self._poke()
        out_of_time = False
        try:
            if self.decide is not None and not run.done:
                outcome = self.decide(run)
                if inspect.isawaitable(outcome):  # a decider that waits (a person elsewhere)
                    await asyncio.wait_for(outcome, self._left())
            while not run.done:
                if self._stop_requested:
                    await self._engine(lambda: run.reject_all(reason=STOP_REASON_TEXT))
                    break
                wake.clear()
                if run.done:
                    break
                await asyncio.wait_for(wake.wait(), self._left())
        except asyncio.TimeoutError:
            out_of_time = True
            await self._engine(lambda: run.reject_all(reason=OUT_OF_TIME_TEXT))
        self._wake = None
        self._settling = False
        for record in records.decisions(run, decided_at, waited):
            self._transcript_add("decision", turn=turn, **record)
        if self._stop_requested:
            raise _Stop("stopped", "Stopped by the person while changes waited for decisions.")
        if out_of_time:
            assert self.max_seconds is not None and self._deadline is not None
            spent = self.max_seconds + time.monotonic() - self._deadline
            raise _Stop(BUDGET, used_up("seconds", self.max_seconds, spent,
                                        while_doing="while changes waited for decisions"),
                        "seconds")  # fmt: skip

    def _record_results(self, turn: int, run: DecidableRun) -> None:
        for record in records.results(run):
            self._transcript_add("result", turn=turn, **record)
        # ``card`` is the record's own field: an item's ``type`` would clash with the record's
        for card in records.cards(run):
            self._transcript_add("card", turn=turn, card=card)


def reject_translations(run: DecidableRun) -> None:
    """A ``decide`` for runs with no person to ask (scripts, experiments): every translated
    tool call is rejected, so the model is told the ``OPERATOR_CMD`` block it meant and can
    send it, which the rules then decide like any block."""
    for item in list(run.pending):
        if item.foreign is not None:
            run.reject(item.id)
