"""``%load_ext jupyter_operator``: the ``%%operator`` cell magic and the ``%operator`` line magic.

``%%operator`` plans the reply in the cell and displays the approval panel, then returns at
once; decisions arrive later as button clicks or Python calls (``jupyter_operator.last_run()``).
Every mistake in using the magics is one line (``UsageError``), never a traceback.
"""

from __future__ import annotations

import time
from functools import partial
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class

from . import commands
from .after_run import history_entry, status_text
from .magic_options import USAGE, split_magic_line, take_run_options
from .operators import session

if TYPE_CHECKING:
    from ..engine import DecidableRun
    from ..engine.undo import Direction


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

        %operator root [PATH] | run VARIABLE | policy [RULE | add RULE | load FILE] | undo [ID]
        %operator history | spec | results
        """
        args = split_magic_line(line)
        if cell is not None and args[:1] == ["policy"]:
            from .policy_magic import policy_command

            policy_command(args[1:], cell)
            return
        if cell is not None:
            root, dry_run, dialect, rest = take_run_options(args)
            if rest:
                raise UsageError(
                    f"operator: unexpected {rest[0]!r} (options: --root DIR, --dry-run, "
                    "--dialect NAME)"
                )
            self._show_run(cell, root=root, dry_run=dry_run, dialect=dialect)
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
    def _show_run(
        self, text: str, *, root: str | None, dry_run: bool, dialect: str = "auto"
    ) -> DecidableRun:
        from .run_display import show_run

        return show_run(text, root=root, dry_run=dry_run, dialect=dialect)

    def _cmd_run(self, args: list[str]) -> None:
        root, dry_run, dialect, rest = take_run_options(args)
        if len(rest) != 1:
            raise UsageError(
                "operator: usage: %operator run VARIABLE [--root DIR] [--dry-run] [--dialect NAME]"
            )
        name = rest[0]
        if name not in self.shell.user_ns:
            raise UsageError(f"operator: no variable named {name!r}")
        text = self.shell.user_ns[name]
        if not isinstance(text, str):
            raise UsageError(f"operator: {name} is a {type(text).__name__}, not a string")
        self._show_run(text, root=root, dry_run=dry_run, dialect=dialect)

    # -- session settings ----------------------------------------------------------------------
    def _status(self) -> None:
        state = session()
        root = state.root if state.root is not None else "(the working folder)"
        print(f"root:   {root}")
        print(f"policy: {state.current_policy().summary()}")
        print(f"shell:  {state.current_shell_policy().describe()}")
        print(f"cells:  {'on' if state.extensions else 'off'} (nb.* cell actions)")
        from ..engine import out_of_reach

        print(f"out of reach: {', '.join(out_of_reach())} (docs/protocol.md says why)")
        last = state.last_run
        if last is not None:
            from ..widgets.run_state import run_summary

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
        from .policy_magic import policy_command

        policy_command(args)

    def _cmd_shell(self, args: list[str]) -> None:
        from ..engine import ShellPolicy, sandbox_available

        state = session()
        if args:
            try:
                state.shell_policy = ShellPolicy.parse(" ".join(args))
            except ValueError as exc:
                raise UsageError(f"operator: {exc}") from None
        print(f"shell:  {state.current_shell_policy().describe()}")
        if not sandbox_available():
            print("        (bubblewrap is not available: commands run unsandboxed, after approval)")

    # -- after a run ---------------------------------------------------------------------------
    def _cmd_undo(self, args: list[str]) -> None:
        self._history_step("undo", args)

    def _cmd_redo(self, args: list[str]) -> None:
        self._history_step("redo", args)

    def _history_step(self, direction: Direction, args: list[str]) -> None:
        from ..protocol import OperatorError

        if len(args) > 1:
            raise UsageError(f"operator: usage: %operator {direction} [ID]")
        try:
            print(history_entry(direction, args[0] if args else None))
        except OperatorError as exc:
            if direction == "undo" and not args and not [
                e for e in session().current_operator().history() if not e.undone
            ]:
                print("Nothing to undo: no change is applied in this workspace.")
                return
            raise UsageError(f"operator: cannot {direction}: {exc.message}") from None
        except (ValueError, KeyError) as exc:
            why = exc.args[0] if exc.args else exc
            raise UsageError(f"operator: cannot {direction}: {why}") from None

    def _cmd_history(self, args: list[str]) -> None:
        from IPython.display import display

        from ..engine.executions import executions
        from ..widgets.history_widget import HistoryWidget

        if args:
            raise UsageError("operator: usage: %operator history")
        from ..engine import shell_history

        op = session().current_operator()
        view = HistoryWidget(op.history, undo=partial(history_entry, "undo"),
                             redo=partial(history_entry, "redo"),
                             executions=lambda: [r.to_dict() for r in executions(op.journal)])
        session().history_views.add(view)
        display(view)
        commands = shell_history(op)
        if commands:
            print("Shell commands (not undoable):")
            for rec in commands:
                when = time.strftime("%H:%M:%S", time.localtime(rec.time))
                print(
                    f"  {when}  {rec.command_id}  exit {rec.exit_code}"
                    f"{' (timed out)' if rec.timed_out else ''}  {rec.duration_ms} ms  "
                    f"in {rec.cwd}: {' '.join(rec.command.split())[:200]}"
                )

    def _cmd_reset(self, args: list[str]) -> None:
        if args:
            raise UsageError("operator: usage: %operator reset")
        session().reset()
        print("New operator session: earlier runs and their command ids are forgotten "
              "(the undo history on disk stays).")  # fmt: skip

    def _cmd_status(self, args: list[str]) -> None:
        if args:
            raise UsageError("operator: usage: %operator status")
        run = session().last_run
        if run is None:
            print("No %%operator run yet in this kernel.")
            return
        print(status_text(run))

    def _cmd_spec(self, args: list[str]) -> None:
        from IPython.display import display

        from ..protocol import interface_spec
        from ..widgets import CopyBox

        if args:
            raise UsageError("operator: usage: %operator spec")
        spec = interface_spec(actions=session().extensions)  # what %%operator runs
        box = CopyBox("Operator Interface Specification: paste it into your chat", spec, rows=16)
        display(box)

    def _cmd_cells(self, args: list[str]) -> None:
        from .operators import EXTENSIONS

        state = session()
        if args == ["on"]:
            state.extensions = EXTENSIONS
        elif args == ["off"]:
            state.extensions = ()
        elif args:
            raise UsageError("operator: usage: %operator cells [on|off]")
        if state.extensions:
            print("cell actions: on (nb.readCells, nb.insertCell, ... each change approved)")
        else:
            print("cell actions: off (a reply using them gets ERR_UNKNOWN_ACTION)")

    def _cmd_results(self, args: list[str]) -> None:
        if args:
            raise UsageError("operator: usage: %operator results")
        run = session().last_run
        if run is None:
            raise UsageError("operator: no %%operator run yet")
        if session().last_dry_run:
            print(
                "The last run was a dry run: nothing was written, and its results are not for "
                "the model. Run the reply without --dry-run to decide for real."
            )
            return
        waiting = [item.id for item in run.pending]
        if waiting:
            ids = ", ".join(waiting)
            print(
                f"Still waiting for your decision: {ids}. Click Approve or Reject on "
                f"{'its card' if len(waiting) == 1 else 'their cards'} above; "
                "the results below do not include them yet.\n"
            )
        print(run.results_text or "(no results yet)")


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


def last_run() -> DecidableRun | None:
    """The ``Run`` of the most recent ``%%operator`` (or ``%operator run``) in this kernel."""
    return session().last_run


def last_view() -> Any:
    """The cards (``RunWidget``) displayed for the most recent run, or None."""
    return session().last_view
