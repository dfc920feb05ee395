"""A run as JSON and back: what a server saves so a decision survives a reload or a restart.

The saved form holds the reply's text (scanning is pure, so the commands come back exactly) and,
per item, its state and its proposal: the exact bytes a person was shown and the snapshot they
were computed from (bytes, sha256, device and inode). A run loaded back therefore applies exactly
what was previewed, and only if the file still has the sha256 it had then (else the usual
``ERR_STALE_PREVIEW``). Nothing is planned or read again on load.

Saved data is checked on load: the commands must match the text, and every byte string its
digest; anything else raises :class:`PersistError` and the run is not restored.
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import TYPE_CHECKING, Any

from ..protocol import Command, Result, scan
from ..workspace import Snapshot
from . import foreign_calls
from .items import Foreign, Item, Proposal

if TYPE_CHECKING:
    from .operator import Operator, Run

FORMAT = 1
_ITEM_FIELDS = ("index", "id", "action", "path", "line", "kind", "status", "summary",
                "error_code", "builds_on")  # fmt: skip
_OPTIONAL_FIELDS = ("decided_by", "rule", "edited")  # set by newer engines; kept when present


class PersistError(ValueError):
    """Saved run data that cannot be trusted or understood."""


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _unb64(text: Any) -> bytes | None:
    if text is None:
        return None
    if not isinstance(text, str):
        raise PersistError("bytes must be base64 text")
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise PersistError("bad base64") from None


def _sha(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def dump_run(run: Run, text: str, **extra: Any) -> bytes:
    """The saved form of ``run``, scanned from ``text``; ``extra`` keys are kept as they are."""
    items = []
    for item in run.items:
        saved: dict[str, Any] = {key: getattr(item, key) for key in _ITEM_FIELDS}
        for key in _OPTIONAL_FIELDS:
            if getattr(item, key, None) is not None:
                saved[key] = getattr(item, key)
        if item.result is not None:
            r = item.result
            saved["result"] = {"id": r.id, "ok": r.ok, "summary": r.summary, "details": r.details}
        if item.execution is not None:  # a cell run's preview: what runs, where, its guards
            saved["execution"] = item.execution.to_dict()
        if item.proposal is not None:
            p, s = item.proposal, item.proposal.snapshot
            saved["proposal"] = {
                "new_bytes": _b64(p.new_bytes),
                "new_sha256": _sha(p.new_bytes),
                "change": p.change,
                "diff": p.diff,
                "added": p.added,
                "removed": p.removed,
                "summary": p.summary,
                "snapshot": {
                    "path": s.path, "exists": s.exists, "is_dir": s.is_dir,
                    "data": _b64(s.data), "sha256": s.sha256, "dev": s.dev, "ino": s.ino,
                },
            }  # fmt: skip
        items.append(saved)
    body = {
        "format": FORMAT,
        "text": text,
        "truncated_chars": run.truncated_chars,
        "skipped_duplicates": list(run.skipped_duplicates),
        "items": items,
        **extra,
    }
    return json.dumps(body, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def load_data(raw: bytes) -> dict[str, Any]:
    """Parse saved bytes into the saved dict (its ``extra`` keys included)."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise PersistError("not JSON") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise PersistError("unknown format")
    if not isinstance(data.get("text"), str) or not isinstance(data.get("items"), list):
        raise PersistError("missing text or items")
    return data


def load_run(operator: Operator, data: dict[str, Any]) -> Run:
    """Rebuild a run of ``operator`` from :func:`load_data`'s dict; PersistError if it is wrong."""
    from .operator import Run

    with operator._lock:
        scanned = scan(data["text"], seen=operator._seen, extensions=operator.extensions)
        taken = {entry.id for entry in scanned.items if entry.id}
        entries = [(entry, None) for entry in scanned.items] + foreign_calls.entries(
            data["text"], taken, operator.extensions)  # fmt: skip
        if len(entries) != len(data["items"]):
            raise PersistError("the saved items do not match the reply")
        items = [
            _load_item(saved, entry, foreign)
            for saved, (entry, foreign) in zip(data["items"], entries, strict=True)
        ]
    return Run(operator, items, int(data.get("truncated_chars") or 0),
               tuple(str(s) for s in data.get("skipped_duplicates") or ()),
               unread_markers=scanned.unread_markers)  # fmt: skip


def _load_item(saved: Any, entry: Any, foreign: Foreign | None) -> Item:
    if not isinstance(saved, dict):
        raise PersistError("an item is not an object")
    command = entry if isinstance(entry, Command) else None
    id = foreign.id if foreign is not None else entry.id
    if saved.get("id") != (id or saved.get("id")) or saved.get("action") != (
        command.action if command else None
    ):
        raise PersistError("the saved items do not match the reply")
    try:
        item = Item(**{key: saved[key] for key in _ITEM_FIELDS}, command=command,
                    foreign=foreign)  # fmt: skip
    except (KeyError, TypeError):
        raise PersistError("an item lacks a field") from None
    for key in _OPTIONAL_FIELDS:
        if key in saved:
            setattr(item, key, saved[key])
    if saved.get("result") is not None:
        r = saved["result"]
        try:
            item.result = Result(r["id"], bool(r["ok"]), r["summary"], r.get("details"))
        except (KeyError, TypeError, ValueError):
            raise PersistError("a result is malformed") from None
    if saved.get("proposal") is not None:
        item.proposal = _load_proposal(saved["proposal"])
    elif item.kind == "mutation" and item.needs_approval:
        raise PersistError("a pending change has no preview")
    if saved.get("execution") is not None:
        item.execution = _load_execution(saved["execution"])
    elif item.kind == "run" and item.status in ("pending", "running"):
        raise PersistError("a pending run has no preview")
    return item


def _load_execution(e: Any) -> Any:
    """A run's preview as saved (``Execution.to_dict()``), checked field by field."""
    from ..execution import KernelInfo, Outcome, RunRequest
    from .executions import Execution

    try:
        r = dict(e["request"])
        r["cells"] = tuple((c[0], str(c[1]), str(c[2])) for c in r.get("cells") or ())
        request = RunRequest(**r)
        kernel = KernelInfo(**e["kernel"])
        outcome = Outcome.from_dict(e["outcome"]) if e.get("outcome") else None
        ran = [dict(x) for x in e.get("ran_before") or []]
        return Execution(request, kernel, str(e["what"]), str(e["policy"]), ran, outcome)
    except (KeyError, TypeError, ValueError, IndexError):
        raise PersistError("a run's preview is malformed") from None


def _load_proposal(p: Any) -> Proposal:
    try:
        s = p["snapshot"]
        new_bytes, old = _unb64(p["new_bytes"]), _unb64(s["data"])
        if _sha(new_bytes) != p["new_sha256"]:
            raise PersistError("the previewed bytes do not match their digest")
        if old is not None and _sha(old) != s["sha256"]:
            raise PersistError("the snapshot bytes do not match their digest")
        snapshot = Snapshot(str(s["path"]), bool(s["exists"]), bool(s["is_dir"]), old,
                            s["sha256"], int(s["dev"]), int(s["ino"]))  # fmt: skip
        return Proposal(new_bytes, snapshot, p["change"], str(p["diff"]), int(p["added"]),
                        int(p["removed"]), str(p["summary"]))  # fmt: skip
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, PersistError):
            raise
        raise PersistError("a preview is malformed") from None
