"""``%operator policy``: show, set, extend or load the rules that decide without asking.

- ``%operator policy``                     show the rules, numbered, and the default
- ``%%operator policy``                    set the rules from the cell, one per line
- ``%operator policy RULE``                set the rules to this one rule
- ``%operator policy add RULE``            append a rule (it comes after the others)
- ``%operator policy load FILE``           read the rules from a file outside the workspace
- ``%operator policy clear``               back to the defaults (reads run, changes ask)
- ``%operator policy auto=... deny=...``   the older form, still read
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from IPython.core.error import UsageError

from .operators import session

if TYPE_CHECKING:
    from ..engine import Policy

USAGE = (
    "usage: %operator policy [RULE | add RULE | load FILE | clear], or %%operator policy with "
    "one rule per line; a RULE is auto|ask|deny [ACTION] [PATHGLOB]"
)


def show(policy: Policy) -> str:
    """The rules as ``%operator policy`` prints them."""
    where = f" (from {', '.join(policy.sources)})" if policy.sources else ""
    return f"policy: rules in order, the first that matches decides{where}\n{policy.numbered()}"


def _check(policy: Policy) -> Policy:
    """Refuse a rules file inside the workspace of this kernel (any root it has used)."""
    state = session()
    roots = {state.resolve_root(), *state.operators}
    for root in roots:
        policy.check_outside(root)
    return policy


def policy_command(args: list[str], cell: str | None = None) -> None:
    """Run ``%operator policy ...`` (``cell`` is the body of ``%%operator policy``)."""
    from ..engine import Policy

    state = session()
    try:
        if cell is not None:
            if args:
                raise UsageError(f"operator: %%operator policy takes no options; {USAGE}")
            state.policy = _check(Policy.parse(cell))
        elif args and args[0] == "load":
            if len(args) != 2:
                raise UsageError(f"operator: {USAGE}")
            try:
                state.policy = _check(Policy.load(args[1]))
            except OSError as exc:
                reason = exc.strerror or str(exc)
                raise UsageError(f"operator: cannot read the rules file: {reason}") from None
        elif args and args[0] == "add":
            if len(args) < 2:
                raise UsageError(f"operator: {USAGE}")
            added = Policy.parse(shlex.join(args[1:]))
            state.policy = _check(state.current_policy().then(added))
        elif args and args[0] == "clear":
            state.policy = Policy()
        elif args:
            state.policy = _check(Policy.parse(shlex.join(args)))
    except ValueError as exc:
        raise UsageError(f"operator: {exc}") from None
    print(show(state.current_policy()))
