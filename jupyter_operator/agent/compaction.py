"""Long runs keep going: the conversation is compacted before it outgrows the model's window.

Before each model call the loop estimates the conversation's size. Past ``TRIGGER`` of the
window it compacts, in two steps, until the conversation fits under ``TARGET``:

1. **Old results lose their bulk.** In every results message but the latest, the details of a
   result (a file's contents, search hits, a listing, a cell's outputs) become a note: the
   command's path, the lines and the sha256 of what was there, and "read it again if needed".
2. **Earlier turns are summarised.** The oldest turns (a reply and its results) become one
   message listing, per turn, each command's id, action, path and outcome.

The system message (the spec) and the task (the first user message) are always kept, and so
is the latest turn (the newest results are what the model acts on next). Deterministic: no
model is asked to summarise, so a compaction costs nothing and can be read in the transcript.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from ..protocol import Command, Result, format_results, parse_results, scan

#: Tokens estimated per character (conservative: code and base64 run near 3 characters a token).
CHARS_PER_TOKEN = 3
TRIGGER = 0.75  # compact past this share of the window
TARGET = 0.5  # down to this share

#: Context windows (tokens) by model family, the first name fragment that matches; else DEFAULT.
WINDOWS: tuple[tuple[str, int], ...] = (
    ("gpt-4.1", 1_000_000), ("gpt-5", 272_000), ("gpt-4o", 128_000), ("o3", 200_000),
    ("o4", 200_000), ("gpt-oss", 128_000), ("claude", 200_000), ("gemini", 1_000_000),
    ("gemma", 128_000), ("llama3", 128_000), ("llama-3", 128_000), ("qwen3", 128_000),
    ("qwen2.5", 32_000), ("qwen", 32_000), ("deepseek", 128_000), ("kimi", 128_000),
    ("glm", 128_000), ("mistral", 32_000), ("phi", 16_000),
)  # fmt: skip
DEFAULT_WINDOW = 32_000

Message = dict[str, str]


def window_for(model_name: str | None) -> int:
    """The context window of a model family, by name; ``DEFAULT_WINDOW`` when unknown."""
    name = (model_name or "").lower()
    for fragment, window in WINDOWS:
        if fragment in name:
            return window
    return DEFAULT_WINDOW


def estimate(messages: list[Message]) -> int:
    """The conversation's size in tokens, estimated from its characters."""
    return sum(len(m.get("content", "")) for m in messages) // CHARS_PER_TOKEN + 4 * len(messages)


def _paths(reply: str) -> dict[str, str]:
    """Command id -> path (or notebook) of a reply's blocks."""
    found = {}
    for entry in scan(reply, extensions=("nb",)).items:
        if isinstance(entry, Command) and entry.path:
            found[entry.id] = entry.path
    return found


def _noted(result: Result, path: str | None) -> Result:
    details = result.details or ""
    digest = hashlib.sha256(details.encode("utf-8")).hexdigest()[:16]
    where = f" of {path}" if path else ""
    note = (f"(details{where} removed to keep the conversation short: {details.count(chr(10)) + 1} "
            f"lines, sha256 {digest}; read it again if you need it)")  # fmt: skip
    return Result(result.id, result.ok, result.summary, note, result.code)


_RESULT = re.compile(r"^OPERATOR_RESULT\s*$", re.M)


def _lighten(messages: list[Message], last: int) -> int:
    """Step 1 on every results message before index ``last``; returns characters saved."""
    saved = 0
    for index in range(2, last):
        message = messages[index]
        if message["role"] != "user" or not _RESULT.search(message["content"]):
            continue
        results = parse_results(message["content"])
        if not results or not any(r.details and not r.details.startswith("(details")
                                  for r in results):  # fmt: skip
            continue
        reply = messages[index - 1]["content"] if messages[index - 1]["role"] == "assistant" else ""
        paths = _paths(reply)
        lighter = format_results([_noted(r, paths.get(r.id)) if r.details else r
                                  for r in results])  # fmt: skip
        saved += len(message["content"]) - len(lighter)
        messages[index] = {"role": "user", "content": lighter}
    return saved


def _turn_line(reply: str, results: str) -> str:
    paths = _paths(reply)
    parts = []
    for result in parse_results(results):
        path = f" {paths[result.id]}" if result.id in paths else ""
        parts.append(f"{result.id}{path}: {result.summary[:160]}")
    return "; ".join(parts) or "(no commands)"


def _summarise(messages: list[Message], keep_from: int, limit: int) -> int:
    """Step 2: fold turns (assistant + user pairs after the task) into one summary message
    until the conversation fits ``limit`` tokens or only the latest turn is left."""
    first = 2  # messages[0] system, [1] the task
    folded: list[str] = []
    while estimate(messages) > limit and first + 1 < keep_from:
        reply, results = messages[first], messages[first + 1]
        if reply["role"] != "assistant" or results["role"] != "user":
            break
        if results["content"].startswith("Earlier turns, summarised"):
            folded.insert(0, results["content"].split("\n", 1)[1] if "\n" in results["content"]
                          else "")  # fmt: skip
        else:
            folded.append(_turn_line(reply["content"], results["content"]))
        del messages[first : first + 2]
        keep_from -= 2
    if not folded:
        return 0
    text = "Earlier turns, summarised (their full results were dropped to keep the " \
           "conversation short; read files again if you need them):\n" + "\n".join(folded)
    messages[first:first] = [{"role": "assistant", "content": "(earlier turns)"},
                             {"role": "user", "content": text}]  # fmt: skip
    return len(folded)


def compact(messages: list[Message], window: int) -> dict[str, Any] | None:
    """Compact ``messages`` in place when they pass ``TRIGGER`` of ``window``; what was done
    (for the transcript), or None when nothing needed doing."""
    before = estimate(messages)
    if before <= window * TRIGGER:
        return None
    last = len(messages) - 2  # the latest reply and its results stay whole
    saved = _lighten(messages, last)
    turns = 0
    if estimate(messages) > window * TARGET:
        turns = _summarise(messages, len(messages) - 2, int(window * TARGET))
    return {"before_tokens": before, "after_tokens": estimate(messages),
            "window": window, "details_chars_removed": saved, "turns_summarised": turns}
