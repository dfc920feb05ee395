"""``%load_ext jupyter_operator``: the ``%%operator`` cell magic and the ``%operator`` line magic.

``%%operator`` plans the reply in the cell and displays the approval panel, then returns at
once; decisions arrive later as button clicks or Python calls (``jupyter_operator.last_run()``).
Every mistake in using the magics is one line (``UsageError``), never a traceback.
"""

from __future__ import annotations

import sys
from datetime import datetime
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.utils.process import arg_split

from . import commands
from .session import session

if TYPE_CHECKING:
    from ..engine import HistoryEntry, Run

USAGE = """\
%%operator [--root DIR] [--dry-run]   run the cell (a model's reply) against the workspace
%%operator --dialect commands         run the cell's string commands (/open, /write, ...)
%op /COMMAND                          run one string command (%op /help lists them)
%operator root [PATH]                 show or set the workspace root (default: the working folder)
%operator run VARIABLE [--root DIR] [--dry-run]
                                      run the reply held in a string variable
%operator policy [auto=... deny=...]  show or set what runs without asking and what is refused
%operator undo [ID]                   undo the last applied change (or the history entry ID)
%operator history                     list the applied changes of this session
%operator spec                        the interface spec, to paste into a chat
%operator results                     the results text of the last run again
%operator model [NAME] [--base-url URL]
                                      the model of %%operator_agent (key: in the environment)"""


def _split(line: str) -> list[str]:
    try:
        return arg_split(line, posix=not sys.platform.startswith("win"))
    except ValueError as exc:  # unbalanced quotes
        raise UsageError(f"operator: cannot read the options ({exc})") from None


def _run_options(args: list[str]) -> tuple[str | None, bool, list[str]]:
    """Take ``--root DIR`` and ``--dry-run`` out of ``args``; return the rest."""
    root: str | None = None
    dry_run = False
    rest: list[str] = []
    tokens = iter(args)
    for token in tokens:
        if token == "--dry-run":
            dry_run = True
        elif token == "--root":
            root = next(tokens, None)
            if root is None:
                raise UsageError("operator: --root needs a folder")
        elif token.startswith("--root="):
            root = token.partition("=")[2]
        elif token.startswith("-"):
            raise UsageError(f"operator: unknown option {token} (try --root DIR or --dry-run)")
        else:
            rest.append(token)
    return root, dry_run, rest


def _format_time(value: Any) -> str:
    if isinstance(value, (int, float)):
        return datetime.fromtimestamp(value).strftime("%H:%M:%S")
    if isinstance(value, datetime):
        return value.strftime("%H:%M:%S")
    return str(value)


def format_history(entries: list[HistoryEntry]) -> str:
    """The history as aligned text lines, oldest first."""
    if not entries:
        return "No changes applied in this session yet."
    rows = [
        (
            str(e.entry_id), _format_time(e.time), str(e.action), str(e.path),
            str(e.command_id), "undone" if e.undone else "",
        )
        for e in entries
    ]  # fmt: skip
    header = ("ENTRY", "TIME", "ACTION", "PATH", "COMMAND", "")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    )


