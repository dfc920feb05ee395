"""The operation models of the JSON dialect (frozen dataclasses, already validated)."""

from __future__ import annotations

from dataclasses import dataclass

Encoding = str  # "utf-8" | "base64"


@dataclass(frozen=True)
class Operation:
    """Fields every operation has: its position in the batch, its type and its id.

    ``id`` is the model's correlation id, or ``<type>-<n>`` (the n-th operation of that type in
    the batch) when it gave none; ``given_id`` tells which.
    """

    index: int
    type: str
    id: str
    given_id: bool


@dataclass(frozen=True)
class Message(Operation):
    content: str


@dataclass(frozen=True)
class CreateFile(Operation):
    path: str
    data: bytes  # the content, decoded (base64) or encoded (utf-8)
    overwrite: bool
    encoding: Encoding


@dataclass(frozen=True)
class ReadFile(Operation):
    path: str
    encoding: Encoding


@dataclass(frozen=True)
class EditFile(Operation):
    path: str
    edits: tuple[tuple[str, str], ...]  # (oldContent, newContent), applied in order


@dataclass(frozen=True)
class DeleteFile(Operation):
    path: str


@dataclass(frozen=True)
class Shell(Operation):
    command: str
    cwd: str | None
    timeout_ms: int | None
    env: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class InvalidOperation(Operation):
    """An operation that could not be read; it is answered by an error event and never run."""

    code: str
    message: str
    path: str | None = None


PATH_TYPES = ("createFile", "readFile", "editFile", "deleteFile")
TYPES = ("message", *PATH_TYPES, "shell")
