"""``jupyter-operator agent``: run a task with a model in the loop, from a terminal.

Its options and its loop (the reply streamed to stdout, each change asked for as ``run`` asks)
are apart from cli.py, which only dispatches to ``agent_command``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

from .cli_options import EXIT_FAILED, EXIT_OK, EXIT_USAGE, policy_from_args, policy_options
from .terminal import ask as _ask
from .terminal import visible_text

if TYPE_CHECKING:
    from .engine import DecidableRun

#: The reason the model reads when its change was rejected because no one could be asked.
NO_ONE_TO_ASK = "no one could be asked: the task runs without a terminal and without --approve"


def add_agent_parser(sub: Any, common: Any) -> None:
    """The ``agent`` subcommand on ``sub``; ``common`` adds ``--root`` and ``--journal-dir``."""
    agent = sub.add_parser("agent", help="run a task with a model in the loop")
    common(agent)
    agent.add_argument("--model", default=None,
                       help="model name (default: $JUPYTER_OPERATOR_MODEL)")  # fmt: skip
    agent.add_argument("--base-url", default=None,
                       help="OpenAI-compatible endpoint (default: $OPENAI_BASE_URL, else OpenAI); "
                            "the key is read from $OPENAI_API_KEY")  # fmt: skip
    agent.add_argument("--endpoint", default=None, metavar="NAME",
                       help="a named endpoint (the panel's Add model; jupyter-operator "
                            "models lists them): its base URL, model and key")  # fmt: skip
    agent.add_argument("--replay", default=None, metavar="FILE",
                       help="scripted replies from a JSON or JSONL file (offline)")  # fmt: skip
    agent.add_argument("--approve", choices=("all", "none", "ask"), default=None,
                       help="approve every change, reject every change, or ask for each "
                            "(default: ask on a terminal, else none)")  # fmt: skip
    policy_options(agent)
    agent.add_argument("--max-turns", type=int, default=10)
    agent.add_argument("--transcripts", default=None, metavar="DIR",
                       help="folder of the JSONL transcript (default: runs/ in the undo journal's "
                            "folder); the run's workspace can never reach it")  # fmt: skip
    agent.add_argument("task", help="what the model should do")


def add_models_parser(sub: Any) -> None:
    """``jupyter-operator models``: the named endpoints (never a key)."""
    sub.add_parser("models", help="list the named model endpoints (the panel's Add model)")


def models_command() -> int:
    """Print the named endpoints, one a line, with where each key comes from (never the key)."""
    from .agent.endpoints import EndpointStore

    try:
        saved = EndpointStore().saved()
    except ValueError as exc:
        print(f"jupyter-operator: models: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if not saved:
        print("No named endpoints: add one in the panel's Ask (Add model).")
    for endpoint in saved:
        print(f"{endpoint.name}\t{endpoint.model} at {endpoint.endpoint}\t"
              f"key: {endpoint.key_source()}")  # fmt: skip
    return EXIT_OK


def _named_model(name: str) -> Any:
    """The model of the named endpoint ``name``; ValueError naming the known ones."""
    from .agent.endpoints import EndpointStore, build_model

    store = EndpointStore()
    saved = store.saved()
    found = next((e for e in saved if e.name == name), None)
    if found is None:
        known = ", ".join(e.name for e in saved) or "none yet"
        raise ValueError(f"--endpoint {name}: no such named endpoint (known: {known})")
    return build_model(found, store)


def agent_command(args: argparse.Namespace, open_terminal: Callable[[], IO[str] | None]) -> int:
    """Run the agent loop in a terminal: the reply streams to stdout, changes are asked for.

    ``open_terminal`` gives the terminal for questions when stdin is not one (cli.py passes its
    own ``_terminal``, so replacing that one reaches this command too). Exit status: 0; 1 when
    the endpoint failed, or when changes needed a decision and there was no terminal to ask and
    no ``--approve``; 2 for usage errors.
    """
    import asyncio

    from .agent import Agent, ModelError, OpenAIChat, ReplayModel
    from .agent import events as ev
    from .agent.openai_chat import SettingHints
    from .agent.stops import finished_after

    try:
        policy = policy_from_args(args)
        if args.replay:
            model = ReplayModel(args.replay)
        elif args.endpoint:
            model = _named_model(args.endpoint)
        else:
            hints = SettingHints(model="pass --model NAME (or --replay FILE)",
                                 api_key="in the environment")  # fmt: skip
            model = OpenAIChat(args.model, base_url=args.base_url, hints=hints)
    except (ValueError, OSError) as exc:
        print(f"jupyter-operator: agent: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ModelError as exc:
        print(f"jupyter-operator: agent: {exc.message}", file=sys.stderr)
        return EXIT_USAGE
    mode, tty = args.approve, None
    if mode in (None, "ask"):
        tty = sys.stdin if sys.stdin.isatty() else open_terminal()
        if tty is None and mode == "ask":
            print("jupyter-operator: --approve ask needs a terminal", file=sys.stderr)
            return EXIT_USAGE
        mode = "ask" if tty is not None else "no-one-to-ask"
    unasked = 0  # changes that waited for a person when there was no one to ask

    def decide(run: Any) -> None:
        from .engine.labels import outcome_line

        nonlocal unasked
        if mode == "ask":  # each outcome is said on the terminal as it is decided
            assert tty is not None
            _ask(run, tty, sys.stderr if tty is sys.stdin else tty)
            return
        waiting = [item for item in run.pending if item.needs_approval]
        if mode == "all":
            approve_all_unattended(run)
        elif mode == "none":
            run.reject_all("the person runs this task without applying changes")
        else:
            unasked += len(waiting)
            run.reject_all(NO_ONE_TO_ASK)
        for item in waiting:  # what became of each change, as --approve ask would say it
            print(f"jupyter-operator: {visible_text(item.id)} -> "
                  f"{visible_text(outcome_line(item))}", file=sys.stderr)  # fmt: skip

    out = sys.stdout
    line_open = False  # the streamed reply left stdout in the middle of a line

    def write(text: str) -> None:
        nonlocal line_open
        if text:
            out.write(text)
            line_open = not text.endswith("\n")

    def show(event: object) -> None:
        from .engine.labels import badge, person_text

        if isinstance(event, ev.TurnStarted):
            write(f"\n--- turn {event.turn}/{event.max_turns} ---\n")
        elif isinstance(event, ev.TextDelta):  # the model's text never reaches the terminal raw
            write(visible_text(event.text))
        elif isinstance(event, ev.TurnPlanned):
            write("\n")
            for item in event.run.items:
                line = (f"  [{badge(item.status)}] {item.action or 'invalid'} {item.path or ''} "
                        f"({item.id}): {person_text(item.summary)}")  # fmt: skip
                write(visible_text(line) + "\n")
        elif isinstance(event, ev.Notice):
            if line_open:  # a reply cut mid-line: the notice starts a line of its own
                write("\n")
            out.flush()
            print(f"jupyter-operator: {visible_text(event.message)}", file=sys.stderr)
        out.flush()

    transcripts = args.transcripts if args.transcripts else True
    try:
        agent = Agent(model, root=args.root, policy=policy, max_turns=args.max_turns,
                      decide=decide, transcripts=transcripts,
                      journal_dir=args.journal_dir)  # fmt: skip
    except ValueError as exc:
        print(f"jupyter-operator: agent: {exc}", file=sys.stderr)
        return EXIT_USAGE
    agent.subscribe(show)
    try:
        result = asyncio.run(agent.run(args.task))
    finally:
        if tty is not None and tty is not sys.stdin:
            tty.close()
    where = f" Transcript: {result.transcript_path}" if result.transcript_path else ""
    turns = finished_after(result.turns, result.replies)
    # An offline model reports no usage: its count is an estimate and says so.
    tokens = (f"an estimated {result.tokens} tokens" if result.tokens_estimated
              else f"{result.tokens} tokens")  # fmt: skip
    if result.reason == "model_error":  # its sentence is on stderr already (a notice)
        write(f"\nStopped after {turns} ({tokens}).{where}\n")
        return EXIT_FAILED
    message = result.message.removesuffix(".")
    if result.reason in ("done", "max_turns"):  # their message says the turns already
        write(f"\n{message}, using {tokens}.{where}\n")
    else:
        write(f"\n{message}; {turns}, {tokens}.{where}\n")
    if unasked:  # a script must not take a task whose changes no one could approve as done
        count = f"{unasked} change{'s' * (unasked != 1)}"
        print(f"jupyter-operator: agent: no terminal to ask and no --approve, so {count} "
              f"{'was' if unasked == 1 else 'were'} rejected; use --approve all to apply "
              "changes, or --approve none to run without applying them.",
              file=sys.stderr)  # fmt: skip
        return EXIT_FAILED
    return EXIT_OK


def approve_all_unattended(run: DecidableRun) -> None:
    """``--approve all``: every pending item, but a cell run that would not be sandboxed
    (``approve_all(unattended=True)``; the other dialects run no cells). Also what comes up
    for a decision only after an earlier one (a string-command script goes on after each)."""
    waiting: list[str] = []
    while run.pending and [item.id for item in run.pending] != waiting:
        waiting = [item.id for item in run.pending]
        run.approve_all(unattended=True)
