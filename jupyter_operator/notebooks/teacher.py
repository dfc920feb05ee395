"""A notebook's own policy (``metadata.jupyter_operator.policy``), set by its author.

A teacher hands out a notebook that a model may read but not run (``no-run``), only preview
(``dry-run``) or not touch at all (``off``); every front obeys it, and no proposal may change
the key (a model cannot lift the limit it is under). A server-wide cap
(``c.OperatorExtension.notebook_policy_cap``) limits what any notebook may allow.
"""

from __future__ import annotations

import json
from typing import Any

KEY = "jupyter_operator"
#: From the strictest to the most open; the default is ``run`` (runs ask for approval).
LEVELS: tuple[str, ...] = ("off", "dry-run", "no-run", "run", "auto-run")
DEFAULT = "run"

MEANING = {
    "off": "the notebook's author turned jupyter-operator off for it: nothing is read, "
    "changed or run",
    "dry-run": "the notebook's author allows previews only: nothing is applied or run",
    "no-run": "the notebook's author does not allow running its cells",
    "run": "cells may be changed and run, each with approval",
    "auto-run": "rules may run cells without asking, also in the notebook's live kernel",
}


def level_of(doc: Any) -> str:
    """The policy a parsed notebook asks for; an unknown value counts as ``off`` (a typo
    must never open more than its author meant)."""
    metadata = doc.get("metadata") if isinstance(doc, dict) else None
    block = metadata.get(KEY) if isinstance(metadata, dict) else None
    if block is None:
        return DEFAULT
    value = block.get("policy") if isinstance(block, dict) else None
    if value is None:
        return DEFAULT
    return value if value in LEVELS else "off"


def capped(level: str, cap: str | None) -> str:
    """``level`` limited by the server's ``cap`` (None: no cap)."""
    if cap is None or cap not in LEVELS:
        return level
    return LEVELS[min(LEVELS.index(level), LEVELS.index(cap))]


def allows(level: str, what: str) -> bool:
    """Whether ``level`` allows ``what``: ``read``, ``change``, ``apply``, ``run``, ``auto-run``."""
    need = {"read": "dry-run", "change": "dry-run", "apply": "no-run", "run": "run",
            "auto-run": "auto-run"}[what]  # fmt: skip
    return LEVELS.index(level) >= LEVELS.index(need)


def parse(data: bytes | None) -> Any:
    """The parsed notebook, or None for no bytes or bytes that are not JSON."""
    if data is None:
        return None
    try:
        return json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None


def level_in(data: bytes | None, cap: str | None) -> str | None:
    """The policy of a notebook's bytes, capped by the server; None when they are no JSON."""
    return level_of_parsed(parse(data), cap)


def level_of_parsed(doc: Any, cap: str | None) -> str | None:
    """``level_in`` of a notebook already parsed (None: it was no JSON)."""
    return None if doc is None else capped(level_of(doc), cap)


def block_of(doc: Any) -> Any:
    """``metadata.jupyter_operator`` of a parsed notebook (None when absent)."""
    metadata = doc.get("metadata") if isinstance(doc, dict) else None
    return metadata.get(KEY) if isinstance(metadata, dict) else None


def key_changed(before: bytes | None, after: bytes | None) -> bool:
    """True when a change would add, alter or remove ``metadata.jupyter_operator``."""
    return block_of(parse(before)) != block_of(parse(after))
