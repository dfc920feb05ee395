"""Statistics that do not overclaim: Wilson intervals, pass@k and pass^k, the paired
difference's bootstrap interval, checked against known values and brute-force counts; and
the same figures in the notebook's tables, the command line's table and every plot."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

import pytest
from support.replies import b64, block

from jupyter_operator.experiments import Results, compare
from jupyter_operator.experiments.stats import (
    bootstrap_mean,
    fewest_tasks,
    paired_difference,
    pass_at_k,
    pass_hat_k,
    quantile,
    wilson,
)

SUITE = Path(__file__).resolve().parents[1] / "data" / "eval_suite"


def _rows(model: str, outcomes: dict[str, list[bool]], **extra: Any) -> list[dict[str, Any]]:
    return [{"task": task, "model": model, "repeat": n, "passed": passed, "turns": 2,
             "tokens": 100 + 10 * n, "stop_reason": "done", **extra}
            for task, runs in outcomes.items() for n, passed in enumerate(runs)]  # fmt: skip


# -- Wilson --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("passed", "runs", "low", "high"), [
    (8, 10, 0.4902, 0.9433),   # the textbook case
    (5, 10, 0.2366, 0.7634),
    (0, 10, 0.0, 0.2775),      # none passed: the interval still reaches up, not [0, 0]
    (10, 10, 0.7225, 1.0),     # all passed: not [1, 1]
    (1, 2, 0.0945, 0.9055),
    (45, 50, 0.7864, 0.9565),
])  # fmt: skip
def test_wilson_interval_matches_known_values(passed: int, runs: int, low: float,
                                              high: float) -> None:  # fmt: skip
    got = wilson(passed, runs)
    assert got == pytest.approx((low, high), abs=5e-5), got


def test_wilson_interval_widens_with_confidence_and_refuses_nonsense() -> None:
    assert wilson(8, 10, 0.99)[0] < wilson(8, 10)[0] < wilson(8, 10, 0.80)[0]
    assert wilson(8, 10, 0.99) == pytest.approx((0.4008, 0.9599), abs=5e-5)  # z = 2.5758
    assert wilson(0, 0) == (0.0, 1.0)  # nothing ran: nothing known
    for bad in [(11, 10), (-1, 10), (3, -1)]:
        with pytest.raises(ValueError):
            wilson(*bad)
    with pytest.raises(ValueError):
        wilson(1, 2, confidence=1.0)


# -- pass@k and pass^k ---------------------------------------------------------------------------


def test_pass_at_k_and_pass_hat_k_equal_a_count_over_every_k_subset() -> None:
    """The unbiased estimators against brute force: every k-subset of n runs of which c passed,
    counting the subsets with at least one pass (pass@k) and with only passes (pass^k)."""
    for runs in range(1, 9):
        for passed in range(runs + 1):
            outcomes = [True] * passed + [False] * (runs - passed)
            for k in range(1, runs + 1):
                subsets = list(itertools.combinations(outcomes, k))
                any_pass = sum(any(s) for s in subsets) / len(subsets)
                all_pass = sum(all(s) for s in subsets) / len(subsets)
                assert math.isclose(pass_at_k(runs, passed, k), any_pass), (runs, passed, k)
                assert math.isclose(pass_hat_k(runs, passed, k), all_pass), (runs, passed, k)


def test_pass_at_k_needs_k_runs() -> None:
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4) and pass_hat_k(5, 2, 1) == pytest.approx(0.4)
    for k in (0, 6):
        with pytest.raises(ValueError, match="k must be between 1 and the runs"):
            pass_at_k(5, 2, k)


def test_results_pass_at_k_averages_each_tasks_estimate() -> None:
    rows = _rows("m", {"a": [True, False, False, False], "b": [True, True, True, False],
                       "c": [True, True]})  # fmt: skip
    table = Results(rows).pass_at_k(3)
    # a: 1 - C(3,3)/C(4,3) = 0.75, b: 1 - 0 = 1.0; c has 2 runs < k: left out, counted short
    assert table.loc["m", "pass@3"] == pytest.approx((0.75 + 1.0) / 2)
    # a: C(1,3)/C(4,3) = 0, b: C(3,3)/C(4,3) = 0.25
    assert table.loc["m", "pass^3"] == pytest.approx(0.125)
    assert table.loc["m", "tasks"] == 2 and table.loc["m", "short"] == 1
    one = Results(rows).pass_at_k(1)
    assert one.loc["m", "pass@1"] == pytest.approx((0.25 + 0.75 + 1.0) / 3)
    assert one.loc["m", "pass@1"] == one.loc["m", "pass^1"]


# -- the bootstrap -------------------------------------------------------------------------------


def test_the_bootstrap_interval_is_close_to_the_exact_bootstrap_distribution() -> None:
    """For 4 values, every one of the 4**4 resamples is equally likely: the exact percentile
    interval, against the seeded Monte Carlo one."""
    values = [1.0, 0.0, 0.5, -1.0]
    means = sorted(sum(s) / 4 for s in itertools.product(values, repeat=4))
    exact = (quantile(means, 0.025), quantile(means, 0.975))
    assert bootstrap_mean(values, samples=20_000) == pytest.approx(exact, abs=0.07)


def test_the_difference_is_reproducible_and_seeded() -> None:
    a = {f"t{n}": float(n % 3 == 0) for n in range(20)}
    b = {f"t{n}": float(n % 2 == 0) for n in range(20)}
    first, again = paired_difference(a, b), paired_difference(a, b)
    assert first == again, "the same results gave another interval"
    values = [0.13, 0.71, -0.4, 0.52, 0.05, -0.27, 0.9]
    assert bootstrap_mean(values) == bootstrap_mean(values)
    assert bootstrap_mean(values, seed=7) != bootstrap_mean(values), "the seed is not used"
    assert first.difference == pytest.approx(sum(b.values()) / 20 - sum(a.values()) / 20)


def test_a_difference_whose_interval_contains_zero_is_said_to_be_not_significant() -> None:
    a = {f"t{n}": float(n < 6) for n in range(12)}
    b = {f"t{n}": float(n < 7) for n in range(12)}  # one task more out of 12
    found = paired_difference(a, b, names=("old", "new"))
    assert found.low <= 0 <= found.high and not found.significant
    assert found.statement.startswith("No significant difference: new - old = +0.08")
    assert "contains 0" in found.statement


def test_a_clear_difference_on_enough_tasks_is_significant() -> None:
    a = {f"t{n}": 0.0 for n in range(12)}
    b = {f"t{n}": float(n < 10) for n in range(12)}
    found = paired_difference(a, b, names=("old", "new"))
    assert found.significant and found.low > 0
    assert found.statement.startswith("new passes more often than old: new - old = +0.83")


def test_a_unanimous_difference_on_too_few_tasks_is_not_significant() -> None:
    """Five tasks that all flipped: the bootstrap interval is [1, 1], yet a sign test cannot
    tell five coin flips from a difference at 95%: no claim."""
    assert fewest_tasks() == 6 and fewest_tasks(0.99) == 8
    found = paired_difference({f"t{n}": 0.0 for n in range(5)},
                              {f"t{n}": 1.0 for n in range(5)})  # fmt: skip
    assert (found.low, found.high) == (1.0, 1.0)
    assert not found.significant, "five tasks were called a significant difference"
    assert found.statement.startswith("Too few tasks in common to tell (5; at least 6")
    with pytest.raises(ValueError, match="no task in common"):
        paired_difference({"x": 1.0}, {"y": 1.0})


def test_compare_pairs_only_the_tasks_both_ran() -> None:
    a = Results(_rows("m", {f"t{n}": [False, False] for n in range(8)}))
    b = Results(_rows("m", {**{f"t{n}": [True, True] for n in range(6)}, "extra": [True]}))
    compared = compare(a, b)
    assert compared.difference.tasks == 6, "a task only one side ran was paired"
    assert compared.difference.difference == 1.0 and compared.significant
    assert list(compared.table["flipped"]).count("fixed") == 6
    assert compared.statement in repr(compared) and "<table" in compared._repr_html_()
    again = Results(_rows("x", {"t0": [True, False]}) + _rows("y", {"t0": [True, True]}))
    said = again.compare("x", "y").statement
    assert said.startswith("Too few tasks in common") and "y - x = +0.50" in said
    with pytest.raises(ValueError, match="no runs of the model 'z' to compare"):
        again.compare("x", "z")


# -- where a person sees them --------------------------------------------------------------------


def test_by_model_shows_the_pass_rate_with_its_interval_and_the_errors() -> None:
    rows = (_rows("m", {f"t{n}": [n < 8] for n in range(10)})
            + _rows("m", {"t10": [False]}, stop_reason="model_error"))  # fmt: skip
    table = Results(rows).by_model()
    low, high = wilson(8, 11)
    assert table.loc["m", "pass_rate"] == pytest.approx(8 / 11)
    assert (table.loc["m", "pass_rate_low"], table.loc["m", "pass_rate_high"]) == \
        pytest.approx((low, high))
    assert table.loc["m", "passed"] == 8 and table.loc["m", "errors"] == 1
    by_task = Results(rows).by_task()
    assert by_task.loc[("t0", "m"), "pass_rate_high"] == 1.0
    assert by_task.loc[("t0", "m"), "pass_rate_low"] == pytest.approx(wilson(1, 1)[0])


def test_the_command_lines_table_has_the_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from jupyter_operator.cli import main

    replay = tmp_path / "good.json"
    write = block("w1", "fs.write", path="hello.txt", content_b64=b64("hello\n"))
    replay.write_text(json.dumps({"hello": [write, "Done."]}))
    assert main(["eval", str(SUITE), "--replay", str(replay), "--workers", "0", "--out",
                 str(tmp_path / "o")]) == 0  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split("\t")[:5] == ["model", "runs", "passed", "pass_rate [95% interval]",
                                        "errors"]  # fmt: skip
    assert lines[1].startswith("good\t2\t1\t50.0% [9.5%, 90.5%]\t0\t"), lines[1]


@pytest.fixture
def plots() -> Any:
    matplotlib = pytest.importorskip("matplotlib", reason="the plots need matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")


def _error_extents(ax: Any) -> list[tuple[float, float]]:
    """The (low, high) of every error bar drawn on ``ax``, along its bar's value axis."""
    from matplotlib.container import ErrorbarContainer

    found = []
    for bars in ax.containers:  # a bar's error bars are a container of their own too
        if not isinstance(bars, ErrorbarContainer):
            continue
        for collection in bars.lines[2]:
            for segment in collection.get_segments():
                found.append([tuple(point) for point in segment])
    return found


def test_every_plot_shows_the_intervals(plots: Any) -> None:
    rows = (_rows("careful", {"a": [True] * 4, "b": [True, True, False, True]})
            + _rows("hasty", {"a": [True, False, False, False], "b": [False] * 4}))  # fmt: skip
    results = Results(rows)
    ax = results.plot_pass_rate()
    segments = _error_extents(ax)
    assert len(segments) == 4, "a pass-rate bar without its interval"
    spans = sorted((round(s[0][0], 4), round(s[1][0], 4)) for s in segments)
    expected = sorted((round(low, 4), round(high, 4)) for low, high in
                      [wilson(4, 4), wilson(3, 4), wilson(1, 4), wilson(0, 4)])  # fmt: skip
    assert spans == expected
    ax = results.plot_tokens()
    segments = _error_extents(ax)
    assert len(segments) == 4, "tokens against success without both intervals"  # x and y each
    vertical = sorted((round(s[0][1], 4), round(s[1][1], 4)) for s in segments
                      if s[0][0] == s[1][0])  # fmt: skip
    assert vertical == sorted((round(low, 4), round(high, 4)) for low, high in
                              [wilson(7, 8), wilson(1, 8)])  # fmt: skip
