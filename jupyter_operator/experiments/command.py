"""``jupyter-operator eval``: a grid of tasks x models x repeats from the command line.

    jupyter-operator eval SUITE|--suite builtin --model NAME [--model NAME ...] [--base-url URL]
                          [--replay FILE ...] [--reference] [--repeats N] [--workers N]
                          [--dask ADDRESS] [--approve all] [--unsandboxed] [--out DIR]
                          [--price MODEL=IN[,OUT]]

One line per finished run on stderr; at the end a table per model on stdout. Exit status 0
when the grid ran (whatever passed), 2 for usage errors (a bad task file names the file and
the field).
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Any


def add_parser(sub: Any) -> None:
    """The ``eval`` subcommand's arguments."""
    ev = sub.add_parser("eval", help="run a task suite over one or more models, unattended")
    ev.add_argument("suite", nargs="?", default=None,
                    help="a suite folder (task folders) or one task folder")  # fmt: skip
    ev.add_argument("--suite", dest="suite_name", default=None, metavar="NAME",
                    help="a shipped suite: builtin")  # fmt: skip
    ev.add_argument("--model", action="append", default=[], metavar="NAME",
                    help="a model at the endpoint (repeatable); the key is $OPENAI_API_KEY")
    ev.add_argument("--base-url", default=None,
                    help="OpenAI-compatible endpoint (default: $OPENAI_BASE_URL, else OpenAI)")
    ev.add_argument("--replay", action="append", default=[], metavar="FILE",
                    help="a scripted model: JSON {task: [replies]} or [replies] (repeatable; "
                         "named after the file)")  # fmt: skip
    ev.add_argument("--reference", action="store_true",
                    help="also run each task's reference solution (model 'reference')")
    ev.add_argument("--repeats", type=int, default=1, help="runs per task and model")
    ev.add_argument("--workers", type=int, default=None,
                    help="local worker processes (default: the CPUs, at most 8; 0: in-process)")
    ev.add_argument("--dask", default=None, metavar="ADDRESS",
                    help="a Dask scheduler's address: run on its workers instead")
    ev.add_argument("--approve", choices=("all",), default=None,
                    help="approve everything inside each run's copy (default: only what the "
                         "task's rules allow; the rest is rejected with a reason)")  # fmt: skip
    ev.add_argument("--unsandboxed", action="store_true",
                    help="run an endpoint model's tasks even where bubblewrap is missing: "
                         "its cells and the task's check then run as you (refused "
                         "otherwise)")  # fmt: skip
    ev.add_argument("--out", default="eval-results",
                    help="output folder: results.jsonl and transcripts/ (resumed if present)")
    ev.add_argument("--price", action="append", default=[], metavar="MODEL=IN[,OUT]",
                    help="USD per million prompt (and completion) tokens: a cost column")


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


def run(args: Any) -> int:
    """Run the grid the arguments describe."""
    from .analysis import Results
    from .grid import Experiment
    from .single import SandboxUnavailable
    from .tasks import TaskError

    suite = args.suite_name or args.suite
    if suite is None:
        print("jupyter-operator eval: give a suite folder or --suite builtin", file=sys.stderr)
        return 2
    try:
        models = _models(args)
        prices = _prices(args.price)
        if not models:
            raise ValueError("give at least one --model, --replay or --reference")
        experiment = Experiment(suite, models, repeats=args.repeats, out=args.out,
                                approve_all=args.approve == "all",
                                unsandboxed=args.unsandboxed)  # fmt: skip
        refused = experiment.refused()
        if args.dask is None:  # a cluster's workers check where they run
            experiment.check_sandbox()
    except (TaskError, ValueError, OSError, SandboxUnavailable) as exc:
        print(f"jupyter-operator eval: {exc}", file=sys.stderr)
        return 2
    for line in refused:
        print(f"jupyter-operator eval: {experiment.results.path} line {line.line}: refused, "
              f"{line.reason}; its run is done again", file=sys.stderr)  # fmt: skip
    pending = len(experiment.pending())
    total = len(experiment.specs())
    print(f"jupyter-operator eval: {total} runs ({total - pending} already in "
          f"{experiment.results.path}), {len(experiment.tasks)} tasks x {len(models)} models x "
          f"{args.repeats} repeats", file=sys.stderr)  # fmt: skip
    try:
        with warnings.catch_warnings():  # the refused lines are already listed above
            warnings.simplefilter("ignore")
            results = experiment.run(workers=args.workers, dask=args.dask, progress=True)
    except SandboxUnavailable as exc:  # a cluster's worker without bubblewrap
        print(f"jupyter-operator eval: {exc}", file=sys.stderr)
        return 2
    results = Results(results.rows, prices)
    print(_table(results))
    return 0


def _table(results: Any) -> str:
    """Per model: runs, passed, pass rate, tokens (and cost), without pandas."""
    lines = ["model\truns\tpassed\tpass_rate\ttokens" + ("\tcost_usd" if results.prices else "")]
    models: dict[str, list[dict[str, Any]]] = {}
    for row in results.rows:
        models.setdefault(row["model"], []).append(row)
    for model, rows in sorted(models.items()):
        passed = sum(bool(r.get("passed")) for r in rows)
        tokens = sum(int(r.get("tokens") or 0) for r in rows)
        line = f"{model}\t{len(rows)}\t{passed}\t{passed / len(rows):.1%}\t{tokens}"
        if results.prices:
            costs = [r["cost"] for r in rows if r.get("cost") is not None]
            line += f"\t{sum(costs):.4f}" if costs else "\t-"
        lines.append(line)
    return "\n".join(lines)
