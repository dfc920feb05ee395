"""Response events of the JSON dialect, exactly as the seed shows them, and their text form.

Every function returns a plain ``dict`` (key order as in the seed). An operation that carried
an ``id`` gets it back as ``id`` (second key) so the model can correlate. Failure events carry
``success: false``, ``error`` (one sentence) and ``code`` (an ``ERR_*`` code); the timeout event
is the seed's, without ``error``.
"""

from __future__ import annotations

import json
from typing import Any

from ...protocol import codes
from .operations import InvalidOperation, Operation, Shell

Event = dict[str, Any]


def _head(op: Operation) -> Event:
    event: Event = {"type": op.type}
    if op.given_id:
        event["id"] = op.id
    return event


def _subject(op: Operation) -> Event:
    """``path`` for file operations, ``command`` for shell."""
    if isinstance(op, Shell):
        return {"command": op.command}
    path = getattr(op, "path", None)
    return {"path": path} if path is not None else {}


def message(op: Operation, content: str) -> Event:
    """A ``message`` operation, echoed so the transcript keeps its place in the batch."""
    return {**_head(op), "content": content}


def created(op: Operation, path: str, bytes_written: int) -> Event:
    return {**_head(op), "path": path, "success": True, "bytesWritten": bytes_written}


def read(op: Operation, path: str, content: str, size: int, encoding: str) -> Event:
    return {
        **_head(op),
        "path": path,
        "success": True,
        "content": content,
        "size": size,
        "encoding": encoding,
    }


def edited(op: Operation, path: str, edits_applied: int) -> Event:
    return {**_head(op), "path": path, "success": True, "editsApplied": edits_applied}


def person_edited(event: Event, diff: str, bytes_written: int | None = None) -> Event:
    """A success event for a change the person edited before approving it.

    ``editedByPerson`` says so and ``editDiff`` is the unified diff from the model's proposal to
    what was written; ``bytesWritten`` (createFile) counts what was written.
    """
    edited = dict(event)
    if bytes_written is not None and "bytesWritten" in edited:
        edited["bytesWritten"] = bytes_written
    return {**edited, "editedByPerson": True, "editDiff": diff}


def deleted(op: Operation, path: str) -> Event:
    return {**_head(op), "path": path, "success": True}


def shell(op: Shell, exit_code: int, stdout: str, stderr: str, duration_ms: int,
          sandboxed: bool = True) -> Event:  # fmt: skip
    """A command that ran to its end; ``success`` is ``exitCode == 0``. A command the person
    ran outside the sandbox (``sandbox=off``) says so with ``sandboxed: false``."""
    event: Event = {
        **_head(op),
        "command": op.command,
        "success": exit_code == 0,
        "exitCode": exit_code,
        "stdout": stdout,
        "stderr": stderr,
        "durationMs": duration_ms,
    }
    if not sandboxed:
        event["sandboxed"] = False
    if exit_code != 0:
        event["error"] = f"the command exited with code {exit_code}"
        event["code"] = codes.ERR_COMMAND_FAILED
    return event


def timed_out(op: Shell, duration_ms: int) -> Event:
    """The seed's timeout event: exit code 124, the process group was killed."""
    return {
        **_head(op),
        "command": op.command,
        "success": False,
        "timedOut": True,
        "exitCode": 124,
        "durationMs": duration_ms,
    }


def failure(op: Operation, code: str, error: str) -> Event:
    """An operation that did not run or failed: ``success: false`` with ``error`` and ``code``."""
    subject = _subject(op)
    if isinstance(op, InvalidOperation) and op.path is not None:
        subject = {"path": op.path}
    return {**_head(op), **subject, "success": False, "error": error, "code": code}


def invalid(op: InvalidOperation) -> Event:
    """The error event of an operation that could not be read."""
    return failure(op, op.code, op.message)


def approval_required(op: Operation, reason: str, details: dict[str, Any]) -> Event:
    """The operation waits for a person; the rest of the batch waits with it."""
    return {
        "type": "approvalRequired",
        "operationId": op.id,
        "operationType": op.type,
        "reason": reason,
        "details": details,
    }


def policy_denied(op: Operation, reason: str, suggestion: str) -> Event:
    """A rule refused the operation; it did not run."""
    event: Event = {
        "type": "policyDenied",
        "operationType": op.type,
        "reason": reason,
        "suggestion": suggestion,
    }
    if op.given_id:
        event["operationId"] = op.id
    return event


def format_events(events: list[Event]) -> str:
    """The events as the text copied back to the model: a JSON list, one event per line."""
    if not events:
        return "[]"
    lines = [json.dumps(e, ensure_ascii=True) for e in events]
    return "[\n" + ",\n".join(lines) + "\n]"


def parse_events(text: str) -> list[Event]:
    """The inverse of :func:`format_events`."""
    value = json.loads(text)
    if not isinstance(value, list) or not all(isinstance(e, dict) for e in value):
        raise ValueError("events text must be a JSON list of objects")
    return value
