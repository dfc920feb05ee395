"""The grid: tasks x models x dialects x repeats, each run in its own copy, on a pool or a Dask
cluster.

``Experiment.run`` sends the runs not yet in ``OUT/results.jsonl`` to an executor (inline, a
local process pool, or a ``dask.distributed.Client``: the same ``run_one`` everywhere), writes
each row as it comes back, and tells a progress display. The order is repeat, then task, then
model, then dialect, so a grid cut short still compares the models and the dialects on the same
tasks.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..agent.budgets import check_limits
from ..agent.prices import Price, prices_of
from .fingerprint import NO_FINGERPRINT, changed, fingerprint, fingerprint_parts
from .progress import Tally
from .results import ERRORS, Refused, ResultsFile, run_key, run_label
from .review import Review
from .single import ModelSpec, RunSpec, SandboxUnavailable, check_endpoint, run_one, settle
from .spending import GridBudget, NotStarted, record
from .tasks import Task, load_suite

Progress = Callable[[dict[str, Any], "Tally"], None]
#: How many more times a grid that retries errors tries a run the endpoint rate-limited, in
#: the same call of ``run`` (after that, its row stays: the next ``--retry-errors`` tries it).
RATE_LIMIT_RETRIES = 3
#: The longest wait before such a try: an endpoint's ``Retry-After`` beyond it is cut to it.
MAX_WAIT_S = 60.0


def rate_limit_wait(row: dict[str, Any], attempt: int, max_wait_s: float) -> float | None:
    """How long to wait before trying ``row``'s run again: None unless the endpoint limited
    its requests (HTTP 429); the endpoint's ``Retry-After`` when it said, else 1, 2, 4 ...
    seconds by ``attempt``; never more than ``max_wait_s``."""
    if row.get("stop_reason") != "model_error" or row.get("error_kind") != "rate_limit":
        return None
    asked = row.get("retry_after_s")
    if isinstance(asked, (int, float)) and not isinstance(asked, bool) and asked == asked:
        return min(max(0.0, float(asked)), max_wait_s)
    return min(2.0**attempt, max_wait_s)


@dataclass(frozen=True)
class Stale:
    """A finished run whose row no longer describes the run the grid would do now: its task,
    check, model or settings changed (``changed`` names the parts, ``fingerprint.PARTS``)."""

    key: tuple[str, str, int, str]
    changed: tuple[str, ...]

    def __str__(self) -> str:
        what = ", ".join(self.changed)
        if self.changed != (NO_FINGERPRINT,):
            what += " changed"
        return f"{run_label(*self.key)} ({what})"


def grid_dialects(dialect: str | Iterable[str] | None) -> tuple[str, ...] | None:
    """The dialects a grid runs in: None (each task's own), else the named ones in order,
    from a sequence or one text: a dialect, several joined by commas, or ``all`` (every
    dialect but ``auto``). ``ValueError`` names an unknown one."""
    from ..engine.dialect_runs import CHOICES, DIALECTS

    if dialect is None:
        return None
    names = dialect.split(",") if isinstance(dialect, str) else list(dialect)
    found: list[str] = []
    for name in (str(n).strip() for n in names):
        if not name:  # "operator,,json", a trailing comma
            continue
        for one in DIALECTS if name == "all" else (name,):
            if one not in CHOICES:
                raise ValueError(f"unknown dialect {one!r}; choose one of "
                                 f"{', '.join(CHOICES)}, or all")  # fmt: skip
            if one not in found:
                found.append(one)
    if not found:
        raise ValueError("give at least one dialect")
    return tuple(found)


def _executor_runs(specs: Sequence[RunSpec], workers: int, dask: Any,
                   budget: GridBudget | None = None,
                   left: list[RunSpec] | None = None) -> Iterator[dict[str, Any]]:  # fmt: skip
    """Rows as the runs finish (any order). With ``budget``, each run starts only once the
    budget says so, in order; the runs it stops before are appended to ``left``."""
    if budget is not None:
        yield from _budgeted_runs(specs, workers, dask, budget,
                                  left if left is not None else [])  # fmt: skip
        return
    if dask is not None:
        yield from _dask_runs(specs, dask)
        return
    if workers <= 0:
        for spec in specs:
            yield run_one(spec)
        return
    # spawn, not fork: a notebook's kernel has threads, and a forked copy of them can hang.
    context = multiprocessing.get_context("spawn")
    pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=context)
    try:
        futures = [pool.submit(run_one, spec) for spec in specs]
        for future in cf.as_completed(futures):
            yield future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _budgeted_runs(specs: Sequence[RunSpec], workers: int, dask: Any, budget: GridBudget,
                   left: list[RunSpec]) -> Iterator[dict[str, Any]]:  # fmt: skip
    """The runs of ``specs`` in order, each started when ``budget`` can afford it, at most
    ``workers`` at a time (the cluster's threads on Dask); the caller counts each finished row
    into ``budget`` before the next is asked for."""
    waiting = list(specs)
    if dask is None and workers <= 0:
        while waiting:
            if budget.decide(waiting[0]) == "stop":
                break
            spec = waiting.pop(0)
            budget.started(spec)
            yield run_one(spec)
        left.extend(waiting)
        return
    client = pool = None
    if dask is not None:
        from distributed import Client
        from distributed import wait as dask_wait

        client = Client(dask) if isinstance(dask, str) else dask
        workers = max(1, sum(client.nthreads().values()))

        def submit(spec: RunSpec) -> Any:
            return client.submit(run_one, spec, pure=False)

        def first_done(futures: Iterable[Any]) -> set[Any]:
            return set(dask_wait(list(futures), return_when="FIRST_COMPLETED").done)
    else:
        pool = cf.ProcessPoolExecutor(max_workers=workers,
                                      mp_context=multiprocessing.get_context("spawn"))

        def submit(spec: RunSpec) -> Any:
            return pool.submit(run_one, spec)

        def first_done(futures: Iterable[Any]) -> set[Any]:
            return set(cf.wait(list(futures), return_when=cf.FIRST_COMPLETED).done)
    running: dict[Any, RunSpec] = {}
    try:
        while waiting or running:
            while waiting and len(running) < workers:
                decision = budget.decide(waiting[0])
                if decision == "stop" or (decision == "wait" and running):
                    break
                spec = waiting.pop(0)
                budget.started(spec)
                running[submit(spec)] = spec
            if not running:  # the budget stopped the grid, and nothing is under way
                break
            for future in first_done(running):
                running.pop(future)
                yield future.result()
        left.extend(waiting)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        if client is not None and isinstance(dask, str):
            client.close()


def _dask_runs(specs: Sequence[RunSpec], dask: Any) -> Iterator[dict[str, Any]]:
    from distributed import Client, as_completed

    client = Client(dask) if isinstance(dask, str) else dask
    try:
        futures = [client.submit(run_one, spec, pure=False) for spec in specs]
        for future in as_completed(futures):
            yield future.result()
    finally:
        if isinstance(dask, str):
            client.close()


def _on_dask(function: Callable[[Any], Any], argument: Any, dask: Any) -> Any:
    """``function(argument)`` on a worker of the cluster."""
    from distributed import Client

    client = Client(dask) if isinstance(dask, str) else dask
    try:
        return client.submit(function, argument, pure=False).result()
    finally:
        if isinstance(dask, str):
            client.close()


class Experiment:
    """A grid of ``tasks`` (a suite folder, ``"builtin"``, or ``Task`` objects) x ``models``
    (``ModelSpec``, or a name: an endpoint model at ``base_url``) x ``dialect`` x ``repeats``,
    written to ``out``. ``dialect``: one, several (a sequence, or names joined by commas) or
    ``"all"`` (``grid_dialects``); None runs each task in its own. Unattended: what the task's
    rules do not allow is rejected with a reason the model sees, unless ``approve_all`` (only
    the run's copy is ever at stake).

    An endpoint model's runs start only where the sandbox works (``SandboxUnavailable``
    otherwise), unless ``unsandboxed``. Rows are signed with the key in ``key_file`` (default:
    in Jupyter's data folder, ``results.default_key_file``); a row that does not verify is not
    a finished run (``refused()``), and is done again.

    Each row carries its run's fingerprint (``fingerprint.py``): a finished run whose task,
    check, model or settings changed since is stale (``stale()``). It is kept, and counts as
    done, unless ``rerun_stale``: then it is run again, and its new row replaces the old.

    A run that ended in a fault of the endpoint or the harness (``results.ERRORS``:
    ``model_error``, ``timeout``, ``harness_error``; never a failed check) is kept too
    (``errored()``), unless ``retry_errors``: then it is run again, and a run the endpoint
    rate-limits is tried again up to ``RATE_LIMIT_RETRIES`` times, each after the wait its
    ``Retry-After`` asks (at most ``max_wait_s``).

    Budgets: ``max_tokens``, ``max_cost`` (USD) and ``max_seconds`` apply to every run, each
    as the lower of it and the task's own (``RunSpec.limits``); a run that reaches one stops
    with the reason ``budget``. ``prices`` (model name -> USD per million tokens,
    ``agent.prices.Price``) gives each row its ``cost``; a run with a cost budget whose model
    has no price is refused here, before anything runs.

    ``budget_cost`` (USD) is the grid's own cost budget (``spending.py``): a run starts only
    when the grid can afford it, by the cost of its finished runs and an estimate of the
    next; the runs it cannot afford are not started (``not_started``, and
    ``OUT/not-started.json``), and a later ``run`` (with a larger budget) starts them. It needs
    the price of every endpoint model."""

    def __init__(self, tasks: str | os.PathLike[str] | Iterable[Task],
                 models: Iterable[ModelSpec | str], *, repeats: int = 1,
                 out: str | os.PathLike[str] = "eval-results", base_url: str | None = None,
                 approve_all: bool = False, unsandboxed: bool = False,
                 key_file: str | os.PathLike[str] | None = None,
                 rerun_stale: bool = False, retry_errors: bool = False,
                 max_wait_s: float = MAX_WAIT_S, prices: Mapping[str, Price] | None = None,
                 max_tokens: int | None = None, max_cost: float | None = None,
                 max_seconds: float | None = None, budget_cost: float | None = None,
                 review: Review | None = None,
                 dialect: str | Iterable[str] | None = None) -> None:  # fmt: skip
        if isinstance(tasks, (str, os.PathLike)):
            tasks = load_suite(tasks)
        self.tasks = list(tasks)
        self.models = [m if isinstance(m, ModelSpec) else ModelSpec.endpoint(m, base_url)
                       for m in models]  # fmt: skip
        names = [m.name for m in self.models]
        if not self.models or len(set(names)) != len(names):
            raise ValueError("give at least one model, each with its own name")
        if repeats < 1:
            raise ValueError("repeats must be at least 1")
        self.repeats = repeats
        self.approve_all = approve_all
        self.unsandboxed = unsandboxed
        #: ``--dialect``: the dialects the grid runs each task in (None: each task's own). One
        #: replaces every task's; of several, a task whose ``task.toml`` names its dialect runs
        #: in that one only (``Task.dialect_pinned``).
        self.dialects = grid_dialects(dialect)
        self.rerun_stale = rerun_stale
        self.retry_errors = retry_errors
        self.max_wait_s = max_wait_s
        if review is not None and approve_all:
            raise ValueError("approve everything or ask a person (review), not both")
        #: ``--approve ask``: where what the rules leave open is asked of a person.
        self.review = review
        self.prices = dict(prices or {})
        for price in self.prices.values():
            prices_of(price)  # a price that is no price is refused now, not in a worker
        check_limits(max_tokens=max_tokens, max_cost=max_cost, max_seconds=max_seconds,
                     priced=False)  # each model's price is checked below
        self.max_tokens, self.max_cost, self.max_seconds = max_tokens, max_cost, max_seconds
        for spec in self.specs():
            if "max_cost" in spec.limits() and spec.price is None:
                raise ValueError(f"model {spec.model.name!r}: a cost budget (max_cost, of the "
                                 f"task {spec.task.name!r} or the grid) needs the model's "
                                 f"price: --price {spec.model.name}=IN[,OUT] (prices= in "
                                 "Python)")  # fmt: skip
        if budget_cost is not None:
            check_limits(max_cost=budget_cost, priced=False)
            unpriced = sorted({m.name for m in self.models
                               if m.untrusted and m.name not in self.prices})  # fmt: skip
            if unpriced:
                raise ValueError(f"a grid's cost budget needs the price of every endpoint model: "
                                 f"{unpriced[0]!r} has none (--price {unpriced[0]}=IN[,OUT]; "
                                 "prices= in Python)")  # fmt: skip
        self.budget_cost = budget_cost
        #: The runs the latest ``run`` did not start (its cost budget could not afford them).
        self.not_started: list[NotStarted] = []
        self.results = ResultsFile(out, key_file=key_file)
        self._parts: dict[tuple[str, str, str], dict[str, str]] = {}
        #: The progress of the latest ``run`` (what a display shows).
        self.tally: Tally | None = None

    def task_dialects(self, task: Task) -> tuple[str | None, ...]:
        """The grid's dialects for ``task`` (None: the task's own)."""
        if self.dialects is None or (len(self.dialects) > 1 and task.dialect_pinned):
            return (None,)
        return self.dialects

    def specs(self) -> list[RunSpec]:
        """Every run of the grid, in order."""
        return [RunSpec(task, model, repeat, self.approve_all, unsandboxed=self.unsandboxed,
                        max_tokens=self.max_tokens, max_cost=self.max_cost,
                        max_seconds=self.max_seconds, price=self.prices.get(model.name),
                        review=self.review, dialect=dialect)
                for repeat in range(self.repeats) for task in self.tasks
                for model in self.models for dialect in self.task_dialects(task)]  # fmt: skip

    def fingerprint_parts(self, spec: RunSpec) -> dict[str, str]:
        """``fingerprint.fingerprint_parts(spec)``, worked out once per task, model and
        dialect (the repeats share it)."""
        key = (spec.task.name, spec.model.name, spec.run_dialect)
        if key not in self._parts:
            self._parts[key] = fingerprint_parts(spec)
        return self._parts[key]

    def stale(self) -> list[Stale]:
        """The finished runs of this grid whose rows no longer describe the run it would do
        now (their task, check, model or settings changed), in the grid's order."""
        rows = {run_key(r): r for r in self.results.rows()}
        done = self.results.done(retry_errors=self.retry_errors)
        found = []
        for spec in self.specs():
            if spec.key in done:
                what = changed(rows[spec.key], self.fingerprint_parts(spec))
                if what is not None:
                    found.append(Stale(spec.key, tuple(what)))
        return found

    def errored(self) -> list[dict[str, Any]]:
        """The rows of this grid's runs that ended in a fault of the endpoint or the harness
        (``results.ERRORS``), in the grid's order: kept unless ``retry_errors``."""
        rows = {run_key(r): r for r in self.results.rows()}
        found = [rows.get(spec.key) for spec in self.specs()]
        return [row for row in found if row is not None and row.get("stop_reason") in ERRORS]

    def _done(self) -> set[tuple[Any, Any, Any]]:
        """The runs ``run`` skips: the finished ones, but the stale ones with ``rerun_stale``
        and those that ended in errors with ``retry_errors``."""
        done = self.results.done(retry_errors=self.retry_errors)
        if self.rerun_stale:
            done -= {stale.key for stale in self.stale()}
        return done

    def pending(self) -> list[RunSpec]:
        """The runs not yet in the results (what ``run`` will do)."""
        done = self._done()
        return [spec for spec in self.specs() if spec.key not in done]

    def refused(self) -> list[Refused]:
        """The lines of ``results.jsonl`` that do not verify (their runs are done again)."""
        return self.results.refused()

    def check_sandbox(self, specs: Sequence[RunSpec] | None = None) -> None:
        """Raise ``SandboxUnavailable`` when a pending run (or one of ``specs``) needs the
        sandbox and bubblewrap cannot run here (a worker checks again before each run)."""
        from ..shell import sandbox_available

        specs = self.pending() if specs is None else specs
        if any(spec.needs_sandbox for spec in specs) and not sandbox_available():
            raise SandboxUnavailable()

    def check_models(self, *, dask: Any = None) -> None:
        """One request to each endpoint model with runs pending (where the runs will run: on a
        Dask worker with ``dask``), so a missing key, an endpoint that cannot be reached or
        an unknown model stops the grid before its first run (``ModelError`` names the model
        and says which)."""
        from ..agent import ModelError

        models = {spec.model.name: spec.model for spec in self.pending()
                  if spec.model.untrusted}  # fmt: skip
        for model in models.values():
            try:
                if dask is None:
                    check_endpoint(model)
                else:
                    _on_dask(check_endpoint, model, dask)
            except ModelError as exc:
                raise ModelError(exc.kind, f"model {model.name!r}: {exc.message}") from None

    def run(self, *, workers: int | None = None, dask: Any = None,
            progress: Progress | bool | None = None,
            notice: Callable[[str], None] | None = None) -> Any:  # fmt: skip
        """Run what is pending; return every row of ``out`` as ``Results``.

        ``workers``: processes of the local pool (default: the CPUs, at most 8; 0 runs them
        one by one in this process). ``dask``: a ``distributed.Client`` or a scheduler address,
        instead of the pool. ``progress``: a callback ``(row, tally)``, True for the default
        display (a widget in a notebook, a line per run in a terminal), False for none.
        ``notice``: told, in a sentence, of each wait before a rate-limited run is tried again.

        Raises ``SandboxUnavailable`` before any run when an endpoint model's runs would run
        without the sandbox (on a Dask cluster: from the first worker that lacks it), and
        ``single.ScratchError`` when ``$JUPYTER_OPERATOR_EVAL_SCRATCH`` names no folder. Lines of
        the results that do not verify are warned about, and their runs done again.
        """
        import warnings

        from .analysis import Results
        from .progress import default_progress, plural

        specs = self.specs()
        keys = {spec.key for spec in specs} & self._done()
        tally = Tally(total=len(specs), budget_cost=self.budget_cost, prices=self.prices)
        for row in self.results.rows():  # resumed: what earlier runs of this grid finished
            if run_key(row) in keys:
                tally.add(row)
        tally.skipped = tally.done
        todo = self.pending()
        if dask is None:  # a cluster's workers are checked where they run
            self.check_sandbox(todo)
        refused = self.refused()
        if refused:
            first = refused[0]
            warnings.warn(f"{self.results.path}: {plural(len(refused), 'line')} refused (done "
                          f"again); line {first.line}: {first.reason}",
                          stacklevel=2)  # fmt: skip
        stale = self.stale()
        if stale:
            action = "run again" if self.rerun_stale else "kept (rerun_stale=True runs them again)"
            warnings.warn(f"{self.results.path}: {plural(len(stale), 'row')} stale, {action}; "
                          f"{stale[0]}", stacklevel=2)  # fmt: skip
        specs_by_key = {spec.key: spec for spec in todo}
        show = default_progress(tally) if progress is True or progress is None else progress
        if workers is None:
            workers = min(8, os.cpu_count() or 1)
        self.tally = tally
        budget, left = self._budget(), []
        attempt = 0
        while todo:
            again: list[RunSpec] = []
            ready = time.monotonic()
            for row in _executor_runs(todo, workers, dask, budget, left):
                clock = time.perf_counter()
                spec = specs_by_key[run_key(row)]
                parts = self.fingerprint_parts(spec)
                row.update(fingerprint=fingerprint(parts), fingerprint_parts=parts)
                saved = self.results.add(row)  # every try is written: a crash loses none
                if budget is not None:  # every try spent what it spent
                    budget.add_finished([saved])
                tally.bookkeeping_seconds += time.perf_counter() - clock
                wait = None
                if self.retry_errors and attempt < RATE_LIMIT_RETRIES:
                    wait = rate_limit_wait(saved, attempt, self.max_wait_s)
                if wait is not None:  # tried again below: not yet a finished run
                    again.append(spec)
                    ready = max(ready, time.monotonic() + wait)
                    if notice:
                        notice(_waiting(saved, wait, attempt, self.max_wait_s))
                    continue
                tally.add(saved)
                if show:
                    show(saved, tally)
            attempt += 1
            todo = again
            if todo:
                time.sleep(max(0.0, ready - time.monotonic()))
        if budget is not None:
            self.not_started = [NotStarted(spec.key, budget.why_not(spec)) for spec in left]
            tally.not_started = len(self.not_started)
            finished = getattr(show, "finished", None)
            if finished is not None:  # a display shows the runs the budget left
                finished(tally)
        record(self.results.out, budget, self.not_started)
        settle()  # this process's runs' folders are gone when it returns (a worker's: at exit)
        return Results(self.results.rows(), self.prices, out=self.results.out)

    def _budget(self) -> GridBudget | None:
        """The grid's spending so far against ``budget_cost`` (None without one): the cost of
        every finished run of the grid, resumed ones included."""
        self.not_started = []
        if self.budget_cost is None:
            return None
        budget = GridBudget(self.budget_cost, self.prices)
        keys = {spec.key for spec in self.specs()}
        budget.add_finished(row for row in self.results.rows() if run_key(row) in keys)
        return budget


def _waiting(row: dict[str, Any], wait: float, attempt: int, max_wait_s: float) -> str:
    """The sentence for a rate-limited run about to be tried again."""
    asked = row.get("retry_after_s")
    said = ""
    if isinstance(asked, (int, float)) and asked > max_wait_s:
        said = f" (it asked for {asked:g} s; the wait is at most {max_wait_s:g} s)"
    elif asked is None:
        said = " (it did not say how long: backing off)"
    return (f"{run_label(*run_key(row))}: the endpoint is limiting requests (429); trying "
            f"again in {wait:g} s{said}, try {attempt + 2} of "
            f"{RATE_LIMIT_RETRIES + 1}")
