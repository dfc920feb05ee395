"""String commands in a notebook: ``%op /open notes.md`` and ``%%operator --dialect commands``.

One ``CommandSession`` per workspace root lives for the kernel's lifetime, on the same
``Operator`` as ``%%operator`` (one journal, one policy, ``%operator undo`` sees its changes).
A cell holds one command per line; ``/write``, ``/append`` and ``/edit`` take the lines after
them as a body, up to a line ``/end`` or the next command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class

from .operators import session

if TYPE_CHECKING:
    from ..engine.commands import CommandSession


def command_session(root: str | None = None) -> CommandSession:
    """The kernel's command session for ``root`` (default: the ``%operator root``).

    Register actions and menus on it: ``command_session().register_action("grade", fn,
    schema={"file": {"type": "path", "required": True}})``.
    """
    try:
        where = session().resolve_root(root)
    except ValueError as exc:
        raise UsageError(f"operator: {exc}") from None
    return session().command_session(where)


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
        from .run_display import show_run

        show_run(text, dialect="commands")


def load(ipython: Any) -> None:
    """Register ``%op`` on ``ipython``."""
    ipython.register_magics(CommandMagics)
