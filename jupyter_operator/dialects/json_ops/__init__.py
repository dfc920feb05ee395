"""JSON operations: a pure parser (:func:`parse`) and the response events (``events``).

See docs/protocol.md ("JSON operations") for the operations, events, limits and codes.
"""

from __future__ import annotations

from . import response_events as events
from .operations import (
    PATH_TYPES,
    TYPES,
    CreateFile,
    DeleteFile,
    EditFile,
    InvalidOperation,
    Message,
    Operation,
    ReadFile,
    Shell,
)
from .parse import MAX_OPERATIONS, MAX_PATH_CHARS, check_path, parse
from .response_events import Event, format_events, parse_events

__all__ = [
    "MAX_OPERATIONS",
    "MAX_PATH_CHARS",
    "PATH_TYPES",
    "TYPES",
    "CreateFile",
    "DeleteFile",
    "EditFile",
    "Event",
    "InvalidOperation",
    "Message",
    "Operation",
    "ReadFile",
    "Shell",
    "check_path",
    "events",
    "format_events",
    "parse",
    "parse_events",
]
