"""How hosts drive an ``Agent`` (a part of it): start a run on the running loop, wait for a
decision or the end, stop it from any thread, answer the question a run ended with."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..engine import DecidableRun
    from .result import AgentResult


class Control:
    """The host-facing controls of ``Agent`` (which sets the attributes used here)."""

    def stop(self) -> None:
        """End the run: the reply being streamed is dropped, pending changes are rejected.

        Safe to call from any thread and when nothing runs.
        """
        self._stop_requested = True
        loop = self._loop
        if loop is None:
            return

        def _interrupt() -> None:
            if self._stream_task is not None and not self._stream_task.done():
                self._stream_task.cancel()
            if self._wake is not None:
                self._wake.set()

        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            _interrupt()
        else:
            loop.call_soon_threadsafe(_interrupt)

    def start(self, task: str) -> asyncio.Task[AgentResult]:
        """Start ``run(task)`` on the running event loop and return at once (for notebooks).

        A notebook cell must not await a run that waits for clicks: the kernel handles widget
        messages only between cells. ``%%operator_agent`` uses this.
        """
        self.result = None
        self._task = asyncio.get_running_loop().create_task(self.run(task))
        return self._task

    async def waiting(self) -> DecidableRun | None:
        """The turn's run once it waits for a person's decision; None when the run has ended.

        For notebooks and scripts that decide from Python: ``run = await agent.waiting()``,
        then ``run.approve(...)`` / ``run.reject(..., reason=...)``.
        """
        while True:
            run = self.run_now
            if self._settling and run is not None and run.pending:
                return run
            starting = self._task is not None and not self._task.done()
            if self.result is not None or not (self.running or starting):
                return None
            self._tick = self._tick or asyncio.Event()
            await self._tick.wait()

    async def wait(self) -> AgentResult:
        """The result of the run started with ``start`` (waits for its end)."""
        if self._task is None:
            raise RuntimeError("no run was started with start()")
        return await self._task

    def run_sync(self, task: str) -> AgentResult:
        """``run(task)`` for scripts without an event loop (the CLI)."""
        return asyncio.run(self.run(task))

    @property
    def question(self) -> str | None:
        """The model's question when the last run ended with one (``answer`` continues it)."""
        result = self.result
        if result is None or result.reason != "question" or not self._messages:
            return None
        return result.message.removeprefix("The model asks: ")

    def _answerable(self, text: str) -> str:
        if self.question is None:
            raise RuntimeError("the last run did not end with a question to answer")
        if not text.strip():
            raise ValueError("the answer is empty")
        return text

    async def answer(self, text: str) -> AgentResult:
        """Continue a run that ended with a question to the person (``result.reason ==
        "question"``): ``text`` is the answer, the model's next message. The conversation, the
        turn numbers, the token count and the transcript go on; the run gets ``max_turns``
        more turns."""
        return await self._drive(self._answerable(text), self._messages)

    def start_answer(self, text: str) -> asyncio.Task[AgentResult]:
        """``answer(text)`` started on the running event loop (a notebook's Answer button)."""
        text = self._answerable(text)
        self.result = None
        self._task = asyncio.get_running_loop().create_task(self._drive(text, self._messages))
        return self._task
