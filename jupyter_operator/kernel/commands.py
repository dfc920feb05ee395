"""String commands in a notebook: ``%op /open notes.md`` and ``%%operator --dialect commands``.

One ``CommandSession`` per workspace root lives for the kernel's lifetime, on the same
``Operator`` as ``%%operator`` (one journal, one policy, ``%operator undo`` sees its changes).
A cell holds one command per line; ``/write``, ``/append`` and ``/edit`` take the lines after
them as a body, up to a line ``/end`` or the next command.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class

from .session import session

if TYPE_CHECKING:
    from ..engine.commands import Batch, CommandSession

DIALECTS = ("operator", "commands")
_SESSIONS: dict[Path, CommandSession] = {}


def command_session(root: str | None = None) -> CommandSession:
    """The kernel's command session for ``root`` (default: the ``%operator root``).

    Register actions and menus on it: ``command_session().register_action("grade", fn,
    schema={"file": {"type": "path", "required": True}})``.
    """
    from ..engine.commands import CommandSession

    try:
        where = session().resolve_root(root)
    except ValueError as exc:
        raise UsageError(f"operator: {exc}") from None
    operator = session().operator_for(where)
    found = _SESSIONS.get(where)
    if found is None or found.operator is not operator:
        found = _SESSIONS[where] = CommandSession(operator)
    return found


def show(batch: Batch, commands: CommandSession) -> Batch:
    """Display a batch as a run's cards (each response, the change or bash line to decide,
    what waits behind it) and remember it."""
    from ..engine.commands.run import CommandRun
    from ..widgets.saved_output import SavedOutput
    from .run_display import widget_for

    run = CommandRun(commands, batch)
    view = widget_for(run)
    state = session()
    state.last_run, state.last_view, state.last_dry_run = run, view, False  # type: ignore[assignment]
    saved = SavedOutput(view)
    run.subscribe(lambda _item: saved.update(view))
    return batch


def take_dialect(args: list[str]) -> str:
    """Remove ``--dialect NAME`` (or ``--dialect=NAME``) from ``args``; return NAME."""
    name = "operator"
    for index, token in enumerate(list(args)):
        if token == "--dialect":
            if index + 1 >= len(args):
                raise UsageError("operator: --dialect needs a name (operator or commands)")
            name = args[index + 1]
            del args[index : index + 2]
            break
        if token.startswith("--dialect="):
            name = token.partition("=")[2]
            del args[index]
            break
    if name not in DIALECTS:
        raise UsageError(f"operator: unknown dialect {name!r} (choose {' or '.join(DIALECTS)})")
    return name


def run_dialect_cell(args: list[str], cell: str) -> bool:
    """Run a ``%%operator --dialect commands`` cell.

    Returns False (with ``--dialect operator`` taken out of ``args``) for the default dialect.
    """
    if take_dialect(args) != "commands":
        return False
    root = None
    if args[:1] == ["--root"] and len(args) == 2:
        root = args[1]
    elif args[:1] and args[0].startswith("--root=") and len(args) == 1:
        root = args[0].partition("=")[2]
    elif args:
        raise UsageError(f"operator: unexpected {args[0]!r} (options: --dialect, --root DIR)")
    commands = command_session(root)
    show(commands.execute(cell), commands)
    return True


@magics_class
class CommandMagics(Magics):
    """``%op``: one string command against the workspace."""

    @line_magic
    def op(self, line: str) -> None:
        """Run one string command: ``%op /open notes.md#Setup``, ``%op /ls``, ``%op /undo``.

        Commands that change files need a body: use ``%%operator --dialect commands``. A bash
        line (``%op pytest -q``) shows the command and its folder for approval, then runs in
        the sandbox (``%operator shell allow=pytest`` runs it without asking).
        ``{name}`` variables set with ``/set`` are expanded; ``%op /help`` lists the commands.
        """
        text = line.strip()
        if not text:
            raise UsageError("operator: usage: %op /command [arguments] (try %op /help)")
        commands = command_session()
        show(commands.execute(text), commands)


def load(ipython: Any) -> None:
    """Register ``%op`` on ``ipython``."""
    ipython.register_magics(CommandMagics)
