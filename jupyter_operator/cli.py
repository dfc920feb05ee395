"""``jupyter-operator``: run a model's reply from a script or a terminal.

    jupyter-operator run [--root DIR] [--approve all|none|ask]
                         [--dialect auto|operator|json|commands] [--shell RULES] [FILE]
    jupyter-operator spec
    jupyter-operator undo [--root DIR] [ID]
    jupyter-operator redo [--root DIR] [ID]
    jupyter-operator history [--root DIR]
    jupyter-operator agent --root DIR (--model NAME | --replay FILE) [--approve ask|all|none] TASK
    jupyter-operator eval SUITE|--suite builtin --model NAME [...] (see experiments/command.py)
    jupyter-operator view OUT [-o FILE] (see experiments/viewcommand.py)

``run`` prints only the results on stdout: ``OPERATOR_RESULT`` blocks (block order), or for
JSON operations the response events (a JSON list); notices, diffs and questions go to stderr
and the terminal. Exit status: 0 whenever the reply was processed (even
with ``ok: false`` results), 1 when undo, redo or history fails, 2 for usage errors. When the
reply was longer than the 200,000 characters scanned and the part cut off held ``OPERATOR_CMD``
markers, their commands did not run: a warning on stderr tells the person, and the results tell
the model (the first result's summary carries the note, or, with no other result, a result of
its own with ``ERR_REPLY_TOO_LONG``), so stdout still holds one result block per command read.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from typing import IO

from .cli_agent import (
    add_agent_parser,
    add_models_parser,
    agent_command,
    approve_all_unattended,
    models_command,
)
from .cli_options import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    operator_from_args,
    policy_from_args,
    policy_options,
)
from .terminal import ask as _ask
from .terminal import open_terminal as _terminal
from .terminal import reject_without_terminal as _reject_without_terminal
from .terminal import visible_text


def _extension_names(text: str) -> tuple[str, ...]:
    from .protocol import check_extensions

    try:
        return check_extensions(name for name in text.split(",") if name)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jupyter-operator",
        description="Run the OPERATOR_CMD blocks of a model's reply inside one workspace folder.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--root", default=".", help="workspace root folder (default: .)")
        p.add_argument(
            "--journal-dir", default=None,
            help="undo journal folder (default: in Jupyter's data directory)",
        )  # fmt: skip

    def extensions(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--extensions", default=(), type=_extension_names, metavar="NAMES",
            help="host extensions of the protocol to enable, e.g. nb (the notebook cell "
            "actions); none by default: the command line runs the spec's actions only",
        )  # fmt: skip

    run = sub.add_parser("run", help="run one reply and print the OPERATOR_RESULT blocks")
    extensions(run)
    common(run)
    run.add_argument("--approve", choices=("all", "none", "ask"), default=None,
                     help="approve every change, reject every change, or ask for each "
                          "(default: ask on a terminal, else none)")  # fmt: skip
    policy_options(run)
    run.add_argument(
        "--dialect",
        choices=("auto", "operator", "json", "commands"),
        default="auto",
        help="how the reply asks for work: detected (default), OPERATOR_CMD blocks, JSON "
        "operations or string commands",
    )
    run.add_argument(
        "--shell",
        default=None,
        help='rules for shell commands, e.g. "allow=pytest,ls deny=*sudo* network=off"',
    )
    run.add_argument("file", nargs="?", default="-", help="the reply (default: standard input)")

    extensions(sub.add_parser("spec", help="print the interface spec to give a model"))

    undo = sub.add_parser("undo", help="undo an applied change (the latest by default)")
    common(undo)
    undo.add_argument("id", nargs="?", default=None, help="history entry id, e.g. j3")

    redo = sub.add_parser("redo", help="apply an undone change again (the last undone by default)")
    common(redo)
    redo.add_argument("id", nargs="?", default=None, help="history entry id, e.g. j3")

    history = sub.add_parser("history", help="list the changes applied in a workspace")
    common(history)
    add_agent_parser(sub, common)
    add_models_parser(sub)
    from .experiments.command import add_parser as add_eval_parser

    add_eval_parser(sub)
    from .experiments.viewcommand import add_parser as add_view_parser

    add_view_parser(sub)
    from .mcp_config import add_parser as add_mcp_parser

    add_mcp_parser(sub)
    return parser


def _rule_notes(run: object) -> None:
    """One line on stderr for each item a rule decided or asks about (reads by default aside)."""
    from .engine.rules import rule_note

    for item in run.items:  # type: ignore[attr-defined]
        note = rule_note(item.decided_by, item.rule, item.status)
        if note and item.rule != "default: auto reads" and not item.needs_approval:
            print(f"jupyter-operator: {visible_text(item.id)} {note}", file=sys.stderr)


def _cmd_run(args: argparse.Namespace) -> int:
    from .engine import ShellPolicy

    try:
        policy = policy_from_args(args)
    except OSError as exc:
        print(f"jupyter-operator: --policy: cannot read {args.policy}: {exc.strerror or exc}",
              file=sys.stderr)  # fmt: skip
        return EXIT_USAGE
    except ValueError as exc:
        print(f"jupyter-operator: --policy: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        shell_policy = ShellPolicy.parse(args.shell) if args.shell else ShellPolicy()
    except ValueError as exc:
        print(f"jupyter-operator: --shell: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.file == "-":
        text = sys.stdin.read()
    else:
        try:
            with open(args.file, encoding="utf-8", newline="") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError) as exc:
            print(f"jupyter-operator: cannot read {args.file}: {exc}", file=sys.stderr)
            return EXIT_USAGE
    mode = args.approve
    tty: IO[str] | None = None
    if mode in (None, "ask"):
        # Answers come from stdin when it is a terminal and not the reply, else from /dev/tty.
        tty = sys.stdin if args.file != "-" and sys.stdin.isatty() else _terminal()
        if tty is None and mode == "ask":
            print("jupyter-operator: --approve ask needs a terminal", file=sys.stderr)
            return EXIT_USAGE
        mode = "ask" if tty is not None else "default-none"
    operator = operator_from_args(args, policy)
    try:
        return _run_reply(args, operator, text, args.dialect, mode, tty, shell_policy)
    finally:
        operator.close()  # type: ignore[attr-defined]  # its kernels stop with it


def _run_reply(args: argparse.Namespace, operator: object, text: str, dialect: str, mode: str,
               tty: IO[str] | None, shell_policy: object) -> int:  # fmt: skip
    from .engine import plan
    from .engine.labels import NO_BLOCKS, cut_warning
    from .protocol import format_results, with_unread_note

    operator.shell_policy = shell_policy  # type: ignore[attr-defined]
    run = plan(operator, text, dialect)  # type: ignore[arg-type]
    unread = run.unread_markers
    # Commands cut off by the scan window: the person is warned on stderr; the model is told in
    # the result blocks (stdout keeps the contract: result blocks only, one per command read).
    if run.truncated_chars:
        warning = cut_warning(run.truncated_chars, unread)
        print(f"jupyter-operator: {'WARNING: ' if unread else ''}{warning}", file=sys.stderr)
    for skipped in run.skipped_duplicates:
        print(f"jupyter-operator: {skipped} already ran; identical copy skipped.", file=sys.stderr)
    if mode == "all":
        approve_all_unattended(run)
    elif mode == "none":
        run.reject_all()
    elif mode == "default-none":
        _reject_without_terminal(run)
    else:
        assert tty is not None
        with contextlib.ExitStack() as stack:
            if tty is not sys.stdin:
                stack.callback(tty.close)
            _ask(run, tty, sys.stderr if tty is sys.stdin else tty)
    if not run.items and not unread:
        nothing = "no commands found." if run.dialect == "commands" else NO_BLOCKS
        print(f"jupyter-operator: {nothing}", file=sys.stderr)
        return EXIT_OK
    _rule_notes(run)
    text = run.results_text
    if unread:  # stdout holds result blocks only: the note rides in them, not before them
        results = [item.result for item in run.items if item.result is not None]
        text = format_results(with_unread_note(results, run.truncated_chars, unread))
    sys.stdout.write(text + "\n")
    return EXIT_OK


def _cmd_undo(args: argparse.Namespace) -> int:
    from .protocol import OperatorError

    verb = args.command
    try:
        operator = operator_from_args(args)
        entry = (operator.undo if verb == "undo" else operator.redo)(args.id)  # type: ignore[attr-defined]
    except OperatorError as exc:  # a person reads this: the message, not the model's format
        print(f"jupyter-operator: {verb}: {visible_text(exc.message)}", file=sys.stderr)
        return EXIT_FAILED
    done = "Undid" if verb == "undo" else "Redid"
    print(f"{done} {entry.entry_id}: {entry.action} {entry.path}")
    return EXIT_OK


def _cmd_history(args: argparse.Namespace) -> int:
    import time

    from .protocol import OperatorError

    try:
        entries = operator_from_args(args).history()  # type: ignore[attr-defined]
    except OperatorError as exc:
        print(f"jupyter-operator: history: {visible_text(exc.message)}", file=sys.stderr)
        return EXIT_FAILED
    if not entries:
        print("No changes applied in this workspace yet.")
    for e in entries:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(e.time))
        flag = "  (undone)" if e.undone else "  (redone)" if e.redone else ""
        who = "person" if e.decided_by == "person" else "-"
        if e.decided_by == "rule":
            who = visible_text(e.rule) if e.rule else "rule"  # "rule 2: auto fs.write notes/**"
        print(
            f"{e.entry_id:>5}  {when}  {e.action:<16} {e.path}  [{e.command_id}]  "
            f"session {e.session or '-'}  by {who}{flag}"
        )
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``jupyter-operator`` command."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors and 0 for --help
        return int(exc.code or 0)
    if args.command == "spec":
        from .protocol import interface_spec

        sys.stdout.write(interface_spec(actions=args.extensions))
        return EXIT_OK
    try:
        if args.command == "run":
            return _cmd_run(args)
        if args.command in ("undo", "redo"):
            return _cmd_undo(args)
        if args.command == "agent":
            return agent_command(args, _terminal)
        if args.command == "models":
            return models_command()
        if args.command == "eval":
            from .experiments.command import run as run_eval

            return run_eval(args)
        if args.command == "view":
            from .experiments.viewcommand import run as run_view

            return run_view(args)
        if args.command == "mcp":
            from .mcp_config import run as run_mcp

            return run_mcp(args)
        return _cmd_history(args)
    except (NotADirectoryError, FileNotFoundError) as exc:
        print(f"jupyter-operator: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\njupyter-operator: interrupted; nothing further was applied.", file=sys.stderr)
        return 130
