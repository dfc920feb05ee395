"""``jupyter-operator``: run a model's reply from a script or a terminal.

    jupyter-operator run [--root DIR] [--approve all|none|ask] [FILE]
    jupyter-operator spec
    jupyter-operator undo [--root DIR] [ID]
    jupyter-operator redo [--root DIR] [ID]
    jupyter-operator history [--root DIR]

``run`` prints only the ``OPERATOR_RESULT`` blocks on stdout (block order); notices, diffs and
questions go to stderr and the terminal. Exit status: 0 whenever the reply was processed (even
with ``ok: false`` results), 1 when undo, redo or history fails, 2 for usage errors.
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
    run.add_argument("file", nargs="?", default="-", help="the reply (default: standard input)")

    sub.add_parser("spec", help="print the interface spec to give a model")

    undo = sub.add_parser("undo", help="undo an applied change (the latest by default)")
    common(undo)
    undo.add_argument("id", nargs="?", default=None, help="history entry id, e.g. j3")

    redo = sub.add_parser("redo", help="apply an undone change again (the last undone by default)")
    common(redo)
    redo.add_argument("id", nargs="?", default=None, help="history entry id, e.g. j3")

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


def _ask(run: object, answers: IO[str], tty: IO[str]) -> None:
    """Show each pending diff on ``tty`` and read y / n / a reason to reject from ``answers``."""
    for item in list(run.pending):  # type: ignore[attr-defined]
        if not item.needs_approval:
            continue  # settled by an earlier decision
        tty.write(f"\n{item.action} {item.path}  ({item.summary})\n")
        if item.diff:
            _show_diff(item.diff, tty)
        tty.write("Apply? [y]es, [n]o, or type a reason to reject: ")
        tty.flush()
        answer = answers.readline().strip()
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
    from .engine import Policy

    try:
        policy = Policy.parse(args.policy) if args.policy else None
    except ValueError as exc:
        print(f"jupyter-operator: --policy: {exc}", file=sys.stderr)
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
    run = _operator(args, policy).run(text)  # type: ignore[attr-defined]
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


def _cmd_undo(args: argparse.Namespace) -> int:
    from .protocol import OperatorError

    verb = args.command
    try:
        operator = _operator(args)
        entry = (operator.undo if verb == "undo" else operator.redo)(args.id)  # type: ignore[attr-defined]
    except OperatorError as exc:
        print(f"jupyter-operator: {verb}: {exc.summary}", file=sys.stderr)
        return EXIT_FAILED
    done = "Undid" if verb == "undo" else "Redid"
    print(f"{done} {entry.entry_id}: {entry.action} {entry.path}")
    return EXIT_OK


def _cmd_history(args: argparse.Namespace) -> int:
    import time

    from .protocol import OperatorError

    try:
        entries = _operator(args).history()  # type: ignore[attr-defined]
    except OperatorError as exc:
        print(f"jupyter-operator: history: {exc.summary}", file=sys.stderr)
        return EXIT_FAILED
    if not entries:
        print("No changes applied in this workspace yet.")
    for e in entries:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(e.time))
        flag = "  (undone)" if e.undone else "  (redone)" if e.redone else ""
        who = "rule" if e.decided_by == "rule" else "person" if e.decided_by else "-"
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

        sys.stdout.write(interface_spec())
        return EXIT_OK
    try:
        if args.command == "run":
            return _cmd_run(args)
        if args.command in ("undo", "redo"):
            return _cmd_undo(args)
        return _cmd_history(args)
    except (NotADirectoryError, FileNotFoundError) as exc:
        print(f"jupyter-operator: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\njupyter-operator: interrupted; nothing further was applied.", file=sys.stderr)
        return 130
