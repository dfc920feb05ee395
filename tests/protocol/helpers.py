"""Small builders for protocol tests."""

from __future__ import annotations

from support.replies import b64

from jupyter_operator.protocol import codes

#: Spec codes that only execution can produce (they need the file); scanning never gives them.
RUNTIME_CODES = frozenset({
    codes.ERR_SEARCH_PATH_IS_DIR,
    codes.ERR_FILE_TOO_LARGE,
    codes.ERR_COMMENT_STYLE_REQUIRED,
    codes.ERR_REGION_MARKER_NOT_FOUND,
    codes.ERR_REGION_MARKER_NOT_UNIQUE,
    codes.ERR_REGION_MARKER_ORDER,
    codes.ERR_REGION_MARKER_MISMATCH,
    codes.ERR_REGION_MARKER_ALREADY_EXISTS,
    codes.ERR_ANCHOR_NOT_FOUND,
})


__all__ = ["RUNTIME_CODES", "b64", "block", "cmd"]


def block(*lines: str, nl: str = "\n") -> str:
    """One OPERATOR_CMD block around the given content lines, ending with a newline."""
    return nl.join(["OPERATOR_CMD", *lines, "END_OPERATOR_CMD"]) + nl


def cmd(cid: str, action: str, *extra: str, path: str | None = None) -> str:
    """A block with version, id, action, an optional path and extra ``key: value`` lines."""
    lines = ["version: 1", f"id: {cid}", f"action: {action}"]
    if path is not None:
        lines.append(f"path: {path}")
    return block(*lines, *extra)
