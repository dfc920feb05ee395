"""The model protocol of the agent loop, and ``ReplayModel`` (scripted replies, no network).

A model turns a list of chat messages into a stream of text deltas. ``Model.stream(messages)``
returns a ``ModelReply``: iterate it (``async for delta in reply``) to get the text as it
arrives; afterwards ``reply.usage`` holds the token counts when the endpoint gave them and
``reply.finish_reason`` why the reply ended (``"stop"``, ``"length"`` when the endpoint's
length limit cut it). ``await reply.aclose()`` cancels a reply half-way. Endpoint faults are
raised as ``ModelError`` carrying one plain sentence, never a traceback or a credential.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

Message = dict[str, str]  # {"role": "system" | "user" | "assistant", "content": "..."}


@dataclass(frozen=True)
class Usage:
    """Tokens a reply cost, as the endpoint reported them (``estimated`` for offline models)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False

    def __post_init__(self) -> None:
        # An endpoint's numbers are its word: a count below 0 (or not a whole number) is no
        # count, and must not give back tokens a budget has already counted.
        for name in ("prompt_tokens", "completion_tokens"):
            value = getattr(self, name)
            whole = isinstance(value, int) and not isinstance(value, bool)
            object.__setattr__(self, name, value if whole and value > 0 else 0)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "estimated": self.estimated,
        }


class ModelError(Exception):
    """An endpoint fault, as one sentence a person understands.

    ``kind`` is a short machine-readable name (``auth``, ``not_found``, ``connection``,
    ``timeout``, ``rate_limit``, ``server``, ``cut``, ``config``, ``bad_request``).
    ``retry_after``: the seconds the endpoint asked to wait before the next request (its
    ``Retry-After``), when it said.
    """

    def __init__(self, kind: str, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.retry_after = retry_after

    def _render_traceback_(self) -> list[str]:  # IPython shows one line, not a traceback
        return [f"ModelError: {self.message}"]


class ModelReply(Protocol):
    """One streamed reply: async-iterable text deltas, then usage and the finish reason."""

    usage: Usage | None
    finish_reason: str | None

    def __aiter__(self) -> AsyncIterator[str]: ...

    async def aclose(self) -> None: ...


@runtime_checkable
class Model(Protocol):
    """Anything that can answer a list of chat messages with a stream of text."""

    #: The model's name as recorded in transcripts (``gpt-4o-mini``, ``replay``).
    name: str
    #: Where it runs, for people and transcripts: a host name, never a credential.
    endpoint: str

    def stream(self, messages: Sequence[Message]) -> ModelReply: ...


def estimate_tokens(text: str) -> int:
    """A rough token count (4 characters a token) for models that report none."""
    return (len(text) + 3) // 4


class _ScriptedReply:
    """A fixed text streamed in chunks, optionally with a pause between them."""

    def __init__(self, text: str, prompt_chars: int, chunk: int, delay: float,
                 finish: str = "stop") -> None:  # fmt: skip
        self._text = text
        self._prompt_chars = prompt_chars
        self._chunk = max(1, chunk)
        self._delay = delay
        self._closed = False
        self.usage: Usage | None = None
        self.finish_reason: str | None = None
        self._finish = finish

    async def _deltas(self) -> AsyncIterator[str]:
        for start in range(0, len(self._text), self._chunk):
            if self._closed:
                return
            if self._delay:
                await asyncio.sleep(self._delay)
            else:
                await asyncio.sleep(0)  # let Stop and displays run between chunks
            yield self._text[start : start + self._chunk]
        self.finish_reason = self._finish
        self.usage = Usage(
            estimate_tokens("x" * self._prompt_chars), estimate_tokens(self._text), estimated=True
        )

    def __aiter__(self) -> AsyncIterator[str]:
        return self._deltas()

    async def aclose(self) -> None:
        self._closed = True


ReplyFunction = Callable[[str, int], "str | None"]


def _line_of(text: str, bad: str) -> int:
    """The line number of the JSONL line ``bad`` in ``text``."""
    for number, line in enumerate(text.splitlines(), 1):
        if line == bad:
            return number
    return 1


def _load_script(path: Path) -> list[str]:
    """Replies from a JSON list or a JSONL file: each entry a string or ``{"content": ...}``."""
    text = path.read_text(encoding="utf-8")
    stripped = text.lstrip()
    try:
        if stripped.startswith("["):
            entries = json.loads(text)
        else:
            entries = [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError as exc:  # say which file, and where in it
        line = exc.lineno if stripped.startswith("[") else _line_of(text, exc.doc)
        raise ValueError(
            f"{path.name} is not valid JSON or JSONL: {exc.msg} (line {line}, column {exc.colno})"
        ) from None
    replies: list[str] = []
    for n, entry in enumerate(entries, 1):
        if isinstance(entry, dict):
            entry = entry.get("content", entry.get("reply"))
        if not isinstance(entry, str):
            raise ValueError(f"{path.name}: entry {n} is not a reply (a string or content)")
        replies.append(entry)
    return replies


def model_label(name: str, endpoint: str) -> str:
    """How a person is told which model answers: ``gpt-4o at api.openai.com``, or for scripted
    replies (the offline endpoint) ``scripted replies (fix-the-error)``."""
    if endpoint == ReplayModel.endpoint:
        script = name.removeprefix("replay").removeprefix(":")
        return f"scripted replies ({script})" if script else "scripted replies"
    return f"{name} at {endpoint}"


#: The finish reason of a scripted model whose script ran out.
SCRIPT_END = "script_end"


class ReplayModel:
    """Plays scripted replies: the offline default for demos, teaching and tests.

    ``script`` is a list of replies, a path to a JSON (a list) or JSONL file (one reply a line;
    each a string or an object with ``content``), or a function ``f(last_results, turn)`` that
    returns the next reply (or None to stop) from the results text of the previous turn.
    Replies are streamed in ``chunk``-character deltas, ``delay`` seconds apart. After the last
    scripted reply the model answers with an empty reply, which ends the run.
    """

    endpoint = "offline"

    def __init__(
        self,
        script: Sequence[str] | str | Path | ReplyFunction,
        *,
        name: str = "replay",
        chunk: int = 48,
        delay: float = 0.0,
    ) -> None:
        self.name = name
        self.chunk = chunk
        self.delay = delay
        self._function: ReplyFunction | None = None
        self._replies: list[str] = []
        if callable(script):
            self._function = script
        elif isinstance(script, (str, Path)) and not isinstance(script, list):
            self._replies = _load_script(Path(script))
            self.name = name if name != "replay" else f"replay:{Path(script).stem}"
        else:
            self._replies = list(script)
        self.turn = 0

    def __repr__(self) -> str:
        return f"<ReplayModel {self.name!r} turn={self.turn}>"

    def reset(self) -> None:
        """Start the script again from its first reply."""
        self.turn = 0

    def stream(self, messages: Sequence[Message]) -> _ScriptedReply:
        """The next scripted reply, as a stream."""
        self.turn += 1
        ended = False
        if self._function is not None:
            last = messages[-1]["content"] if messages and messages[-1]["role"] == "user" else ""
            found = self._function(last, self.turn)
            text, ended = found or "", found is None
        else:
            ended = self.turn > len(self._replies)
            text = "" if ended else self._replies[self.turn - 1]
        prompt_chars = sum(len(m.get("content", "")) for m in messages)
        # A script that ran out has nothing more to say: the loop ends it as done (an empty
        # reply from a real model gets a corrective turn instead).
        return _ScriptedReply(text, prompt_chars, self.chunk, self.delay,
                              SCRIPT_END if ended else "stop")  # fmt: skip
