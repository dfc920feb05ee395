"""The WebSocket file API (Editor File API v1.3): ``file_list``, ``file_read``, ``file_write``,
and ``capabilities``.

Messages are JSON objects. The seed's fields are validated strictly (wrong types, missing fields
and unknown ``type`` values are ``bad_request``); fields the API does not know are ignored, so a
client may add its own. A ``request_id`` (string or integer) is echoed in the reply, errors
included. Paths follow the seed's rule: ``.`` and ``..`` are resolved lexically, a path that
leaves the root is ``path_escape``, and the result goes through the workspace layer's jail like
every other path (a symlink leading out of the root is ``path_escape`` too). Contents travel as
base64 and must be UTF-8 text of at most 1 MiB, for reads and writes alike. Writes go
through the engine (``Operator.write_file``): atomic, journaled so they can be undone,
notebook-checked, and serial per workspace.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import logging
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from ..protocol import OperatorError
from ..workspace.paths import MAX_PATH_CHARS, normalize_path
from .errors import (
    BAD_REQUEST,
    FILE_TOO_LARGE,
    INVALID_UTF8,
    IO_ERROR,
    WORKSPACE_NOT_FOUND,
    FileApiError,
    file_api_error,
)
from .limits import MAX_B64_CHARS, MAX_FILE_SIZE
from .workspaces import WorkspaceRegistry

__all__ = ["MAX_B64_CHARS", "MAX_FILE_SIZE", "FileApi", "error_message", "parse"]

log = logging.getLogger(__name__)


#: The protocol version ``capabilities_result`` announces.
PROTOCOL_VERSION = "1.3"
#: What this server supports: the seed's file operations, and ``request_id`` echoing.
CAPABILITIES = ("file_operations", "request_id")


class _Base(BaseModel):
    # Unknown fields are ignored (a protocol extension must let clients add fields); the
    # known ones are strict: no coercion of numbers to strings or the like.
    model_config = ConfigDict(extra="ignore", strict=True, frozen=True)

    request_id: str | int | None = None


class Capabilities(_Base):
    """Ask what the server supports (answered with ``capabilities_result``)."""

    type: Literal["capabilities"]


class _Message(_Base):
    project: str = ""
    workspace: str = "default"


class FileList(_Message):
    """List a directory (the workspace root by default)."""

    type: Literal["file_list"]
    path: str = "."


class FileRead(_Message):
    """Read one UTF-8 text file."""

    type: Literal["file_read"]
    path: str


class FileWrite(_Message):
    """Replace (or create) one UTF-8 text file with base64-encoded content."""

    type: Literal["file_write"]
    path: str
    content_b64: str


AnyRequest = FileList | FileRead | FileWrite | Capabilities
Request = Annotated[AnyRequest, Field(discriminator="type")]
_REQUEST = TypeAdapter(Request)


def parse(raw: str | bytes) -> AnyRequest:
    """Validate one incoming text frame; raises :class:`FileApiError` (``bad_request``).

    The error carries the message's ``request_id`` when it has a valid one, so even a
    malformed request's answer can be matched to it.
    """
    if isinstance(raw, bytes):
        raise FileApiError(BAD_REQUEST, "Binary frames are not supported; send JSON text")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise FileApiError(BAD_REQUEST, "Message is not valid JSON") from None
    if not isinstance(data, dict):
        raise FileApiError(BAD_REQUEST, "Message must be a JSON object")
    try:
        return _REQUEST.validate_python(data)
    except ValidationError as exc:
        error = FileApiError(BAD_REQUEST, _describe(exc))
        request_id = data.get("request_id")
        if isinstance(request_id, str) or (
            isinstance(request_id, int) and not isinstance(request_id, bool)
        ):
            error.echo = {"request_id": request_id}
        raise error from None


def echo(request: object) -> dict[str, Any]:
    """The request fields a reply repeats so a client can match it to its request.

    ``project``, ``workspace`` and ``path`` come back as sent (the path before normalisation),
    and ``request_id`` when one was given.
    """
    fields: dict[str, Any] = {}
    if isinstance(request, _Message):
        fields = {"project": request.project, "workspace": request.workspace}
        path = getattr(request, "path", None)
        if path is not None:
            fields["path"] = path
    if isinstance(request, _Base) and request.request_id is not None:
        fields["request_id"] = request.request_id
    return fields


def error_message(error: FileApiError, request: Any = None) -> dict[str, Any]:
    """An ``error`` reply."""
    return {
        "type": "error",
        "code": error.code,
        "message": error.message,
        **error.echo,
        **echo(request),
    }


class FileApi:
    """Carries out validated file API requests against the configured workspaces."""

    def __init__(self, registry: WorkspaceRegistry, *, max_file_size: int = MAX_FILE_SIZE) -> None:
        self.registry = registry
        self.max_file_size = max_file_size
        self._max_b64 = 4 * -(-max_file_size // 3)

    def capabilities(self, request: Capabilities) -> dict[str, Any]:
        """The ``capabilities_result`` reply: protocol version, capabilities, workspace names
        (never their roots) and the limits a client should know before sending."""
        return {
            "type": "capabilities_result",
            "protocol": PROTOCOL_VERSION,
            "capabilities": list(CAPABILITIES),
            "workspaces": self.registry.names(),
            "limits": {"max_file_size": self.max_file_size, "max_path_length": MAX_PATH_CHARS},
            **echo(request),
        }

    async def handle(self, request: AnyRequest) -> dict[str, Any]:
        """Run one request and return its ``*_result`` reply (FileApiError on failure)."""
        if isinstance(request, Capabilities):
            return self.capabilities(request)
        if request.workspace not in self.registry:
            raise FileApiError(WORKSPACE_NOT_FOUND, "No workspace with this name")
        # An empty path lists the root, as an omitted one does (reads and writes refuse it).
        empty_is_root = isinstance(request, FileList) and request.path == ""
        rel = "." if empty_is_root else _normalize(request.path)
        lock = self.registry.lock(request.workspace)
        if isinstance(request, FileWrite):
            data = self._decode_content(request.content_b64)
            async with lock.write():
                return await self._call(self._store, request, rel, data)
        async with lock.read():
            if isinstance(request, FileRead):
                return await self._call(self._read, request, rel)
            return await self._call(self._list, request, rel)

    def _too_large(self) -> FileApiError:
        return FileApiError(FILE_TOO_LARGE, f"File exceeds the limit of {self.max_file_size} bytes")

    async def _call(self, func: Callable[..., dict[str, Any]], *args: Any) -> dict[str, Any]:
        request = args[0]
        try:
            # Off the event loop: a slow disk must not stall every other connection.
            return await asyncio.to_thread(func, *args)
        except OperatorError as exc:
            raise file_api_error(exc) from None
        except FileApiError:
            raise
        except Exception as exc:
            # Log the kind of failure and the relative path only, never contents.
            log.error(
                "file API %s on %r failed: %s", request.type, request.path, type(exc).__name__
            )
            raise FileApiError(IO_ERROR, "The operation failed on the server") from None

    def _list(self, request: FileList, rel: str) -> dict[str, Any]:
        entries = self.registry.workspace(request.workspace).list_dir(rel)
        items = [
            {"name": e.name, "is_dir": e.is_dir, "size": 0 if e.is_dir else e.size} for e in entries
        ]
        return {"type": "file_list_result", **echo(request), "items": items}

    def _read(self, request: FileRead, rel: str) -> dict[str, Any]:
        workspace = self.registry.workspace(request.workspace)
        data = workspace.read_bytes(rel, limit=self.max_file_size)
        _check_utf8(data)
        return {
            "type": "file_read_result",
            **echo(request),
            "content_b64": base64.b64encode(data).decode("ascii"),
            "size": len(data),
        }

    def _store(self, request: FileWrite, rel: str, data: bytes) -> dict[str, Any]:
        self._write(request.workspace, rel, data)
        return {"type": "file_write_result", **echo(request), "success": True, "size": len(data)}

    def _write(self, name: str, rel: str, data: bytes) -> None:
        """The one place a ``file_write`` touches the disk (``rel`` is already normalised).

        The engine's one path for writes outside a reply: journaled (undo and redo work for it),
        notebook-checked on the parsed path, compare-and-swap under the file lock. Under the
        workspace lock only another process can change the file in between (io_error).
        """
        self.registry.history_operator(name).write_file(rel, data)

    def _decode_content(self, text: str) -> bytes:
        if len(text) > self._max_b64:  # refuse before decoding anything
            raise self._too_large()
        try:
            data = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raise FileApiError(BAD_REQUEST, "content_b64 is not valid base64") from None
        if len(data) > self.max_file_size:
            raise self._too_large()
        _check_utf8(data)
        return data


def _normalize(path: str) -> str:
    # JSON can carry lone surrogates, which no file name can hold.
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        raise FileApiError(INVALID_UTF8, "path is not valid UTF-8") from None
    try:
        return normalize_path(path)
    except OperatorError as exc:
        raise file_api_error(exc) from None


def _check_utf8(data: bytes) -> None:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        raise FileApiError(INVALID_UTF8, "File content is not valid UTF-8 text") from None


def _describe(exc: ValidationError) -> str:
    """A short, input-free description of what is wrong with a message."""
    errors = exc.errors(include_url=False, include_input=False)
    first = errors[0]
    kind = first["type"]
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        return "type must be one of 'file_list', 'file_read', 'file_write', 'capabilities'"
    # loc is (message type, field, then the member of a union field such as 'str'): the
    # field is what the client wrote wrong.
    loc = first["loc"]
    where = str(loc[1] if len(loc) > 1 else loc[0])[:64] if loc else "message"
    if kind == "missing":
        return f"missing field {where!r}"
    if len(loc) > 2 and all(e["loc"][:2] == loc[:2] for e in errors):
        kinds = " or ".join(dict.fromkeys(str(e["loc"][2]) for e in errors))
        return f"field {where!r}: must be a {kinds}"[:200]
    return f"field {where!r}: {first['msg']}"[:200]
