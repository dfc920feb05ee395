"""Results you can read and plot: a DataFrame, pass rates with their intervals, pass@k and
pass^k, tokens against success, cost, and which tasks flipped between two result sets with the
paired difference and its bootstrap interval (the figures come from ``stats``). pandas and
matplotlib are the ``experiments`` extra: tables and plots need them, the grid itself does
not."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..agent.prices import Price, cost_of
from .results import DEFAULT_DIALECT, ERRORS
from .stats import (
    BOOTSTRAP_SAMPLES,
    CONFIDENCE,
    SEED,
    Difference,
    bootstrap_mean,
    paired_difference,
    pass_at_k,
    pass_hat_k,
    wilson,
)


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
    return cost_of(int(row.get("prompt_tokens") or 0), int(row.get("completion_tokens") or 0),
                   price)  # fmt: skip


class Results:
    """The rows of a grid (``results.jsonl``), with tables and plots.

    ``prices`` (model name -> price per million tokens) adds an estimated ``cost`` column;
    ``out``, the output folder the rows came from, is where ``show()`` reads the transcripts.
    """

    def __init__(self, rows: Iterable[Mapping[str, Any]],
                 prices: Mapping[str, Price] | None = None, *,
                 out: str | os.PathLike[str] | None = None) -> None:  # fmt: skip
        self.rows = [dict(row) for row in rows]
        self.prices = dict(prices or {})
        self.out = out
        if self.prices:
            for row in self.rows:
                row["cost"] = cost(row, self.prices)

    def __len__(self) -> int:
        return len(self.rows)

    def __repr__(self) -> str:
        passed = sum(bool(r.get("passed")) for r in self.rows)
        runs = f"{len(self.rows):,} run" + ("" if len(self.rows) == 1 else "s")
        return f"<Results {runs}, {passed} passed>"

    def priced(self, prices: Mapping[str, Price]) -> Results:
        """The same rows with a ``cost`` column from ``prices``."""
        return Results(self.rows, prices, out=self.out)

    def show(self, confidence: float = CONFIDENCE) -> Any:
        """The results viewer in the notebook (what ``jupyter-operator view`` writes): the
        task x model grid with pass rates, their Wilson intervals, tokens, cost and time,
        filters, each run's transcript on a click (read from ``out``), runs side by side."""
        from .viewdata import build_view
        from .viewwidget import ResultsView

        return ResultsView(build_view(self.rows, self.out, prices=self.prices,
                                      confidence=confidence))  # fmt: skip

    def frame(self) -> Any:
        """One row per run as a pandas DataFrame (``dialect`` filled in for rows written
        before rows named theirs)."""
        frame = _pandas().DataFrame(self.rows)
        if len(frame):
            column = frame.get("dialect")
            frame["dialect"] = (DEFAULT_DIALECT if column is None
                                else column.fillna(DEFAULT_DIALECT))  # fmt: skip
        return frame

    def dialects(self) -> list[str]:
        """The dialects these runs used, sorted."""
        return sorted({str(row.get("dialect") or DEFAULT_DIALECT) for row in self.rows})

    def pass_rates(self) -> Any:
        """Pass rate per task (rows) and model (columns); ``by_task()`` has their intervals."""
        return self.frame().pivot_table(index="task", columns="model", values="passed",
                                        aggfunc="mean")  # fmt: skip

    def by_model(self, confidence: float = CONFIDENCE) -> Any:
        """Per model: runs, passed, the pass rate with its Wilson interval (``pass_rate_low``,
        ``pass_rate_high``), ``errors`` (runs the endpoint or the harness ended: counted as
        failed), mean turns and tokens, and the cost when priced."""
        frame = self.frame()
        table = frame.groupby("model").agg(runs=("passed", "size"), passed=("passed", "sum"),
                                           pass_rate=("passed", "mean"))  # fmt: skip
        _intervals(table, confidence)
        reasons = frame["stop_reason"] if "stop_reason" in frame else frame["model"] * 0
        table["errors"] = reasons.isin(ERRORS).groupby(frame["model"]).sum().astype(int)
        table["turns"] = frame.groupby("model")["turns"].mean()
        table["tokens"] = frame.groupby("model")["tokens"].mean()
        if "cost" in frame:
            table["cost"] = frame.groupby("model")["cost"].sum(min_count=1)
        return table

    def by_task(self, confidence: float = CONFIDENCE) -> Any:
        """Per task and model: runs, passed, the pass rate and its Wilson interval."""
        table = self.frame().groupby(["task", "model"]).agg(
            runs=("passed", "size"), passed=("passed", "sum"), pass_rate=("passed", "mean"))
        return _intervals(table, confidence)

    def by_dialect(self, confidence: float = CONFIDENCE) -> Any:
        """Per model and dialect: runs, passed, the pass rate with its Wilson interval,
        ``errors`` (counted as failed), mean turns and tokens (the cost when priced)."""
        frame = self.frame()
        keys = ["model", "dialect"]
        table = frame.groupby(keys).agg(runs=("passed", "size"), passed=("passed", "sum"),
                                        pass_rate=("passed", "mean"))  # fmt: skip
        _intervals(table, confidence)
        reasons = frame["stop_reason"] if "stop_reason" in frame else frame["model"] * 0
        groups = [frame[key] for key in keys]
        table["errors"] = reasons.isin(ERRORS).groupby(groups).sum().astype(int)
        table["turns"] = frame.groupby(keys)["turns"].mean()
        table["tokens"] = frame.groupby(keys)["tokens"].mean()
        if "cost" in frame:
            table["cost"] = frame.groupby(keys)["cost"].sum(min_count=1)
        return table

    def compare_dialects(self, dialect_a: str, dialect_b: str, *, model: str | None = None,
                         confidence: float = CONFIDENCE, samples: int = BOOTSTRAP_SAMPLES,
                         seed: int = SEED) -> Comparison:  # fmt: skip
        """Two dialects of these results compared run by run: each pair is the same task,
        model and repeat in ``dialect_a`` and in ``dialect_b`` (only ``model``'s runs when
        given). ``table``: per pair, whether each passed (1 or 0) and ``fixed`` / ``broke``
        where they differ; ``difference``: ``b`` minus ``a`` in pass rate over the pairs both
        ran, with a seeded bootstrap interval over them."""
        pd = _pandas()
        if dialect_a == dialect_b:
            raise ValueError(f"compare two different dialects, not {dialect_a!r} with itself")
        frame = self.frame()
        if model is not None:
            frame = frame[frame["model"] == model]
        pairs = ["task", "model", "repeat"]

        def passes(dialect: str) -> Any:
            runs = frame[frame["dialect"] == dialect]
            if runs.empty:
                whose = f" of the model {model!r}" if model is not None else ""
                raise ValueError(f"no runs{whose} in the dialect {dialect!r} to compare")
            return runs.set_index(pairs)["passed"].astype(bool).astype(float)

        pass_a, pass_b = passes(dialect_a), passes(dialect_b)
        table = pd.DataFrame({dialect_a: pass_a, dialect_b: pass_b}).dropna()
        if table.empty:
            raise ValueError(f"no run of the same task, model and repeat in both "
                             f"{dialect_a!r} and {dialect_b!r}")  # fmt: skip
        table["flipped"] = ""
        table.loc[(table[dialect_a] == 0) & (table[dialect_b] == 1), "flipped"] = "fixed"
        table.loc[(table[dialect_a] == 1) & (table[dialect_b] == 0), "flipped"] = "broke"
        keyed = {" · ".join(str(part) for part in key): row for key, row in table.iterrows()}
        difference = paired_difference(
            {key: row[dialect_a] for key, row in keyed.items()},
            {key: row[dialect_b] for key, row in keyed.items()},
            names=(dialect_a, dialect_b), confidence=confidence, samples=samples, seed=seed,
            unit="run")  # fmt: skip
        return Comparison(table, difference)

    def pass_at_k(self, k: int) -> Any:
        """Per model, over its tasks with at least ``k`` runs: ``pass@k`` (the chance that one
        of ``k`` runs passes) and ``pass^k`` (that all ``k`` do), each task's unbiased estimate
        averaged over the tasks; ``tasks`` counts them, ``short`` the tasks with fewer runs
        (left out)."""
        pd = _pandas()
        if k < 1:
            raise ValueError(f"k must be at least 1, not {k}")
        counts = self.by_task()
        table = {}
        for model, runs in counts.groupby(level="model"):
            enough = runs[runs["runs"] >= k]
            pairs = list(zip(enough["runs"].astype(int), enough["passed"].astype(int), strict=True))
            at = [pass_at_k(n, c, k) for n, c in pairs]
            hat = [pass_hat_k(n, c, k) for n, c in pairs]
            table[model] = {"tasks": len(enough), "short": len(runs) - len(enough),
                            f"pass@{k}": sum(at) / len(at) if at else float("nan"),
                            f"pass^{k}": sum(hat) / len(hat) if hat else float("nan")}  # fmt: skip
        result = pd.DataFrame.from_dict(table, orient="index")
        result.index.name = "model"
        return result

    def compare(self, model_a: str, model_b: str, **options: Any) -> Comparison:
        """Two models of these results compared (see ``compare``)."""
        return compare(self, self, model_a=model_a, model_b=model_b, **options)

    def plot_pass_rate(self, ax: Any = None, confidence: float = CONFIDENCE) -> Any:
        """Pass rate by task and model, one bar each, with its Wilson interval."""
        plt = _pyplot()
        table = self.by_task(confidence)
        tasks = sorted(table.index.unique(level="task"))
        models = sorted(table.index.unique(level="model"))
        if ax is None:
            _figure, ax = plt.subplots(figsize=(7, 0.8 + 0.3 * len(tasks) * len(models)))
        height = 0.8 / len(models)
        for n, model in enumerate(models):
            runs = table.xs(model, level="model")
            rows = [tasks.index(task) + (n - (len(models) - 1) / 2) * height for task in runs.index]
            rate = runs["pass_rate"].to_numpy(dtype=float)
            error = [rate - runs["pass_rate_low"].to_numpy(dtype=float),
                     runs["pass_rate_high"].to_numpy(dtype=float) - rate]  # fmt: skip
            ax.barh(rows, rate, height, xerr=error, capsize=2, label=model)
        ax.set_yticks(range(len(tasks)), tasks)
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.set_xlabel(f"pass rate ({confidence:.0%} Wilson interval)")
        ax.set_title("Pass rate by task and model")
        ax.legend()
        return ax

    def plot_tokens(self, ax: Any = None, confidence: float = CONFIDENCE) -> Any:
        """Per model: mean tokens per run (bootstrap interval) against its pass rate (Wilson
        interval)."""
        plt = _pyplot()
        frame = self.frame()
        table = self.by_model(confidence)
        if ax is None:
            _figure, ax = plt.subplots(figsize=(6, 3.5))
        for model, runs in frame.groupby("model"):
            tokens = [float(t or 0) for t in runs["tokens"]]
            mean = sum(tokens) / len(tokens)
            low, high = bootstrap_mean(tokens, confidence=confidence)
            rate = float(table.loc[model, "pass_rate"])
            ax.errorbar([mean], [rate], fmt="o", capsize=3, label=model,
                        xerr=[[mean - low], [high - mean]],
                        yerr=[[rate - float(table.loc[model, "pass_rate_low"])],
                              [float(table.loc[model, "pass_rate_high"]) - rate]])  # fmt: skip
        ax.set_ylim(0, 1)
        ax.set_xlabel(f"mean tokens per run ({confidence:.0%} bootstrap interval)")
        ax.set_ylabel(f"pass rate ({confidence:.0%} Wilson interval)")
        ax.set_title("Tokens against success")
        ax.legend()
        return ax


