"""File operations of the JSON dialect, planned into exact bytes and applied like any mutation.

``createFile``, ``editFile`` and ``deleteFile`` become a ``Proposal`` (the bytes and the diff a
person approves) and are applied through ``mutations.apply``, so they share the atomic write,
the stale-preview check, the journal and undo with the Operator dialect. History shows them with
the Operator action names (``fs.write``, ``fs.applyEdits``, ``fs.delete``).
"""

from __future__ import annotations

import base64
from types import SimpleNamespace
from typing import Any

from ..dialects.json_ops import CreateFile, DeleteFile, EditFile, Operation, ReadFile
from ..dialects.json_ops import response_events as events
from ..protocol import OperatorError, codes
from ..workspace import (
    Journal,
    TextFile,
    Workspace,
    decode_text,
    diff_with_stats,
    encode_text,
    validate_notebook,
)
from . import mutations
from .items import Proposal
from .reads import OutputBudget

READ_LIMIT = 1024 * 1024  # the largest file readFile returns

#: The Operator action a JSON type counts as for ``Policy`` (auto / deny groups apply alike).
ACTIONS = {
    "readFile": "fs.read",
    "createFile": "fs.write",
    "editFile": "fs.applyEdits",
    "deleteFile": "fs.delete",
}


def _edit(text: str, edits: tuple[tuple[str, str], ...]) -> str:
    """Apply every edit in order, or raise before anything is written.

    Each ``oldContent`` must occur exactly once in the text as it is after the edits before it:
    missing is ``ERR_EDIT_NOT_FOUND``, repeated is ``ERR_EDIT_NOT_UNIQUE`` (add surrounding text).
    """
    for n, (old, new) in enumerate(edits, 1):
        count = text.count(old)
        if count == 0:
            raise OperatorError(
                codes.ERR_EDIT_NOT_FOUND,
                f"edit {n}: oldContent was not found; read the file again. No edit was applied.",
            )
        if count > 1:
            raise OperatorError(
                codes.ERR_EDIT_NOT_UNIQUE,
                f"edit {n}: oldContent occurs {count} times; include more "
                "surrounding text so it is unique. No edit was applied.",
            )
        text = text.replace(old, new, 1)
    return text


def plan(ws: Workspace, op: Operation) -> Proposal:
    """The exact bytes (or the removal) a file operation would make. Raises OperatorError."""
    path = op.path  # type: ignore[attr-defined]
    ws.check_changeable(path)  # refused before any preview: the host's Python environment
    snapshot = ws.snapshot(path, limit=mutations.EDIT_LIMIT)
    if snapshot.is_dir:
        raise OperatorError(codes.ERR_NOT_A_FILE, f"{path} is a directory.")
    if isinstance(op, DeleteFile):
        if not snapshot.exists:
            raise OperatorError(codes.ERR_NOT_FOUND, f"{path} does not exist; nothing to delete.")
        new_bytes = None
    elif isinstance(op, CreateFile):
        if snapshot.exists and not op.overwrite:
            raise OperatorError(
                codes.ERR_FILE_EXISTS,
                f"{path} already exists; set overwrite to true to replace it.",
            )
        new_bytes = op.data
    else:
        assert isinstance(op, EditFile)
        if not snapshot.exists:
            raise OperatorError(codes.ERR_NOT_FOUND, f"{path} does not exist; create it first.")
        before = decode_text(snapshot.data, path)
        new_bytes = encode_text(TextFile(text=_edit(before.text, op.edits), bom=before.bom))
    if new_bytes is not None and path.lower().endswith(".ipynb"):
        validate_notebook(new_bytes)
    # Refused before anyone is asked, as for every dialect (the workspace checks again).
    ws.check_notebook_change(path, snapshot.data, new_bytes)
    change = "delete" if new_bytes is None else ("modify" if snapshot.exists else "create")
    diff, added, removed = diff_with_stats(snapshot.data, new_bytes, path)
    return Proposal(
        new_bytes,
        snapshot,
        change,
        diff,
        added,
        removed,
        mutations._describe(change, added, removed),
        diffed_as=path,
    )


def apply(ws: Workspace, journal: Journal, op: Operation, proposal: Proposal, *,
          session: str | None = None, decided_by: str | None = None,
          rule: str | None = None, label: str | None = None) -> tuple[dict, str]:  # fmt: skip
    """Write exactly the previewed bytes and journal them; return the success event and the
    history entry id."""
    path = op.path  # type: ignore[attr-defined]
    command = SimpleNamespace(id=op.id, action=ACTIONS[op.type], params=SimpleNamespace(path=path))
    _, entry_id = mutations.apply(
        ws, journal, command, proposal,  # type: ignore[arg-type]
        session=session, decided_by=decided_by, rule=rule, label=label,
    )  # fmt: skip
    return _event(op, path), entry_id


def _event(op: Operation, path: str) -> dict:
    if isinstance(op, CreateFile):
        return events.created(op, path, len(op.data))
    if isinstance(op, EditFile):
        return events.edited(op, path, len(op.edits))
    return events.deleted(op, path)


def read(ws: Workspace, op: ReadFile, budget: OutputBudget | None = None) -> dict:
    """The readFile event: the content as UTF-8 text (``ERR_NOT_UTF8`` otherwise) or base64.

    With a ``budget`` (the reply's, shared by all its reads) a file that does not fit in what
    is left is refused with ``ERR_OUTPUT_BUDGET`` before it is read.
    """
    if budget is not None:  # charged from the size on disk, so nothing is read past it
        size = min(ws.stat(op.path).size, READ_LIMIT)
        budget.reserve(size if op.encoding != "base64" else (size + 2) // 3 * 4)
    data = ws.read_bytes(op.path, limit=READ_LIMIT)
    if op.encoding == "base64":
        return events.read(op, op.path, base64.b64encode(data).decode("ascii"), len(data), "base64")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise OperatorError(
            codes.ERR_NOT_UTF8, f'{op.path} is not UTF-8 text; read it with "encoding": "base64".'
        ) from None
    return events.read(op, op.path, text, len(data), "utf-8")


def summary(event: dict[str, Any]) -> str:
    """A one-line summary of a success event, for cards and ``Result.summary``."""
    if event.get("editedByPerson"):
        plain = {key: value for key, value in event.items() if key != "editedByPerson"}
        return summary(plain) + ", as the person edited it"
    kind = event.get("type")
    if kind == "createFile":
        return f"created, {event['bytesWritten']} bytes"
    if kind == "editFile":
        return f"{event['editsApplied']} edits applied"
    if kind == "deleteFile":
        return "deleted (moved to the trash)"
    if kind == "readFile":
        return f"read {event['size']} bytes"
    if kind == "shell":
        if event.get("timedOut"):
            return f"timed out after {event['durationMs']} ms (exit 124)"
        return f"exit {event['exitCode']} in {event['durationMs']} ms"
    return "message"
