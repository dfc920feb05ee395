"""Prices per million tokens, and what a run's tokens cost: one table for the experiments'
results (``--price``) and the panel's Ask (``c.OperatorAgent.prices``).

Estimated token counts (a model that reports no usage) are priced while a run goes on, shown
as estimates, because a ``max_cost`` budget must hold for such a model too; a results table
(``experiments.analysis.cost``) leaves them unpriced, since a published cost must be measured.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

#: A price per million tokens: one number for both directions, or (prompt, completion).
Price = float | tuple[float, float]


def price_of(prices: Mapping[str, Any], model: str) -> Price | None:
    """``model``'s price in ``prices``, None when absent or not a price (negative, not a
    number, not one number or a pair)."""
    found = prices.get(model)
    if isinstance(found, (list, tuple)) and len(found) == 2:
        pair = tuple(_number(v) for v in found)
        return None if None in pair else (pair[0], pair[1])  # type: ignore[return-value]
    return _number(found)


def _number(value: Any) -> float | None:
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None


def cost_of(prompt_tokens: int, completion_tokens: int, price: Price) -> float:
    """What the tokens cost at ``price`` (per million tokens), rounded to a millionth."""
    prompt, completion = (price, price) if isinstance(price, (int, float)) else price
    return round((int(prompt_tokens) * float(prompt)
                  + int(completion_tokens) * float(completion)) / 1e6, 6)  # fmt: skip


def prices_of(price: Price) -> tuple[float, float]:
    """``price`` as (prompt, completion) USD per million tokens; ``ValueError`` for a price
    that is not a finite number of at least 0 (or a pair of them)."""
    pair = (price, price) if isinstance(price, (int, float)) else tuple(price)
    if len(pair) != 2 or not all(
        isinstance(p, (int, float)) and not isinstance(p, bool) and math.isfinite(p) and p >= 0
        for p in pair
    ):
        raise ValueError(f"a price is USD per million tokens, one number of at least 0 or "
                         f"(prompt, completion), not {price!r}")  # fmt: skip
    return float(pair[0]), float(pair[1])
