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
from .streaming import _Stop

if TYPE_CHECKING:
    from ..engine import Item, Run

STOP_REASON_TEXT = "the person stopped the run"


class Settling:
    """Settling a turn for ``Agent`` (which sets the attributes used here)."""

    async def _settle(self, turn: int, run: Run) -> None:
        """Wait, without blocking, until every item of ``run`` is decided (or Stop)."""
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
        if self.decide is not None and not run.done:
            outcome = self.decide(run)
            if inspect.isawaitable(outcome):
                await outcome
        while not run.done:
            if self._stop_requested:
                await self._engine(lambda: run.reject_all(reason=STOP_REASON_TEXT))
                break
            wake.clear()
            if run.done:
                break
            await wake.wait()
        self._wake = None
        self._settling = False
        for record in records.decisions(run, decided_at, waited):
            self._transcript_add("decision", turn=turn, **record)
        if self._stop_requested:
            raise _Stop("stopped", "Stopped by the person while changes waited for decisions.")

    def _record_results(self, turn: int, run: Run) -> None:
        for record in records.results(run):
            self._transcript_add("result", turn=turn, **record)
        # ``card`` is the record's own field: an item's ``type`` would clash with the record's
        for card in records.cards(run):
            self._transcript_add("card", turn=turn, card=card)


def reject_translations(run: Run) -> None:
    """A ``decide`` for runs with no person to ask (scripts, experiments): every translated
    tool call is rejected, so the model is told the ``OPERATOR_CMD`` block it meant and can
    send it, which the rules then decide like any block."""
    for item in list(run.pending):
        if item.foreign is not None:
            run.reject(item.id)
