"""The ``%operator`` magics' command line: the usage text, and reading options from a line.

Apart from magics.py (which runs the subcommands) so the words a person types, and the one-line
``UsageError`` for each mistake in them, are in one place.
"""

from __future__ import annotations

import sys

from IPython.core.error import UsageError
from IPython.utils.process import arg_split

USAGE = """\
%%operator [--root DIR] [--dry-run] [--dialect auto|operator|json|commands]
                                      run the cell (a model's reply) against the workspace
%%operator --dialect commands         run the cell's string commands (/open, /write, ...)
%op /COMMAND                          run one string command (%op /help lists them)
%operator root [PATH]                 show or set the workspace root (default: the working folder)
%operator run VARIABLE [--root DIR] [--dry-run] [--dialect ...]
                                      run the reply held in a string variable
%operator policy [RULE | add RULE | load FILE | clear]
                                      show or set the rules (auto|ask|deny [ACTION] [PATHGLOB]),
                                      first match wins; %%operator policy sets one per line
%operator shell [allow=... deny=... unlisted=ask|deny network=on|off env=NAME,...]
                                      show or set the rules for shell commands
%operator undo [ID]                   undo the last applied change (or the history entry ID)
%operator redo [ID]                   apply an undone change again (the last undone by default)
%operator history                     the applied changes, with their diffs, Undo and Redo
%operator status                      what the last run's commands are waiting for, or did
%operator reset                       start afresh: forget this kernel's runs and command ids
%operator cells [on|off]              let models change notebooks cell by cell (nb.*; on)
%operator spec                        the interface spec, to paste into a chat
%operator results                     the results text of the last run again
%operator model [NAME] [--base-url URL]
                                      the model of %%operator_agent (key: in the environment)"""


def split_magic_line(line: str) -> list[str]:
    """The words of a magic's line, quotes honoured; a ``UsageError`` for unbalanced ones."""
    try:
        return arg_split(line, posix=not sys.platform.startswith("win"))
    except ValueError as exc:  # unbalanced quotes
        raise UsageError(f"operator: cannot read the options ({exc})") from None


def take_run_options(args: list[str]) -> tuple[str | None, bool, str, list[str]]:
    """Take ``--root DIR``, ``--dry-run`` and ``--dialect NAME`` out of ``args``."""
    root: str | None = None
    dry_run = False
    dialect = "auto"
    rest: list[str] = []
    tokens = iter(args)
    for token in tokens:
        if token == "--dry-run":
            dry_run = True
        elif token in ("--root", "--dialect"):
            value = next(tokens, None)
            if value is None:
                what = ("a folder" if token == "--root"
                        else "a name (auto, operator, json, commands)")  # fmt: skip
                raise UsageError(f"operator: {token} needs {what}")
            if token == "--root":
                root = value
            else:
                dialect = value
        elif token.startswith("--root="):
            root = token.partition("=")[2]
        elif token.startswith("--dialect="):
            dialect = token.partition("=")[2]
        elif token.startswith("-"):
            raise UsageError(
                f"operator: unknown option {token} (try --root DIR, --dry-run or --dialect NAME)"
            )
        else:
            rest.append(token)
    return root, dry_run, dialect, rest
