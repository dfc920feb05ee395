"""Progress of a grid: a live bar in a notebook, one line per run in a terminal."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import IO, Any

from ..agent.prices import Price
from .analysis import cost
from .results import run_key, run_label


@dataclass
class Tally:
    """What a progress display shows: runs done of the total, passed, failing, tokens, the
    cost (with prices) against the grid's cost budget, and the runs left."""

    total: int
    done: int = 0
    passed: int = 0
    tokens: int = 0
    skipped: int = 0  # finished in an earlier run of the same grid (resumed)
    bookkeeping_seconds: float = 0.0  # the parent's time spent saving rows
    #: USD of the runs done (None: the grid has no prices); ``budget_cost``: the grid's budget.
    cost: float | None = None
    budget_cost: float | None = None
    #: Runs the cost budget did not start (known once the grid stopped starting runs).
    not_started: int = 0
    prices: Mapping[str, Price] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.prices and self.cost is None:
            self.cost = 0.0

    @property
    def failing(self) -> int:
        return self.done - self.passed

    @property
    def left(self) -> int:
        """Runs neither done nor left out by the cost budget."""
        return self.total - self.done - self.not_started

    def add(self, row: dict[str, Any]) -> None:
        self.done += 1
        self.passed += bool(row.get("passed"))
        self.tokens += int(row.get("tokens") or 0)
        spent = cost(row, self.prices) if self.prices else None
        if spent is not None:
            self.cost = (self.cost or 0.0) + spent


def plural(count: int, word: str) -> str:
    """``1 run``, ``2 runs``, ``12,345 tokens``."""
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def money(usd: float) -> str:
    """``$0.0123``: four decimals, enough for a run of a small model."""
    return f"${usd:,.4f}"


def meter(tally: Tally) -> str:
    """``12,345 tokens · $0.4200 of $5 · 28 left``: what the grid spent (the cost with
    prices, against its cost budget when it has one) and the runs left (and those its budget
    did not start)."""
    parts = [plural(tally.tokens, "token")]
    if tally.cost is not None:
        budget = f" of {money(tally.budget_cost)}" if tally.budget_cost is not None else ""
        parts.append(money(tally.cost) + budget)
    parts.append(f"{tally.left:,} left")
    if tally.not_started:
        parts.append(f"{tally.not_started:,} not started (over the cost budget)")
    return " · ".join(parts)


def summary(tally: Tally) -> str:
    """``12/40 runs · 9 passed · 3 failing · 12,345 tokens · $0.4200 of $5 · 28 left`` (and
    what was resumed)."""
    text = (f"{tally.done}/{plural(tally.total, 'run')} · {tally.passed} passed · "
            f"{tally.failing} failing · {meter(tally)}")  # fmt: skip
    return text + (f" · {tally.skipped} from earlier runs" if tally.skipped else "")


#: How much of a reason a progress line shows (the whole of it is in the results).
REASON_CHARS = 200


def _one_line(text: str) -> str:
    """``text`` on one line, every control or invisible character spelled ``<U+XXXX>`` (a
    check's output is the model's work: it must not move the cursor or forge a line)."""
    text = " ".join(text.split())
    text = "".join(c if c.isprintable() else f"<U+{ord(c):04X}>" for c in text)
    return text if len(text) <= REASON_CHARS else text[: REASON_CHARS - 1] + "…"


def outcome(row: dict[str, Any]) -> str:
    """``passed``, or why not: the stop reason and its message when the run did not end as
    the model's own ``done``, and the failed check's last line when the check ran."""
    if row.get("passed"):
        return "passed"
    reasons = []
    stop = row.get("stop_reason")
    if stop != "done":
        message = row.get("stop_message") or ""
        reasons.append(f"{stop}: {_one_line(message)}" if message else str(stop))
    if stop not in ("model_error", "harness_error"):
        lines = (row.get("check_output") or "").strip().splitlines()
        check = f"check exit {row.get('check_exit')}"
        reasons.append(f"{check}: {_one_line(lines[-1])}" if lines else check)
    return f"FAILED ({'; '.join(reasons)})"




class ProgressBar:
    """The notebook's bar: runs done of the total, passed, failing, the meter (tokens, cost,
    runs left), the latest run."""

    def __init__(self, tally: Tally) -> None:
        import ipywidgets as w

        self.bar = w.IntProgress(value=tally.done, min=0, max=max(tally.total, 1),
                                 bar_style="info", layout=w.Layout(width="40%"))  # fmt: skip
        self.label = w.HTML(value=summary(tally))
        self.latest = w.HTML(value="")
        self.widget = w.VBox([w.HBox([self.bar, self.label]), self.latest],
                             _dom_classes=("jpo-eval-progress",))  # fmt: skip

    def __call__(self, row: dict[str, Any], tally: Tally) -> None:
        from html import escape

        self.bar.value = tally.done
        self.label.value = escape(summary(tally))
        mark = outcome(row)
        self.latest.value = escape(f"latest: {run_label(*run_key(row))}: {mark}")
        if tally.done >= tally.total:
            self.bar.bar_style = "success" if tally.failing == 0 else "warning"

    def finished(self, tally: Tally) -> None:
        """The grid stopped starting runs (its cost budget): the meter says how many it left."""
        from html import escape

        self.label.value = escape(summary(tally))
        if tally.not_started:
            self.bar.bar_style = "warning"


class TerminalProgress:
    """One line per finished run on ``stream`` (stderr by default)."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream or sys.stderr

    def __call__(self, row: dict[str, Any], tally: Tally) -> None:
        mark = outcome(row)
        print(f"[{tally.done}/{tally.total}] {run_label(*run_key(row))}: {mark} · "
              f"{summary(tally)}", file=self.stream)  # fmt: skip


def _in_notebook() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def default_progress(tally: Tally) -> Any:
    """A bar shown now in a notebook's output, else terminal lines."""
    if _in_notebook():
        from IPython.display import display

        bar = ProgressBar(tally)
        display(bar.widget)
        return bar
    return TerminalProgress()
