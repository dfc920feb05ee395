"""The model's side of a turn: streaming a reply, asking once to go on from an open block,
and keeping the conversation inside the model's window (a part of ``Agent``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from . import events as ev
from .blocks import BlockTracker
from .compaction import compact, window_for
from .models import Message, ModelError, Usage
from .prices import Price, cost_of
from .prompt import CONTINUE_REQUEST

log = logging.getLogger(__name__)


class _Stop(Exception):
    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason, self.message = reason, message


class Streaming:
    """Streaming replies and compaction for ``Agent`` (which sets the attributes used here)."""

    _last_finish: str | None = None

    def _compact(self, turn: int, messages: list[Message]) -> None:
        """Keep the conversation inside the model's window (``compaction.py``)."""
        window = self.context_window or window_for(getattr(self.model, "name", None))
        done = compact(messages, window)
        if done is not None:
            self._transcript_add("compaction", turn=turn, **done)
            self._emit(ev.Notice(turn, f"The conversation was compacted to fit the model's "
                                 f"window ({done['before_tokens']} -> {done['after_tokens']} "
                                 "estimated tokens)."))  # fmt: skip

    async def _reply(self, turn: int, messages: list[Message], started: float) -> str:
        """Stream one reply; once, ask the model to go on when it stopped inside a block."""
        text, tracker, finish = await self._stream(turn, messages, started, BlockTracker())
        self._last_finish = finish
        open_at = tracker.open_block_start
        if open_at is None:
            messages.append({"role": "assistant", "content": text})
            return text
        # Cut off inside a block (usually the length limit): keep the complete part, ask once.
        self._emit(
            ev.Notice(
                turn,
                "The reply stopped inside an open command block; "
                "asking the model to continue from it.",
            )
        )
        messages.append({"role": "assistant", "content": text})
        messages.append({"role": "user", "content": CONTINUE_REQUEST})
        self._transcript_add("continue", turn=turn, finish_reason=finish, open_at=open_at)
        self._transcript_add("message", turn=turn, role="user", content=CONTINUE_REQUEST)
        self._emit(ev.TextDelta(turn, "\n"))
        head = text[:open_at]
        rest, _tracker, _finish = await self._stream(
            turn, messages, started, BlockTracker(), offset=len(head)
        )
        messages.append({"role": "assistant", "content": rest})
        return head + rest

    async def _stream(
        self,
        turn: int,
        messages: list[Message],
        started: float,
        tracker: BlockTracker,
        offset: int = 0,
    ) -> tuple[str, BlockTracker, str | None]:
        """One model call: deltas to the displays, complete blocks announced as they close."""
        t0 = time.monotonic()
        first: float | None = None
        parts: list[str] = []
        reply: Any = None

        async def consume() -> None:
            nonlocal first, reply
            reply = self.model.stream(list(messages))
            async for delta in reply:
                if not delta:
                    continue
                if first is None:
                    first = time.monotonic()
                parts.append(delta)
                self._emit(ev.TextDelta(turn, delta))
                for block in tracker.feed(delta):
                    self._emit(ev.BlockReady(turn, block.index, block.text))

        timeout = None
        if self.max_seconds is not None:
            timeout = max(0.0, self.max_seconds - (time.monotonic() - started))
        self._stream_task = asyncio.ensure_future(consume())
        try:
            await asyncio.wait_for(self._stream_task, timeout)
        except asyncio.CancelledError:
            if not self._stop_requested:
                raise  # our caller was cancelled, not the stream
            raise _Stop("stopped", "Stopped by the person while the model was replying.") from None
        except asyncio.TimeoutError:
            raise _Stop(
                "time_budget",
                f"Stopped: the time budget ({self.max_seconds:g} s) "
                "ran out while the model was replying.",
            ) from None
        except ModelError as exc:
            wait = {} if exc.retry_after is None else {"retry_after": exc.retry_after}
            self._transcript_add("model_error", turn=turn, kind=exc.kind, message=exc.message,
                                 **wait)  # fmt: skip
            self._emit(ev.Notice(turn, exc.message))
            raise _Stop("model_error", exc.message) from None
        except Exception as exc:  # a model of the person's own (a replay function) failed
            log.exception("the model failed")
            message = f"The model failed unexpectedly ({type(exc).__name__}); see the log."
            self._emit(ev.Notice(turn, message))
            raise _Stop("model_error", message) from None
        finally:
            self._stream_task = None
            if reply is not None:
                with contextlib.suppress(Exception):
                    await reply.aclose()
        for block in tracker.finish():
            self._emit(ev.BlockReady(turn, block.index, block.text))
        text = "".join(parts)
        usage: Usage | None = reply.usage
        self._last_usage = usage.to_dict() if usage is not None else None
        self.replies += 1
        if usage is not None:
            self.tokens += usage.total_tokens
            self.tokens_estimated = self.tokens_estimated or usage.estimated
            if self.price is not None and self.cost is not None and not usage.estimated:
                self.cost = round(self.cost + cost_of(usage.prompt_tokens,
                                                      usage.completion_tokens, self.price), 6)
        self._transcript_add(
            "message",
            turn=turn,
            role="assistant",
            content=text,
            finish_reason=reply.finish_reason,
            usage=self._last_usage,
            model_seconds=round(time.monotonic() - t0, 4),
            first_delta_seconds=None if first is None else round(first - t0, 4),
        )
        self._transcript_add("turn", turn=turn, usage=self._last_usage)
        return text, tracker, reply.finish_reason

    _last_usage: dict[str, Any] | None = None
    replies = 0
    tokens_estimated = False
    price: Price | None = None
    cost: float | None = None
