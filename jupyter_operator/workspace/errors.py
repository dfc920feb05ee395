"""Errors raised by the workspace layer, and the mapping of OS errors to protocol codes.

Messages name the workspace-relative path only: never an absolute host path, a traceback or a
Python exception name (``os.strerror`` gives the plain-words reason).
"""

from __future__ import annotations

import errno
import os

from jupyter_operator.protocol import OperatorError, codes


class FileTooLarge(OperatorError):
    """A file is over the size limit of the action (``ERR_FILE_TOO_LARGE``).

    ``size`` is the file's size in bytes (from ``fstat``, or ``limit + 1`` when the file grew
    while being read) so the engine can phrase fs.read's own message.
    """

    def __init__(self, path: str, size: int, limit: int) -> None:
        super().__init__(
            codes.ERR_FILE_TOO_LARGE, f"{path} is {size} bytes; the limit is {limit} bytes"
        )
        self.size = size
        self.limit = limit


def link_refused(rel: str) -> OperatorError:
    """A symbolic link on the way: links are never followed, inside the workspace or out."""
    return OperatorError(codes.ERR_PATH_ESCAPE, f"{rel} is a symbolic link; links are not followed")


def os_error(exc: OSError, rel: str) -> OperatorError:
    """Map an ``OSError`` met while working on ``rel`` to a protocol error."""
    code = exc.errno
    if code == errno.ENOENT:
        return OperatorError(codes.ERR_NOT_FOUND, f"{rel} does not exist")
    if code == errno.ENOTDIR:
        return OperatorError(codes.ERR_NOT_A_DIRECTORY, f"a parent of {rel} is not a directory")
    if code == errno.EISDIR:
        return OperatorError(codes.ERR_NOT_A_FILE, f"{rel} is a directory")
    if code == errno.ELOOP:
        return link_refused(rel)
    if code == errno.ENAMETOOLONG:
        return OperatorError(codes.ERR_PATH_ESCAPE, f"invalid path: {rel} is too long")
    reason = os.strerror(code) if code else "input/output error"
    return OperatorError(codes.ERR_IO, f"{rel}: {reason}")
