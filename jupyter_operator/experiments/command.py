"""``jupyter-operator eval``: a grid of tasks x models x repeats from the command line.

    jupyter-operator eval SUITE|--suite builtin --model NAME [--model NAME ...] [--base-url URL]
                          [--replay FILE ...] [--reference] [--repeats N] [--workers N]
                          [--dask ADDRESS] [--approve all] [--unsandboxed] [--out DIR]
                          [--dialect auto|operator|json|commands]
                          [--price MODEL=IN[,OUT]] [--rerun-stale] [--retry-errors]
                          [--max-tokens N] [--max-cost USD] [--max-seconds S]
                          [--budget-cost USD] [--approve ask --server URL [--token TOKEN]]

One line per finished run on stderr (why it failed, when it did); at the end a table per
model on stdout. Before the first run, one request to each endpoint model checks the key, the
endpoint and the model. Exit status 0 when the grid ran (whatever passed), 1 when every run
ended in a fault of the endpoint or the harness, 2 when it could not start (a usage error, a
bad task file naming the file and the field, no sandbox, the endpoint's check).
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _count(least: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``least``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"{value} is less than {least}")
        return value

    return parse


def _amount(text: str) -> float:
    """An argparse type: a finite number above 0."""
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"{text} is not more than 0")
    return value


def add_parser(sub: Any) -> None:
    """The ``eval`` subcommand's arguments (each help says its default)."""
    ev = sub.add_parser("eval", help="run a task suite over one or more models, unattended",
                        description="Run a grid of tasks x models x repeats, each run in a "
                                    "fresh copy of the task's files, unattended.")  # fmt: skip
    ev.add_argument("suite", nargs="?", default=None,
                    help="a suite folder (task folders) or one task folder")
    ev.add_argument("--suite", dest="suite_name", default=None, metavar="NAME",
                    help="a shipped suite: builtin (not with a suite folder)")  # fmt: skip
    ev.add_argument("--model", action="append", default=[], metavar="NAME",
                    help="a model at the endpoint (repeatable); the key is $OPENAI_API_KEY "
                         "(default: none)")  # fmt: skip
    ev.add_argument("--base-url", default=None,
                    help="OpenAI-compatible endpoint (default: $OPENAI_BASE_URL, else OpenAI)")
    ev.add_argument("--replay", action="append", default=[], metavar="FILE",
                    help="a scripted model: JSON {task: [replies]} or [replies] (repeatable; "
                         "named after the file; default: none)")  # fmt: skip
    ev.add_argument("--reference", action="store_true",
                    help="also run each task's reference solution, as the model 'reference' "
                         "(default: off)")  # fmt: skip
    ev.add_argument("--repeats", type=_count(1), default=1, metavar="N",
                    help="runs per task and model (default: 1)")
    ev.add_argument("--workers", type=_count(0), default=None, metavar="N",
                    help="local worker processes (default: the CPUs, at most 8; 0: one by one "
                         "in this process)")  # fmt: skip
    ev.add_argument("--dask", default=None, metavar="ADDRESS",
                    help="a Dask scheduler's address: run on its workers instead (default: "
                         "the local workers)")  # fmt: skip
    ev.add_argument("--approve", choices=("all", "ask"), default=None,
                    help="all: approve everything inside each run's copy but translated tool "
                         "calls; ask: ask a person in the JupyterLab panel of --server "
                         "(default: only what the task's rules allow; the rest is rejected "
                         "with a reason)")  # fmt: skip
    ev.add_argument("--server", default=None, metavar="URL",
                    help="with --approve ask: the running Jupyter server's URL, with its base "
                         "URL (default: none)")  # fmt: skip
    ev.add_argument("--token", default=None, metavar="TOKEN",
                    help="with --server: its API token (default: $JUPYTER_TOKEN)")
    ev.add_argument("--dialect", default=None, metavar="DIALECT[,DIALECT...]",
                    help="how the model asks for work: operator (OPERATOR_CMD blocks), json "
                         "(JSON operations), commands (string commands), auto (each reply's "
                         "own), several joined by commas, or all (operator,json,commands): "
                         "each task runs in each, a grid axis like --model; of several, a "
                         "task whose task.toml names its dialect runs in that one only "
                         "(default: each task's dialect, operator unless its task.toml says)")
    ev.add_argument("--unsandboxed", action="store_true",
                    help="run an endpoint model's tasks even where bubblewrap is missing: "
                         "its cells and the task's check then run as you (default: off, "
                         "refused)")  # fmt: skip
    ev.add_argument("--out", default="eval-results", metavar="DIR",
                    help="output folder: results.jsonl and transcripts/, resumed if present "
                         "(default: eval-results)")  # fmt: skip
    ev.add_argument("--rerun-stale", action="store_true",
                    help="run again the finished runs whose task, check, model or settings "
                         "changed since (default: off: they are named on stderr and kept)")
    ev.add_argument("--retry-errors", action="store_true",
                    help="run again the runs that ended in a fault of the endpoint or the "
                         "harness (model_error, timeout, harness_error; never a failed check), "
                         "and try rate-limited runs again after the endpoint's Retry-After "
                         "(default: off: they are counted on stderr and kept)")  # fmt: skip
    ev.add_argument("--price", action="append", default=[], metavar="MODEL=IN[,OUT]",
                    help="USD per million prompt (and completion) tokens: a cost column, "
                         "and what --max-cost counts in (default: none)")  # fmt: skip
    ev.add_argument("--max-tokens", type=_count(1), default=None, metavar="N",
                    help="each run's token budget (the endpoint's usage); a task's own lower "
                         "one wins (default: the task's, else none)")  # fmt: skip
    ev.add_argument("--max-cost", type=_amount, default=None, metavar="USD",
                    help="each run's cost budget, from --price (a model without a price is "
                         "refused); a task's own lower one wins (default: the task's, else "
                         "none)")  # fmt: skip
    ev.add_argument("--budget-cost", type=_amount, default=None, metavar="USD",
                    help="the grid's cost budget, from --price: a run starts only while the "
                         "grid can afford it (by its finished runs' costs); the rest are not "
                         "started, listed in OUT/not-started.json, and a later run with a "
                         "larger budget starts them (default: none)")  # fmt: skip
    ev.add_argument("--max-seconds", type=_amount, default=None, metavar="S",
                    help="each run's time budget; a task's own lower one wins (default: the "
                         "task's max_seconds, else 300)")  # fmt: skip


