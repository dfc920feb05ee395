"""Agent experiments: task suites, model grids, checks, resumable runs, results to plot.

A task is a folder (``task.toml``, ``files/``, the check's scripts); a suite a folder of
tasks (``"builtin"``: the shipped one). ``Experiment(suite, models).run()`` runs the grid of
tasks x models x repeats, each in a fresh copy of the task's files, unattended, on a local
process pool or a Dask cluster, and writes ``OUT/results.jsonl`` as runs finish (a second run
resumes). ``Results`` turns the rows into tables and plots; ``compare`` says which tasks
flipped and whether the difference is more than chance (``stats``: Wilson intervals, pass@k
and pass^k, a seeded bootstrap). The command line is ``jupyter-operator eval``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .analysis import Comparison, Results, compare, load_results
    from .grid import Experiment, Tally
    from .single import ModelSpec, RunSpec, SandboxUnavailable, run_one
    from .stats import Difference, pass_at_k, pass_hat_k, wilson
    from .tasks import BUILTIN, Task, TaskError, load_suite, load_task

_HOMES = {
    "Comparison": "analysis", "Results": "analysis", "compare": "analysis",
    "load_results": "analysis",
    "Experiment": "grid", "Tally": "grid",
    "ModelSpec": "single", "RunSpec": "single", "run_one": "single",
    "SandboxUnavailable": "single",
    "BUILTIN": "tasks", "Task": "tasks", "TaskError": "tasks", "load_suite": "tasks",
    "load_task": "tasks",
    "Difference": "stats", "pass_at_k": "stats", "pass_hat_k": "stats", "wilson": "stats",
}  # fmt: skip

__all__ = [
    "BUILTIN", "Comparison", "Difference", "Experiment", "ModelSpec", "Results", "RunSpec",
    "SandboxUnavailable", "Tally", "Task", "TaskError",
    "compare", "load_results", "load_suite", "load_task", "pass_at_k", "pass_hat_k", "run_one",
    "wilson",
]  # fmt: skip


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'jupyter_operator.experiments' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f".{home}", __name__), name)
