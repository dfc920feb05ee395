"""What the ``jupyter-operator`` commands share: exit statuses, the rules options, the Operator.

Apart from cli.py so the ``agent`` command (cli_agent.py) builds its policy as ``run`` does,
without importing the entry point that dispatches to it.
"""

from __future__ import annotations

import argparse

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def policy_options(p: argparse.ArgumentParser) -> None:
    """``--policy FILE`` and ``--rule RULE`` (repeatable): the rules that decide without asking."""
    p.add_argument(
        "--policy", default=None, metavar="FILE",
        help="a rules file outside the workspace: one rule per line, auto|ask|deny [ACTION] "
             "[PATHGLOB], the first that matches decides (the older text "
             '"auto=reads deny=fs.delete" is also read)',
    )  # fmt: skip
    p.add_argument(
        "--rule", action="append", default=[], metavar="RULE",
        help='one rule, e.g. "auto fs.write notes/**" (repeatable; after the file\'s rules)',
    )  # fmt: skip


def policy_from_args(args: argparse.Namespace) -> object:
    """The policy of ``--policy`` and ``--rule``; ValueError / OSError with a one-line reason."""
    from .engine import Policy

    value = args.policy
    legacy = value is not None and value.lstrip().startswith(("auto=", "deny="))
    if value is None and not args.rule:
        return None
    policy = Policy.from_options(file=None if legacy else value, rules=args.rule,
                                 text=value if legacy else None)  # fmt: skip
    policy.check_outside(args.root)
    return policy


def operator_from_args(args: argparse.Namespace, policy: object = None) -> object:
    """The engine session of ``--root``, ``--journal-dir`` and ``--extensions``, with ``policy``."""
    from .engine import Operator

    return Operator(args.root, policy=policy, journal_dir=args.journal_dir,
                    extensions=getattr(args, "extensions", ()))  # fmt: skip