def _prices(texts: list[str]) -> dict[str, Any]:
    prices: dict[str, Any] = {}
    for text in texts:
        model, _, numbers = text.partition("=")
        parts = [float(n) for n in numbers.split(",") if n.strip()]
        if not model or len(parts) not in (1, 2):
            raise ValueError(f"--price {text}: write MODEL=IN or MODEL=IN,OUT")
        prices[model] = parts[0] if len(parts) == 1 else (parts[0], parts[1])
    return prices


def _models(args: Any) -> list[Any]:
    from .single import ModelSpec

    models = [ModelSpec.endpoint(name, args.base_url) for name in args.model]
    for file in args.replay:
        data = json.loads(Path(file).read_text(encoding="utf-8"))
        if not isinstance(data, (dict, list)):
            raise ValueError(f"--replay {file}: a JSON object of task -> replies, or a list")
        models.append(ModelSpec.scripted(Path(file).stem, data))
    if args.reference:
        models.append(ModelSpec.references())
    return models


def _review(args: Any) -> Any:
    """``--approve ask --server URL [--token]`` as a ``Review`` (None without ``ask``)."""
    import os

    from .review import Review

    if args.approve != "ask":
        if args.server is not None or args.token is not None:
            raise ValueError("--server and --token go with --approve ask")
        return None
    if not args.server:
        raise ValueError("--approve ask needs --server URL: the Jupyter server whose JupyterLab "
                         "panel asks the person")  # fmt: skip
    token = args.token if args.token is not None else os.environ.get("JUPYTER_TOKEN")
    return Review(args.server, token, experiment=Path(args.out).name or "eval")


