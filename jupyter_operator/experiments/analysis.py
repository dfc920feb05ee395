"""Results you can read and plot: a DataFrame, pass rates, tokens against success, cost, and
which tasks flipped between two result sets. pandas and matplotlib are the ``experiments``
extra: tables and plots need them, the grid itself does not."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

#: A price per million tokens: one number for both directions, or (prompt, completion).
Price = float | tuple[float, float]


def _pandas() -> Any:
    try:
        import pandas as pd
    except ImportError:
        raise ImportError("tables need pandas: "
                          "pip install 'jupyter-operator[experiments]'") from None
    return pd


def _pyplot() -> Any:
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("plots need matplotlib: "
                          "pip install 'jupyter-operator[experiments]'") from None
    return plt


def cost(row: Mapping[str, Any], prices: Mapping[str, Price]) -> float | None:
    """The cost of one run from the token counts its endpoint reported; None for an unpriced
    model, and for counts that were only estimated (a scripted model reports no usage)."""
    price = prices.get(row.get("model", ""))
    if price is None or row.get("tokens_estimated"):
        return None
    prompt, completion = (price, price) if isinstance(price, (int, float)) else price
    return round((int(row.get("prompt_tokens") or 0) * prompt
                  + int(row.get("completion_tokens") or 0) * completion) / 1e6, 6)  # fmt: skip


class Results:
    """The rows of a grid (``results.jsonl``), with tables and plots.

    ``prices`` (model name -> price per million tokens) adds an estimated ``cost`` column.
    """

    def __init__(self, rows: Iterable[Mapping[str, Any]],
                 prices: Mapping[str, Price] | None = None) -> None:  # fmt: skip
        self.rows = [dict(row) for row in rows]
        self.prices = dict(prices or {})
        if self.prices:
            for row in self.rows:
                row["cost"] = cost(row, self.prices)

    def __len__(self) -> int:
        return len(self.rows)

    def __repr__(self) -> str:
        passed = sum(bool(r.get("passed")) for r in self.rows)
        from .progress import plural

        return f"<Results {plural(len(self.rows), 'run')}, {passed} passed>"

    def priced(self, prices: Mapping[str, Price]) -> Results:
        """The same rows with a ``cost`` column from ``prices``."""
        return Results(self.rows, prices)

    def frame(self) -> Any:
        """One row per run as a pandas DataFrame."""
        return _pandas().DataFrame(self.rows)

    def pass_rates(self) -> Any:
        """Pass rate per task (rows) and model (columns)."""
        return self.frame().pivot_table(index="task", columns="model", values="passed",
                                        aggfunc="mean")  # fmt: skip

    def by_model(self) -> Any:
        """Per model: runs, pass rate, mean turns and tokens, and the cost when priced."""
        frame = self.frame()
        table = frame.groupby("model").agg(runs=("passed", "size"), pass_rate=("passed", "mean"),
                                           turns=("turns", "mean"), tokens=("tokens", "mean"))
        if "cost" in frame:
            table["cost"] = frame.groupby("model")["cost"].sum(min_count=1)
        return table

    def plot_pass_rate(self, ax: Any = None) -> Any:
        """Pass rate by task and model, as a heat map (1.0: every repeat passed)."""
        plt = _pyplot()
        table = self.pass_rates()
        if ax is None:
            _figure, ax = plt.subplots(figsize=(1.6 + 1.2 * table.shape[1],
                                                0.8 + 0.35 * table.shape[0]))  # fmt: skip
        image = ax.imshow(table.to_numpy(dtype=float), vmin=0, vmax=1, cmap="RdYlGn",
                          aspect="auto")  # fmt: skip
        ax.set_xticks(range(table.shape[1]), table.columns)
        ax.set_yticks(range(table.shape[0]), table.index)
        for (y, x), value in _cells(table):
            ax.text(x, y, f"{value:.0%}", ha="center", va="center", fontsize=8)
        ax.set_title("Pass rate by task and model")
        ax.figure.colorbar(image, ax=ax, fraction=0.05)
        return ax

    def plot_tokens(self, ax: Any = None) -> Any:
        """Tokens per run against success, one colour per model."""
        plt = _pyplot()
        frame = self.frame()
        if ax is None:
            _figure, ax = plt.subplots(figsize=(6, 3.5))
        for n, (model, runs) in enumerate(frame.groupby("model")):
            jitter = (n - (frame["model"].nunique() - 1) / 2) * 0.08
            ax.scatter(runs["tokens"], runs["passed"].astype(float) + jitter, label=model,
                       alpha=0.7)  # fmt: skip
        ax.set_yticks([0, 1], ["failed", "passed"])
        ax.set_xlabel("tokens per run")
        ax.set_title("Tokens against success")
        ax.legend()
        return ax


def _cells(table: Any) -> Iterable[tuple[tuple[int, int], float]]:
    values = table.to_numpy(dtype=float)
    for y in range(values.shape[0]):
        for x in range(values.shape[1]):
            if values[y, x] == values[y, x]:  # not NaN
                yield (y, x), float(values[y, x])


def compare(a: Results, b: Results, *, model_a: str | None = None,
            model_b: str | None = None) -> Any:  # fmt: skip
    """Which tasks flipped between two result sets (or two models of one, by name): the pass
    rate in each (columns named after the models, else ``a`` and ``b``) and ``fixed`` /
    ``broke`` where one passed every time and the other never."""
    pd = _pandas()

    def rates(results: Results, model: str | None) -> Any:
        frame = results.frame()
        if model is not None:
            frame = frame[frame["model"] == model]
        return frame.groupby("task")["passed"].mean()

    first, second = model_a or "a", model_b or "b"
    if first == second:
        first, second = "a", "b"
    table = pd.DataFrame({first: rates(a, model_a), second: rates(b, model_b)})
    table["flipped"] = ""
    table.loc[(table[first] == 0) & (table[second] == 1), "flipped"] = "fixed"
    table.loc[(table[first] == 1) & (table[second] == 0), "flipped"] = "broke"
    return table


def load_results(out: str | os.PathLike[str], prices: Mapping[str, Price] | None = None, *,
                 verify: bool = True,
                 key_file: str | os.PathLike[str] | None = None) -> Results:  # fmt: skip
    """The results in an output folder (``OUT/results.jsonl``): the rows that verify under
    this machine's key (``verify=False``: every row, for results brought from elsewhere)."""
    from .results import ResultsFile

    return Results(ResultsFile(out, key_file=key_file, verify=verify).rows(), prices)
