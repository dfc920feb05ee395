"""A run's budgets: tokens, cost, seconds, and what a run that reaches one is told.

A budget is a limit on what one run spends: ``max_tokens`` (the endpoint's reported usage,
all replies), ``max_cost`` (USD, from those tokens and the model's ``price``) and
``max_seconds`` (wall time). A run that reaches one stops with the reason ``budget``, and the
limit it reached (``LIMITS``) is said with it. A cost needs a price: a model with no known
price cannot be given ``max_cost``.
"""

from __future__ import annotations

import math
from typing import Any

from .prices import prices_of

#: The limits a run can reach, as the ``budget`` field of its stop names them.
LIMITS = ("tokens", "cost", "seconds")
#: The stop reason of a run that reached one of its budgets.
BUDGET = "budget"


def check_limits(*, max_tokens: Any = None, max_cost: Any = None, max_seconds: Any = None,
                 price: Any = None, model: str | None = None,
                 priced: bool = True) -> None:  # fmt: skip
    """Raise ``ValueError`` for a limit that is not a positive number, or a ``max_cost``
    without a ``price`` (the message names the model, when given; ``priced=False``: the
    prices are checked elsewhere, model by model)."""
    for name, value in (("max_tokens", max_tokens), ("max_cost", max_cost),
                        ("max_seconds", max_seconds)):  # fmt: skip
        if value is None:
            continue
        kinds = (int,) if name == "max_tokens" else (int, float)
        if not isinstance(value, kinds) or isinstance(value, bool) or not value > 0 \
                or not math.isfinite(value):  # fmt: skip
            raise ValueError(f"{name} must be a positive number, not {value!r}")
    if price is not None:
        prices_of(price)
    if priced and max_cost is not None and price is None:
        whose = f"the model {model!r}" if model else "the model"
        raise ValueError(f"max_cost needs a price: {whose} has no known price per million "
                         "tokens (give one: price=IN or (IN, OUT); --price on the command "
                         "line)")  # fmt: skip


def describe(limit: str, value: float) -> str:
    """``12,000 tokens``, ``$0.05``, ``30 s``: a limit as a person reads it."""
    if limit == "tokens":
        return f"{int(value):,} tokens"
    if limit == "cost":
        return f"${value:g}"
    return f"{value:g} s"


def used_up(limit: str, value: float, spent: float, *, while_doing: str = "") -> str:
    """The sentence a run stops with when it reached ``limit`` (``spent`` of ``value``)."""
    names = {"tokens": "token budget", "cost": "cost budget", "seconds": "time budget"}
    spent_text = f"${spent:.6g}" if limit == "cost" else (
        f"{int(spent):,}" if limit == "tokens" else f"{spent:.3g} s")  # fmt: skip
    during = f" {while_doing}" if while_doing else ""
    return (f"Stopped: the {names[limit]} ({describe(limit, value)}) is used up{during} "
            f"({spent_text} spent).")
