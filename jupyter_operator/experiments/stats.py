"""Statistics that do not overclaim: pass rates with intervals, pass@k and pass^k, and a paired
difference between two models with a bootstrap interval.

Plain Python (no numpy, no scipy), so the command line's table needs nothing installed.

- ``wilson(passed, runs)``: the Wilson score interval of a pass rate. It treats the runs as
  independent draws; runs of the same task are not quite that (a task is easy or hard), so the
  interval of a model's pass rate over a suite is about these tasks, not tasks in general.
- ``pass_at_k`` / ``pass_hat_k``: the unbiased estimators over ``n`` repeats of one task of
  which ``c`` passed: the chance that at least one of ``k`` runs drawn without replacement
  passes (pass@k), and that all ``k`` pass (pass^k, how reliably a model does it).
- ``paired_difference``: the mean over tasks of one model's pass rate minus the other's, on
  the tasks both ran, with a percentile bootstrap interval over tasks (seeded: the same input
  gives the same interval). It is called significant only when the interval leaves out 0 and
  there are enough tasks for a sign test to tell a difference from chance at all.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

#: The confidence of every interval unless a caller asks for another.
CONFIDENCE = 0.95
#: Resamples of a bootstrap interval.
BOOTSTRAP_SAMPLES = 10_000
#: The bootstrap's seed: the same results give the same interval, run after run.
SEED = 0


def z_score(confidence: float = CONFIDENCE) -> float:
    """The two-sided normal quantile of ``confidence`` (1.96 for 0.95)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence!r}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson(passed: int, runs: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The Wilson score interval of ``passed`` out of ``runs`` (8 of 10: 0.490 to 0.943).
    No runs: (0, 1), nothing known."""
    if runs < 0 or not 0 <= passed <= runs:
        raise ValueError(f"passed must be between 0 and runs, not {passed} of {runs}")
    z = z_score(confidence)
    if runs == 0:
        return 0.0, 1.0
    rate, z2 = passed / runs, z * z
    scale = 1 + z2 / runs
    centre = (rate + z2 / (2 * runs)) / scale
    half = z * math.sqrt(rate * (1 - rate) / runs + z2 / (4 * runs * runs)) / scale
    # exact at the ends: none passed is a lower bound of 0, all passed an upper bound of 1
    low = 0.0 if passed == 0 else max(0.0, centre - half)
    return low, 1.0 if passed == runs else min(1.0, centre + half)


def _check_k(runs: int, passed: int, k: int) -> None:
    if not 0 <= passed <= runs:
        raise ValueError(f"passed must be between 0 and runs, not {passed} of {runs}")
    if not 1 <= k <= runs:
        raise ValueError(f"k must be between 1 and the runs ({runs}), not {k}")


def pass_at_k(runs: int, passed: int, k: int) -> float:
    """The chance that at least one of ``k`` of the ``runs`` (drawn without replacement)
    passed: 1 - C(runs - passed, k) / C(runs, k)."""
    _check_k(runs, passed, k)
    return 1 - math.comb(runs - passed, k) / math.comb(runs, k)


def pass_hat_k(runs: int, passed: int, k: int) -> float:
    """The chance that all ``k`` of the ``runs`` (drawn without replacement) passed:
    C(passed, k) / C(runs, k)."""
    _check_k(runs, passed, k)
    return math.comb(passed, k) / math.comb(runs, k)


def quantile(ordered: Sequence[float], q: float) -> float:
    """The ``q`` quantile of sorted values, interpolated between neighbours (numpy's default)."""
    position = q * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def bootstrap_mean(values: Sequence[float], *, confidence: float = CONFIDENCE,
                   samples: int = BOOTSTRAP_SAMPLES,
                   seed: int = SEED) -> tuple[float, float]:  # fmt: skip
    """A percentile bootstrap interval of the mean of ``values`` (seeded: reproducible)."""
    if not values:
        raise ValueError("no values to resample")
    z_score(confidence)  # checks it
    rng = random.Random(seed)
    count = len(values)
    means = sorted(math.fsum(rng.choices(values, k=count)) / count for _ in range(samples))
    tail = (1 - confidence) / 2
    return quantile(means, tail), quantile(means, 1 - tail)


def fewest_tasks(confidence: float = CONFIDENCE) -> int:
    """The fewest tasks on which any difference can be told from chance: a sign test of ``n``
    tasks that all moved the same way has the two-sided p-value 2 / 2**n, so below this number
    of tasks even a unanimous difference is not significant (6 at 95%)."""
    z_score(confidence)
    n = 1
    while 2 / 2**n > 1 - confidence:
        n += 1
    return n


@dataclass(frozen=True)
class Difference:
    """The paired difference of two pass rates (``b`` minus ``a``) over the tasks both ran."""

    a: str
    b: str
    difference: float
    low: float
    high: float
    tasks: int
    confidence: float = CONFIDENCE
    #: What ``tasks`` counts (and the bootstrap resamples): tasks, or the paired runs of a
    #: comparison of dialects (the same task, model and repeat in each).
    unit: str = "task"

    @property
    def enough_tasks(self) -> bool:
        """Whether there are enough tasks for any difference to be told from chance."""
        return self.tasks >= fewest_tasks(self.confidence)

    @property
    def significant(self) -> bool:
        """The interval leaves out 0, on enough tasks to tell."""
        return self.enough_tasks and not self.low <= 0 <= self.high

    @property
    def statement(self) -> str:
        """One plain sentence: what the difference is, and whether it is more than chance."""
        level = f"{self.confidence:.0%}"
        unit = "paired run" if self.unit == "run" else self.unit
        figures = (f"{self.b} - {self.a} = {self.difference:+.2f} in pass rate over "
                   f"{self.tasks} {unit}{'s' if self.tasks != 1 else ''}, {level} interval "
                   f"[{self.low:+.2f}, {self.high:+.2f}]")  # fmt: skip
        if not self.enough_tasks:
            return (f"Too few {unit}s in common to tell ({self.tasks}; at least "
                    f"{fewest_tasks(self.confidence)} are needed before any difference is "
                    f"significant at {level}): {figures}.")  # fmt: skip
        if not self.significant:
            return f"No significant difference: {figures}, which contains 0."
        better, worse = (self.b, self.a) if self.difference > 0 else (self.a, self.b)
        return (f"{better} passes more often than {worse}: {figures} (bootstrap over "
                f"{unit}s).")

    def __str__(self) -> str:
        return self.statement


def paired_difference(a: Mapping[str, float], b: Mapping[str, float], *,
                      names: tuple[str, str] = ("a", "b"), confidence: float = CONFIDENCE,
                      samples: int = BOOTSTRAP_SAMPLES, seed: int = SEED,
                      unit: str = "task") -> Difference:  # fmt: skip
    """The mean over the tasks in both ``a`` and ``b`` (task -> pass rate) of ``b - a``, with a
    percentile bootstrap interval that resamples tasks (seeded: reproducible). ``unit``: what
    the keys are (``"run"``: paired runs), as the statement names them."""
    common = sorted(set(a) & set(b))
    if not common:
        raise ValueError("the two result sets have no task in common")
    differences = [float(b[task]) - float(a[task]) for task in common]
    low, high = bootstrap_mean(differences, confidence=confidence, samples=samples, seed=seed)
    mean = math.fsum(differences) / len(differences)
    return Difference(names[0], names[1], mean, low, high, len(common), confidence, unit)
