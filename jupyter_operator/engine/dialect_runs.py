"""The one way a model's text becomes a run: ``plan(operator, text, dialect)``.

``dialect`` is ``"operator"`` (``OPERATOR_CMD`` blocks, and tool calls the model wrote in its own
family's format, ``foreign_calls.py``), ``"json"`` (JSON operations), ``"commands"`` (a script of
string commands) or ``"auto"`` (``dialects.detect`` picks one). Every run is a
:class:`~.decidable.DecidableRun`: the same items, decisions and ``results_text`` (in its own
dialect), so fronts need no branch of their own. No front constructs a dialect's run class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..dialects import DIALECTS, detect
from .commands.command_run import run_commands
from .json_run import run_json

if TYPE_CHECKING:
    from .commands.command_session import CommandSession
    from .decidable import DecidableRun
    from .operator import Operator

CHOICES = ("auto", *DIALECTS)


def resolve_dialect(text: str, dialect: str | None) -> str:
    """The dialect to use for ``text``: ``dialect`` itself, or the detected one for auto/None.

    ValueError (one line) for a name that is not a dialect this engine runs.
    """
    if dialect in (None, "", "auto"):
        return detect(text)
    if dialect not in CHOICES:
        known = ", ".join(CHOICES)
        raise ValueError(f"unknown dialect {dialect!r}; choose one of {known}")
    return dialect


def plan(operator: Operator, text: str, dialect: str | None = "auto", *,
         commands: CommandSession | None = None) -> DecidableRun:  # fmt: skip
    """Plan (and partly run) one reply in its dialect: reads the policy allows run at once,
    the rest waits for decisions on the returned run.

    ``commands``: the string-command session a ``commands`` script runs in (one that lives
    on, with its open document and variables); by default a fresh one. ValueError (one line)
    for an unknown dialect.
    """
    chosen = resolve_dialect(text, dialect)
    if chosen == "json":
        return run_json(operator, text)
    if chosen == "commands":
        return run_commands(operator, text, commands)
    return operator.run(text)
