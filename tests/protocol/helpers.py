"""Small builders for protocol tests."""

from __future__ import annotations

import base64


def b64(text: str) -> str:
    """Standard base64 of UTF-8 text (stdlib, so the code under test does not grade itself)."""
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def block(*lines: str, nl: str = "\n") -> str:
    """One OPERATOR_CMD block around the given content lines, ending with a newline."""
    return nl.join(["OPERATOR_CMD", *lines, "END_OPERATOR_CMD"]) + nl


def cmd(cid: str, action: str, *extra: str, path: str | None = None) -> str:
    """A block with version, id, action, an optional path and extra ``key: value`` lines."""
    lines = ["version: 1", f"id: {cid}", f"action: {action}"]
    if path is not None:
        lines.append(f"path: {path}")
    return block(*lines, *extra)