@magics_class
class OperatorMagics(Magics):
    """The ``operator`` magics (one instance per shell)."""

    @line_cell_magic
    def operator(self, line: str, cell: str | None = None) -> None:
        """Run a model's OPERATOR_CMD blocks with approval, or manage the session.

        %%operator [--root DIR] [--dry-run]
            The cell body is one model reply. Reads run at once; each write, patch, edit or
            delete is shown as a diff with Approve / Reject. Approve from the buttons or in
            Python: ``run = jupyter_operator.last_run(); run.approve("id")``.

        %operator root [PATH] | run VARIABLE | policy [auto=... deny=...] | undo [ID]
        %operator history | spec | results
        """
        args = _split(line)
        if cell is not None and commands.run_dialect_cell(args, cell):
            return
        if cell is not None:
            root, dry_run, rest = _run_options(args)
            if rest:
                raise UsageError(
                    f"operator: unexpected {rest[0]!r} (options: --root DIR, --dry-run)"
                )
            self._show_run(cell, root=root, dry_run=dry_run)
            return
        if not args:
            self._status()
            return
        command, rest = args[0], args[1:]
        handler = getattr(self, f"_cmd_{command}", None)
        if handler is None:
            raise UsageError(f"operator: unknown subcommand {command!r}\n{USAGE}")
        handler(rest)

    # -- running -------------------------------------------------------------------------------
    def _show_run(self, text: str, *, root: str | None, dry_run: bool) -> Run:
        from IPython.display import display

        from ..widgets import RunView

        try:
            run = session().run(text, root=root, dry_run=dry_run)
        except ValueError as exc:
            raise UsageError(f"operator: {exc}") from None
        view = RunView(
            run, title="Operator (dry run: nothing is written)" if dry_run else "Operator"
        )
        session().last_view = view
        display(view)
        return run

    def _cmd_run(self, args: list[str]) -> None:
        root, dry_run, rest = _run_options(args)
        if len(rest) != 1:
            raise UsageError("operator: usage: %operator run VARIABLE [--root DIR] [--dry-run]")
        name = rest[0]
        if name not in self.shell.user_ns:
            raise UsageError(f"operator: no variable named {name!r}")
        text = self.shell.user_ns[name]
        if not isinstance(text, str):
            raise UsageError(f"operator: {name} is a {type(text).__name__}, not a string")
        self._show_run(text, root=root, dry_run=dry_run)

    # -- session settings ----------------------------------------------------------------------
    def _status(self) -> None:
        state = session()
        root = state.root if state.root is not None else "(the working folder)"
        print(f"root:   {root}")
        print(f"policy: {state.current_policy().describe()}")
        last = state.last_run
        if last is not None:
            from ..widgets.panel import run_summary

            print(f"last run: {run_summary(last)}")
        print(USAGE)

    def _cmd_help(self, _args: list[str]) -> None:
        print(USAGE)

    def _cmd_model(self, args: list[str]) -> None:
        from .agent_magics import model_command

        model_command(args)

    def _cmd_root(self, args: list[str]) -> None:
        state = session()
        if not args:
            print(state.resolve_root())
            return
        if len(args) > 1:
            raise UsageError("operator: usage: %operator root [PATH] (quote paths with spaces)")
        try:
            state.root = state.resolve_root(args[0])
        except ValueError as exc:
            raise UsageError(f"operator: {exc}") from None
        print(f"Workspace root: {state.root}")

    def _cmd_policy(self, args: list[str]) -> None:
        from ..engine import Policy

        state = session()
        if args:
            try:
                state.policy = Policy.parse(" ".join(args))
            except ValueError as exc:
                raise UsageError(f"operator: {exc}") from None
        print(f"policy: {state.current_policy().describe()}")

    # -- after a run ---------------------------------------------------------------------------
    def _cmd_undo(self, args: list[str]) -> None:
        from ..protocol import OperatorError

        if len(args) > 1:
            raise UsageError("operator: usage: %operator undo [ID]")
        try:
            entry = session().current_operator().undo(args[0] if args else None)
        except (OperatorError, ValueError, KeyError) as exc:
            message = getattr(exc, "message", None) or (exc.args[0] if exc.args else "")
            raise UsageError(f"operator: cannot undo: {message}") from None
        print(f"Undone: {entry.action} {entry.path} (entry {entry.entry_id})")

    def _cmd_history(self, args: list[str]) -> None:
        if args:
            raise UsageError("operator: usage: %operator history")
        print(format_history(session().current_operator().history()))

    def _cmd_spec(self, args: list[str]) -> None:
        from IPython.display import display

        from ..protocol import interface_spec
        from ..widgets import CopyBox

        if args:
            raise UsageError("operator: usage: %operator spec")
        box = CopyBox(
            "Operator Interface Specification: paste it into your chat", interface_spec(), rows=16
        )
        display(box)

    def _cmd_results(self, args: list[str]) -> None:
        if args:
            raise UsageError("operator: usage: %operator results")
        run = session().last_run
        if run is None:
            raise UsageError("operator: no %%operator run yet")
        waiting = len(run.pending)
        if waiting:
            print(
                f"({waiting} proposal{'s' * (waiting != 1)} still waiting; "
                "their results are not included yet)",
                file=sys.stderr,
            )
        print(run.results_text)


def load_ipython_extension(ipython: Any) -> None:
    """Register the magics on ``ipython`` (called by ``%load_ext jupyter_operator``)."""
    ipython.register_magics(OperatorMagics)
    commands.load(ipython)
    from .agent_magics import register as register_agent  # %%operator_agent

    register_agent(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """Remove the magics again; the session (history, seen ids) is kept for a reload."""
    magics = ipython.magics_manager.magics
    for kind in ("line", "cell"):
        magics[kind].pop("operator", None)
    magics["line"].pop("op", None)
    magics["cell"].pop("operator_agent", None)


def last_run() -> Run | None:
    """The ``Run`` of the most recent ``%%operator`` (or ``%operator run``) in this kernel."""
    return session().last_run


def last_view() -> Any:
    """The approval panel (``RunView``) displayed for the most recent run, or None."""
    return session().last_view
