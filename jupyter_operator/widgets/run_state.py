"""Plain-text words about a run: its one-line summary, a terminal listing, an error line."""

from __future__ import annotations

from typing import Any

from ..engine.labels import badge, person_text
from .render import visible


def describe_error(exc: BaseException) -> str:
    """One line for the person, never a traceback, an exception name or a host path."""
    summary = getattr(exc, "summary", None)
    if isinstance(summary, str):
        return person_text(summary)
    if isinstance(exc, KeyError):
        return "no such command id in this run"
    if isinstance(exc, ValueError):  # the engine's messages name only command ids and states
        return str(exc)
    return "the decision could not be applied (internal error)"


def run_summary(run: Any) -> str:
    """``3 commands: 1 done, 2 waiting for you`` (plain text, the badge words)."""
    counts: dict[str, int] = {}
    for item in run.items:
        counts[item.status] = counts.get(item.status, 0) + 1
    parts = [f"{n} {badge(status).lower()}" for status, n in counts.items()]
    total = len(run.items)
    head = f"{total} command{'s' * (total != 1)}"
    return head + (": " + ", ".join(parts) if parts else "")


def text_listing(run: Any) -> str:
    """A short plain-text view of a run: one line per item, no file content."""
    lines = [f"Operator run: {run_summary(run)}"]
    for item in run.items:
        summary = person_text(item.result.summary if item.result is not None else item.summary)
        if item.action is None:  # a block that is not a command: no action or path to name
            lines.append(f"  [{badge(item.status)}] block {item.id} (line {item.line}): {summary}")
            continue
        where = f" {item.path}" if item.path else ""
        lines.append(f"  [{badge(item.status)}] {item.action}{where} ({item.id}): {summary}")
    return visible("\n".join(lines))
