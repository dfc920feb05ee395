"""Errors the server sends, and the one place that maps workspace and engine codes to them.

The REST API answers ``{"error": {"code", "message"}}`` with an HTTP status; the WebSocket file
API answers ``{"type": "error", "code", "message"}`` with the codes of the file API. Messages come
from :class:`~jupyter_operator.protocol.OperatorError` (which never holds an absolute host path)
or are written here; no exception name or traceback ever reaches a client.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the protocol loads with the first request, not with the extension
    from ..protocol import OperatorError


class ApiError(Exception):
    """A REST failure: HTTP ``status``, a stable ``code`` and a message for people."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message

    def to_dict(self) -> dict[str, dict[str, str]]:
        """The JSON body of the error response."""
        return {"error": {"code": self.code, "message": self.message}}


class FileApiError(Exception):
    """A WebSocket file API failure with one of the file API's error codes."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        #: Fields the error reply repeats when no valid request could be read (``request_id``).
        self.echo: dict[str, object] = {}


# The file API's error codes: the seed's five plus the two for requests that never reach a file,
# and ``forbidden`` for a write by a user whose authorizer allows reads only, or a read or write
# a notebook's own policy refuses (its message says which).
FILE_NOT_FOUND = "file_not_found"
FILE_TOO_LARGE = "file_too_large"
PATH_ESCAPE = "path_escape"
IO_ERROR = "io_error"
INVALID_UTF8 = "invalid_utf8"
WORKSPACE_NOT_FOUND = "workspace_not_found"
BAD_REQUEST = "bad_request"
FORBIDDEN = "forbidden"


@cache
def file_api_codes() -> dict[str, str]:
    """Workspace-layer codes -> file API codes. Anything not listed is an ``io_error``.

    A protected path (``.git/...`` and the like) is outside what a client may touch, hence
    ``path_escape``; reading a directory or listing a file is an I/O fault of the request.
    """
    from ..protocol import codes

    return {
        codes.ERR_NOT_FOUND: FILE_NOT_FOUND,
        codes.ERR_FILE_TOO_LARGE: FILE_TOO_LARGE,
        codes.ERR_PATH_ESCAPE: PATH_ESCAPE,
        codes.ERR_PROTECTED_PATH: PATH_ESCAPE,
        codes.ERR_NOT_UTF8: INVALID_UTF8,
        codes.ERR_NOTEBOOK_POLICY: FORBIDDEN,
        codes.ERR_NOT_A_FILE: IO_ERROR,
        codes.ERR_NOT_A_DIRECTORY: IO_ERROR,
        codes.ERR_STALE_PREVIEW: IO_ERROR,
        codes.ERR_IO: IO_ERROR,
        codes.ERR_JOURNAL_CORRUPT: IO_ERROR,
    }


@cache
def http_status() -> dict[str, int]:
    """Engine codes (from undo) -> HTTP status. Anything not listed is a 409: the request was
    well formed but the workspace is not in a state where it can be carried out."""
    from ..protocol import codes

    return {
        codes.ERR_NOT_FOUND: 404,
        codes.ERR_PATH_ESCAPE: 400,
        codes.ERR_STALE_PREVIEW: 409,
        codes.ERR_UNDO_CONFLICT: 409,
        # A damaged journal is state the person can repair, never a server fault (no 500).
        codes.ERR_JOURNAL_CORRUPT: 409,
    }


def file_api_error(exc: OperatorError) -> FileApiError:
    """Translate a workspace fault into the file API's vocabulary."""
    return FileApiError(file_api_codes().get(exc.code, IO_ERROR), exc.message)


def api_error(exc: OperatorError) -> ApiError:
    """Translate an engine fault (undo) into a REST error carrying the engine's code."""
    return ApiError(http_status().get(exc.code, 409), exc.code, exc.message)