def _say(text: str) -> None:
    print(f"jupyter-operator eval: {text}", file=sys.stderr)


def run(args: Any) -> int:
    """Run the grid the arguments describe: 0 when it ran (whatever passed), 1 when every run
    it ran ended in a fault of the endpoint or the harness, 2 when it could not start."""
    from ..agent import ModelError
    from .analysis import Results
    from .grid import Experiment
    from .progress import plural
    from .results import ERRORS
    from .review import ReviewError, check_server
    from .single import SandboxUnavailable, ScratchError, scratch_parent
    from .tasks import TaskError

    if args.suite is not None and args.suite_name is not None:
        _say(f"give a suite folder ({args.suite}) or --suite {args.suite_name}, not both")
        return 2
    suite = args.suite_name or args.suite
    if suite is None:
        _say("give a suite folder or --suite builtin")
        return 2
    try:
        models = _models(args)
        prices = _prices(args.price)
        if not models:
            raise ValueError("give at least one --model, --replay or --reference")
        review = _review(args)
        experiment = Experiment(suite, models, repeats=args.repeats, out=args.out,
                                approve_all=args.approve == "all",
                                unsandboxed=args.unsandboxed,
                                rerun_stale=args.rerun_stale,
                                retry_errors=args.retry_errors, prices=prices,
                                max_tokens=args.max_tokens, max_cost=args.max_cost,
                                max_seconds=args.max_seconds,
                                budget_cost=args.budget_cost, review=review,
                                dialect=args.dialect)  # fmt: skip
        refused = experiment.refused()
        stale = experiment.stale()
        errored = experiment.errored()
        if args.dask is None:  # a cluster's workers check where they run
            experiment.check_sandbox()
            scratch_parent()  # $JUPYTER_OPERATOR_EVAL_SCRATCH, if set, is a folder
        experiment.check_models(dask=args.dask)  # one request per endpoint model with runs to do
        if review is not None and experiment.pending():
            check_server(review)  # the server is there and takes the token, before any run
    except (TaskError, ValueError, OSError, SandboxUnavailable, ModelError,
            ReviewError) as exc:  # fmt: skip
        _say(str(exc))
        return 2
    for line in refused:
        _say(f"{experiment.results.path} line {line.line}: refused, {line.reason}; its run is "
             "done again")  # fmt: skip
    if stale:
        _say(_stale_report(stale, rerun=args.rerun_stale))
    if errored:
        _say(_errored_report(errored, retry=args.retry_errors))
    pending = len(experiment.pending())
    total = len(experiment.specs())
    dialects = experiment.dialects or ()
    axis = f"{plural(len(dialects), 'dialect')} x " if len(dialects) > 1 else ""
    _say(f"{plural(total, 'run')} ({total - pending} already in {experiment.results.path}), "
         f"{plural(len(experiment.tasks), 'task')} x {plural(len(models), 'model')} x "
         f"{axis}{plural(args.repeats, 'repeat')}")  # fmt: skip
    ran: list[dict[str, Any]] = []
    try:
        with warnings.catch_warnings():  # the refused lines are already listed above
            warnings.simplefilter("ignore")
            results = experiment.run(workers=args.workers, dask=args.dask,
                                     progress=_recording(ran), notice=_say)  # fmt: skip
    # a cluster's worker without bubblewrap, or whose $JUPYTER_OPERATOR_EVAL_SCRATCH is no folder
    except (SandboxUnavailable, ScratchError) as exc:
        _say(str(exc))
        return 2
    results = Results(results.rows, prices)
    print(_table(results))
    if experiment.not_started:
        _say(_not_started_report(experiment))
    if ran and all(row.get("stop_reason") in ERRORS for row in ran):
        _say(f"every run ended in an error of the endpoint or the harness ({ran[0]['stop_reason']}"
             f": {ran[0].get('stop_message')})")  # fmt: skip
        return 1
    return 0


