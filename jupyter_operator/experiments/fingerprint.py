"""A run's fingerprint: what its outcome depends on, hashed, so a resumed grid can tell the rows
that no longer describe the task, the check, the model or the settings it would run now.

Each part is hashed on its own, so a stale row can say what changed:

- ``files``: the task's starting workspace (every path and its bytes);
- ``prompt``: the model's first user message;
- ``check``: the check's command and the task's other files (the check's scripts), but
  ``reference.json``, which is the reference model's replies (its ``model`` part);
- ``settings``: the task's rules, turns, budgets (time; tokens and cost when it gives them)
  and host extensions;
- ``model``: the model's name, its endpoint's model and address (never a key), its context
  window, the scripted replies it gives this task or the task's reference solution;
- ``run``: what the grid changes in a run: approving everything, the sandbox, the check's
  time limit, the grid's own budgets, and the model's price when a cost budget applies.

The harness's own version is not part of it: an upgrade does not make every row stale.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from .single import RunSpec

#: The parts of a fingerprint, in the order a stale row names them.
PARTS = ("files", "prompt", "check", "settings", "model", "run")
#: What a row written before rows carried a fingerprint has changed: nothing shows it holds.
NO_FINGERPRINT = "no fingerprint"
#: A part's hash as stored in a row (enough to tell a change, short enough to read).
PART_CHARS = 16


def _digest(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _files(files: Mapping[str, bytes]) -> dict[str, str]:
    return {path: hashlib.sha256(data).hexdigest() for path, data in files.items()}


def _given(**values: Any) -> dict[str, Any]:
    """The settings given (a setting left out hashes as before it existed: rows written
    before it was known stay fresh)."""
    return {name: value for name, value in values.items() if value is not None}


def fingerprint_parts(spec: RunSpec) -> dict[str, str]:
    """The hash of each part (``PARTS``) of what ``spec``'s outcome depends on."""
    task, model = spec.task, spec.model
    support = {path: data for path, data in task.support.items() if path != "reference.json"}
    replies: Any = None
    if model.reference:
        replies = task.reference
    elif model.replies is not None:
        replies = model.replies.get(task.name, model.replies.get("*", []))
    values = {
        "files": _files(task.files),
        "prompt": task.prompt,
        "check": {"command": task.check, "files": _files(support)},
        "settings": {"policy": list(task.policy), "max_turns": task.max_turns,
                     "timeout_s": task.time_budget, "extensions": list(task.extensions),
                     **_given(max_tokens=task.max_tokens, max_cost=task.max_cost),
                     # Only a dialect other than the default: rows from before it keep theirs.
                     **({"dialect": spec.run_dialect} if spec.run_dialect != "operator"
                        else {})},
        "model": {"name": model.name, "model": model.model, "base_url": model.base_url,
                  "context_window": model.context_window, "reference": model.reference,
                  "replies": replies},
        "run": {"approve_all": spec.approve_all, "unsandboxed": spec.unsandboxed,
                "check_timeout_s": spec.check_timeout_s,
                **_given(max_tokens=spec.max_tokens, max_cost=spec.max_cost,
                         max_seconds=spec.max_seconds,
                         # a price alone only adds a cost column; with a cost budget it
                         # decides when the run stops
                         price=spec.price if "max_cost" in spec.limits() else None,
                         approve="ask" if spec.review is not None else None)},
    }  # fmt: skip
    return {part: _digest(values[part])[:PART_CHARS] for part in PARTS}


def fingerprint(parts: Mapping[str, str]) -> str:
    """The run's fingerprint: the SHA-256 of its parts."""
    return _digest({part: parts[part] for part in PARTS})


def changed(row: Mapping[str, Any], parts: Mapping[str, str]) -> list[str] | None:
    """What changed since ``row`` ran, against the ``parts`` its run would have now: None when
    nothing did, else the parts that changed (``["no fingerprint"]`` for a row written before
    rows carried one: nothing shows it still holds)."""
    if row.get("fingerprint") == fingerprint(parts):
        return None
    held = row.get("fingerprint_parts")
    if not isinstance(held, dict) or "fingerprint" not in row:
        return [NO_FINGERPRINT]
    return [part for part in PARTS if held.get(part) != parts[part]] or ["fingerprint"]
