"""``jupyter-operator``: run a model's reply from a script or a terminal.

    jupyter-operator run [--root DIR] [--approve all|none|ask]
                         [--dialect auto|operator|json|commands] [--shell RULES] [FILE]
    jupyter-operator spec
    jupyter-operator undo [--root DIR] [ID]
    jupyter-operator history [--root DIR]

``run`` prints only the results on stdout: ``OPERATOR_RESULT`` blocks (block order), or for
JSON operations the response events (a JSON list); notices, diffs and questions go to stderr
and the terminal. Exit status: 0 whenever the reply was processed (even
with ``ok: false`` results), 1 when undo or history fails, 2 for usage errors.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from typing import IO

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


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

    run = sub.add_parser("run", help="run one reply and print the OPERATOR_RESULT blocks")
    common(run)
    run.add_argument("--approve", choices=("all", "none", "ask"), default=None,
                     help="approve every change, reject every change, or ask for each "
                          "(default: ask on a terminal, else none)")  # fmt: skip
    run.add_argument(
        "--policy", default=None,
        help='what runs without asking and what is denied, e.g. "auto=reads deny=fs.delete"',
    )  # fmt: skip
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

    sub.add_parser("spec", help="print the interface spec to give a model")

    undo = sub.add_parser("undo", help="undo an applied change (the latest by default)")
    common(undo)
    undo.add_argument("id", nargs="?", default=None, help="history entry id, e.g. j3")

    history = sub.add_parser("history", help="list the changes applied in a workspace")
    common(history)
    return parser


def _terminal() -> IO[str] | None:
    """The controlling terminal, for questions when stdin carries the reply."""
    try:
        return open("/dev/tty", "r+", encoding="utf-8")
    except OSError:
        return None


def _show_diff(diff: str, out: IO[str]) -> None:
    if out.isatty():
        from pygments import highlight
        from pygments.formatters import TerminalFormatter
        from pygments.lexers import DiffLexer

        out.write(highlight(diff, DiffLexer(), TerminalFormatter()))
    else:
        out.write(diff if diff.endswith("\n") else diff + "\n")


def _describe_pending(item: object, tty: IO[str]) -> None:
    shell = getattr(item, "shell", None)
    if shell is not None:  # the exact command, where it runs and with what
        tty.write(f"\nshell ({item.summary})\n  command: {shell.command}\n  cwd: {shell.cwd}\n")  # type: ignore[attr-defined]
        for name, value in shell.env.items():
            tty.write(f"  env: {name}={value}\n")
        if not shell.sandboxed:
            tty.write("  not sandboxed: it runs with your permissions\n")
        return
    tty.write(f"\n{item.action} {item.path}  ({item.summary})\n")  # type: ignore[attr-defined]
    if item.diff:  # type: ignore[attr-defined]
        _show_diff(item.diff, tty)  # type: ignore[attr-defined]


def _ask(run: object, answers: IO[str], tty: IO[str]) -> None:
    """Show each pending item on ``tty`` and read y / n / a reason to reject from ``answers``.

    Items are taken one at a time, in order: a JSON batch only reveals its next question once
    the current one is decided.
    """
    while run.pending:  # type: ignore[attr-defined]
        item = run.pending[0]  # type: ignore[attr-defined]
        _describe_pending(item, tty)
        tty.write("Apply? [y]es, [n]o, or type a reason to reject: ")
        tty.flush()
        answer = answers.readline()
        if not answer:  # no more answers: refuse the rest
            run.reject_all()  # type: ignore[attr-defined]
            return
        answer = answer.strip()
        if answer.lower() in ("y", "yes"):
            run.approve(item.id)  # type: ignore[attr-defined]
            tty.write(f"  -> {item.status}: {item.result.summary}\n")
        else:
            reason = None if answer.lower() in ("", "n", "no") else answer
            run.reject(item.id, reason)  # type: ignore[attr-defined]
            tty.write("  -> rejected\n")


def _operator(args: argparse.Namespace, policy: object = None) -> object:
    from .engine import Operator

    return Operator(args.root, policy=policy, journal_dir=args.journal_dir)


def _cmd_run(args: argparse.Namespace) -> int:
    from .engine import Policy, ShellPolicy, resolve_dialect, run_text

    try:
        policy = Policy.parse(args.policy) if args.policy else None
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
        mode = "ask" if tty is not None else "none"
    dialect = resolve_dialect(text, args.dialect)
    if dialect == "commands":
        return _cmd_run_commands(args, text, policy, mode, tty)
    operator = _operator(args, policy)
    operator.shell_policy = shell_policy  # type: ignore[attr-defined]
    run = run_text(operator, text, dialect)  # type: ignore[arg-type]
    if run.truncated_chars:
        print(f"jupyter-operator: only the last 200000 characters were scanned "
              f"({run.truncated_chars} cut).", file=sys.stderr)  # fmt: skip
    for skipped in run.skipped_duplicates:
        print(f"jupyter-operator: {skipped} already ran; identical copy skipped.", file=sys.stderr)
    if mode == "all":
        run.approve_all()
    elif mode == "none":
        run.reject_all()
    else:
        assert tty is not None
        with contextlib.ExitStack() as stack:
            if tty is not sys.stdin:
                stack.callback(tty.close)
            _ask(run, tty, sys.stderr if tty is sys.stdin else tty)
    if not run.items:
        print("jupyter-operator: no OPERATOR_CMD blocks found.", file=sys.stderr)
        return EXIT_OK
    sys.stdout.write(run.results_text + "\n")
    return EXIT_OK


def _cmd_run_commands(args: argparse.Namespace, text: str, policy: object, mode: str,
                      tty: IO[str] | None) -> int:  # fmt: skip
    """``run --dialect commands``: run a script of string commands, print every response.

    Each change is decided as ``--approve`` says before the commands after it run.
    """
    from .engine.commands import CommandSession

    with contextlib.ExitStack() as stack:
        if tty is not None and tty is not sys.stdin:
            stack.callback(tty.close)
        batch = CommandSession(_operator(args, policy)).execute(text)  # type: ignore[arg-type]
        while batch.pending is not None:
            if mode == "all":
                batch.approve()
            elif mode == "none":
                batch.reject()
            else:
                assert tty is not None
                _ask(batch.pending.run, tty, sys.stderr if tty is sys.stdin else tty)
    if not batch.replies:
        print("jupyter-operator: no commands found.", file=sys.stderr)
        return EXIT_OK
    sys.stdout.write(batch.text + "\n")
    return EXIT_OK


def _cmd_undo(args: argparse.Namespace) -> int:
    from .protocol import OperatorError

    try:
        entry = _operator(args).undo(args.id)  # type: ignore[attr-defined]
    except OperatorError as exc:
        print(f"jupyter-operator: undo: {exc.summary}", file=sys.stderr)
        return EXIT_FAILED
    print(f"Undid {entry.entry_id}: {entry.action} {entry.path}")
    return EXIT_OK


def _cmd_history(args: argparse.Namespace) -> int:
    import time

    entries = _operator(args).history()  # type: ignore[attr-defined]
    if not entries:
        print("No changes applied in this workspace yet.")
    for e in entries:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(e.time))
        flag = "  (undone)" if e.undone else ""
        print(f"{e.entry_id:>5}  {when}  {e.action:<16} {e.path}  [{e.command_id}]{flag}")
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

        sys.stdout.write(interface_spec())
        return EXIT_OK
    try:
        if args.command == "run":
            return _cmd_run(args)
        if args.command == "undo":
            return _cmd_undo(args)
        return _cmd_history(args)
    except (NotADirectoryError, FileNotFoundError) as exc:
        print(f"jupyter-operator: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\njupyter-operator: interrupted; nothing further was applied.", file=sys.stderr)
        return 130
