"""String-command sessions in the server, and why they are not saved.

A pasted script of slash commands (``dialect`` ``commands``, or detected by ``auto``) is planned
like any reply (``engine.plan``), in a fresh command session per scan (its open document,
variables and bash folder start empty).

Command sessions are kept in memory only, by decision: what waits in one is not a fixed set
of previews but a live session. The requests queued behind a pending change are answered only
after it is decided, against the session's state at that moment (open document, back stack,
variables, bash folder), and a bash line approved after a restart would run a command the
person saw before the restart in a session that no longer exists. So instead of the session,
a small marker is saved: looking the session up after a restart (or after the server forgot
it) answers ``410 session_ended`` with a message saying so, instead of a bare "not found".
Nothing that waited in it was applied; the person pastes the commands again.
"""

from __future__ import annotations

import json
from typing import Any

from .errors import ApiError

ENDED = (
    "This string-command session was kept in the server's memory only, and the server no "
    "longer has it (it restarted, or the session was idle too long). Nothing that waited in it "
    "was applied or run; paste the commands again to continue."
)
_FORMAT = 1  # engine.persist.FORMAT: the store checks only that it is JSON


def memory_marker(workspace: str, created: float) -> bytes:
    """What the store keeps for a command session: enough to explain that it ended."""
    body = {"format": _FORMAT, "dialect": "commands", "text": "", "items": [],
            "workspace": workspace, "created": created}  # fmt: skip
    return json.dumps(body, separators=(",", ":")).encode("ascii")


def ended_in_memory(data: dict[str, Any]) -> None:
    """Raise ``410 session_ended`` for a command session's marker; nothing otherwise."""
    if data.get("dialect") == "commands":
        raise ApiError(410, "session_ended", ENDED)
