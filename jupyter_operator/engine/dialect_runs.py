"""One entry point for every dialect: ``run_text(operator, text, dialect)``.

``dialect`` is ``"operator"`` (``OPERATOR_CMD`` blocks, ``Operator.run``), ``"json"`` (JSON
operations, ``run_json``) or ``"auto"`` (``dialects.detect`` picks one). Both kinds of run offer
the same decisions and ``results_text`` (in their own dialect), so fronts need no other branch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..dialects import DIALECTS, detect
from .json_run import JsonRun, run_json

if TYPE_CHECKING:
    from .session import Operator, Run

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


def run_text(operator: Operator, text: str, dialect: str | None = "auto") -> Run | JsonRun:
    """Plan (and partly run) one reply in its dialect (``operator`` or ``json``).

    String commands (``commands``) have their own runner; ValueError here.
    """
    chosen = resolve_dialect(text, dialect)
    if chosen == "json":
        return run_json(operator, text)
    if chosen != "operator":
        raise ValueError(f"the {chosen} dialect is not run through run_text")
    return operator.run(text)