def _not_started_report(experiment: Any) -> str:
    """One line: how many runs the grid's cost budget did not start, why, where they are
    listed, and how to start them."""
    from .progress import plural
    from .results import run_label
    from .spending import NOT_STARTED

    left = experiment.not_started
    first = left[0]
    return (f"{plural(len(left), 'run')} not started: {run_label(*first.key)} "
            f"first: {first.reason}; listed in {experiment.results.out / NOT_STARTED} "
            "(a larger --budget-cost starts them)")  # fmt: skip


#: How many stale runs the report names (the count is always whole).
STALE_NAMED = 10


def _stale_report(stale: list[Any], *, rerun: bool) -> str:
    """One line: how many finished runs are stale, which (the first ``STALE_NAMED``, each with
    what changed), and whether they are run again."""
    from .progress import plural

    names = "; ".join(str(item) for item in stale[:STALE_NAMED])
    if len(stale) > STALE_NAMED:
        names += f"; and {len(stale) - STALE_NAMED} more"
    action = ("run again (--rerun-stale)" if rerun
              else "kept and counted as done (--rerun-stale runs them again)")  # fmt: skip
    return (f"{plural(len(stale), 'finished run')} stale: the task, its check, the model or the "
            f"settings changed since {'it' if len(stale) == 1 else 'they'} ran: {names}; "
            f"{action}")


def _errored_report(rows: list[dict[str, Any]], *, retry: bool) -> str:
    """One line: how many runs ended in a fault of the endpoint or the harness, of which
    kinds, and whether they are run again."""
    from collections import Counter

    from .progress import plural

    kinds = Counter(str(row.get("stop_reason")) for row in rows)
    which = ", ".join(f"{kind}: {count}" for kind, count in sorted(kinds.items()))
    action = ("run again (--retry-errors)" if retry
              else "kept and counted as failed (--retry-errors runs them again)")  # fmt: skip
    return f"{plural(len(rows), 'run')} ended in an error ({which}); {action}"


def _recording(ran: list[dict[str, Any]]) -> Callable[[dict[str, Any], Any], None]:
    """The terminal's progress lines, keeping the rows of the runs this command ran."""
    from .progress import TerminalProgress

    show = TerminalProgress()

    def progress(row: dict[str, Any], tally: Any) -> None:
        ran.append(row)
        show(row, tally)

    return progress


def _table(results: Any) -> str:
    """Per model (and per dialect, when the rows hold several): runs, passed, the pass rate
    with its 95% Wilson interval, runs that ended in an error of the endpoint or the harness
    (counted as failed), tokens (and cost), without pandas."""
    from .results import ERRORS, run_key
    from .stats import CONFIDENCE, wilson

    several = len({run_key(row)[3] for row in results.rows}) > 1
    lines = [("model\tdialect" if several else "model")
             + f"\truns\tpassed\tpass_rate [{CONFIDENCE:.0%} interval]\terrors\ttokens"
             + ("\tcost_usd" if results.prices else "")]  # fmt: skip
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for row in results.rows:
        group = (row["model"], run_key(row)[3]) if several else (row["model"],)
        groups.setdefault(group, []).append(row)
    for group, rows in sorted(groups.items()):
        passed = sum(bool(r.get("passed")) for r in rows)
        errors = sum(r.get("stop_reason") in ERRORS for r in rows)
        tokens = sum(int(r.get("tokens") or 0) for r in rows)
        low, high = wilson(passed, len(rows))
        line = ("\t".join(group) + f"\t{len(rows)}\t{passed}\t{passed / len(rows):.1%} "
                f"[{low:.1%}, {high:.1%}]\t{errors}\t{tokens}")  # fmt: skip
        if results.prices:
            costs = [r["cost"] for r in rows if r.get("cost") is not None]
            line += f"\t{sum(costs):.4f}" if costs else "\t-"
        lines.append(line)
    return "\n".join(lines)
