"""A grid's cost budget (``--budget-cost``): which run may start, and which are left.

Before each run starts, its cost is estimated: the run's own cost budget (``max_cost``) when it
has one, a bound it can pass only by its last reply; else the mean cost of its model's finished
runs in this grid; a scripted model or a reference solution costs nothing. The grid's spending
is the cost of every finished run of the grid (in ``results.jsonl``, resumed runs included)
plus the estimates of the runs under way. A run starts when that and its own estimate stay
within the budget. When they would not, the grid waits for the runs under way (their real
costs replace their estimates) and asks again; with nothing under way it stops, in the grid's
order: every run left is not started, and ``OUT/not-started.json`` says which and why. A model
with neither a cost budget nor a finished run is measured first: one run of it at a time,
until one has finished.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .analysis import Price, cost
from .results import run_key
from .single import RunSpec

#: The file of an output folder that lists the runs the budget left (removed once none is).
NOT_STARTED = "not-started.json"

Decision = Literal["go", "wait", "stop"]


@dataclass(frozen=True)
class NotStarted:
    """A run the grid's cost budget did not start, and why (one sentence)."""

    key: tuple[str, str, int, str]
    reason: str

    def to_json(self) -> dict[str, Any]:
        task, model, repeat, dialect = self.key
        return {"task": task, "model": model, "repeat": repeat, "dialect": dialect,
                "reason": self.reason}


@dataclass
class GridBudget:
    """The spending of one grid against its cost budget (USD)."""

    budget: float
    prices: Mapping[str, Price]
    #: USD spent by the grid's finished runs.
    spent: float = 0.0
    #: Per model, the costs of its finished runs (the mean estimates its next one).
    costs: dict[str, list[float]] = field(default_factory=dict)
    #: The runs under way and the estimate each started with (None: measured first).
    under_way: dict[tuple[str, str, int, str], float | None] = field(default_factory=dict)

    def add_finished(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Count the cost of finished rows (a run under way is no longer)."""
        for row in rows:
            self.under_way.pop(run_key(row), None)
            spent = cost(row, self.prices)
            if spent is None:  # scripted, estimated counts: nothing an endpoint billed
                continue
            self.spent += spent
            self.costs.setdefault(row["model"], []).append(spent)

    @property
    def committed(self) -> float:
        """What is spent, plus the estimates of the runs under way."""
        return self.spent + sum(e for e in self.under_way.values() if e is not None)

    def estimate(self, spec: RunSpec) -> tuple[float | None, str]:
        """The cost ``spec`` is expected to take, and how it was estimated (None: no way yet;
        its model is measured first)."""
        limits = spec.limits()
        if "max_cost" in limits:
            return limits["max_cost"], "its cost budget, max_cost"
        if not spec.model.untrusted:
            return 0.0, "a scripted model, which costs nothing"
        seen = self.costs.get(spec.model.name)
        if seen:
            runs = f"{len(seen)} finished run{'s' * (len(seen) != 1)}"
            return sum(seen) / len(seen), f"the mean cost of {runs} of {spec.model.name}"
        return None, "no finished run of its model yet"

    def decide(self, spec: RunSpec) -> Decision:
        """``go``: start it now; ``wait``: for a run under way to finish, then ask again;
        ``stop``: the budget cannot afford it, and nothing under way can change that."""
        estimate, _how = self.estimate(spec)
        if estimate is None:
            measuring = any(key[1] == spec.model.name for key in self.under_way)
            return "wait" if measuring else "go"
        if self.committed + estimate <= self.budget + 1e-9:
            return "go"
        return "wait" if self.under_way else "stop"

    def started(self, spec: RunSpec) -> None:
        self.under_way[spec.key] = self.estimate(spec)[0]

    def why_not(self, spec: RunSpec) -> str:
        """Why ``spec`` is not started: what is spent, its estimate and how."""
        estimate, how = self.estimate(spec)
        said = "unknown" if estimate is None else f"${estimate:.4g}"
        return (f"the grid's cost budget (${self.budget:g}) cannot afford it: ${self.spent:.4g} "
                f"spent, this run estimated at {said} ({how})")  # fmt: skip


def record(out: str | os.PathLike[str], budget: GridBudget | None,
           left: list[NotStarted]) -> Path | None:  # fmt: skip
    """Write ``OUT/not-started.json`` (the runs the budget left, and why), or remove it when
    none is left; its path, when written."""
    path = Path(out) / NOT_STARTED
    if budget is None or not left:
        path.unlink(missing_ok=True)
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"budget_cost": budget.budget, "spent": round(budget.spent, 6),
                       "runs": [item.to_json() for item in left]}, indent=1)  # fmt: skip
    path.write_text(text + "\n", encoding="utf-8")
    return path