def _intervals(table: Any, confidence: float) -> Any:
    """Add each row's Wilson interval (``pass_rate_low``, ``pass_rate_high``) from its
    ``passed`` and ``runs``."""
    bounds = [wilson(int(c), int(n), confidence) for c, n in
              zip(table["passed"], table["runs"], strict=True)]
    table["passed"] = table["passed"].astype(int)
    table["pass_rate_low"] = [low for low, _high in bounds]
    table["pass_rate_high"] = [high for _low, high in bounds]
    return table


@dataclass(frozen=True)
class Comparison:
    """Two result sets (or two models) compared: ``table`` (per task, each side's pass rate
    and ``fixed`` / ``broke`` where one always passed and the other never did) and
    ``difference``: the paired difference in pass rate over the tasks both ran, its bootstrap
    interval, and ``statement``, which says plainly when it is not significant."""

    table: Any
    difference: Difference

    @property
    def significant(self) -> bool:
        return self.difference.significant

    @property
    def statement(self) -> str:
        return self.difference.statement

    def __repr__(self) -> str:
        return f"{self.statement}\n{self.table!r}"

    def _repr_html_(self) -> str:
        from html import escape

        return f"<p>{escape(self.statement)}</p>{self.table.to_html()}"


def compare(a: Results, b: Results, *, model_a: str | None = None, model_b: str | None = None,
            confidence: float = CONFIDENCE, samples: int = BOOTSTRAP_SAMPLES,
            seed: int = SEED) -> Comparison:  # fmt: skip
    """Two result sets (or two models of one, by name) compared, task by task: each one's pass
    rate (columns named after the models, else ``a`` and ``b``), which tasks flipped, and the
    paired difference (``b`` minus ``a``) over the tasks both ran, with a seeded bootstrap
    interval over tasks: the same results always give the same interval."""
    pd = _pandas()

    def rates(results: Results, model: str | None) -> Any:
        frame = results.frame()
        if model is not None:
            frame = frame[frame["model"] == model]
            if frame.empty:
                raise ValueError(f"no runs of the model {model!r} to compare")
        return frame.groupby("task")["passed"].mean()

    first, second = model_a or "a", model_b or "b"
    if first == second:
        first, second = "a", "b"
    rate_a, rate_b = rates(a, model_a), rates(b, model_b)
    table = pd.DataFrame({first: rate_a, second: rate_b})
    table["flipped"] = ""
    table.loc[(table[first] == 0) & (table[second] == 1), "flipped"] = "fixed"
    table.loc[(table[first] == 1) & (table[second] == 0), "flipped"] = "broke"
    difference = paired_difference(rate_a.to_dict(), rate_b.to_dict(), names=(first, second),
                                   confidence=confidence, samples=samples, seed=seed)  # fmt: skip
    return Comparison(table, difference)


def load_results(out: str | os.PathLike[str], prices: Mapping[str, Price] | None = None, *,
                 verify: bool = True,
                 key_file: str | os.PathLike[str] | None = None) -> Results:  # fmt: skip
    """The results in an output folder (``OUT/results.jsonl``): the rows that verify under
    this machine's key (``verify=False``: every row, for results brought from elsewhere)."""
    from .results import ResultsFile

    return Results(ResultsFile(out, key_file=key_file, verify=verify).rows(), prices, out=out)
