"""Build model replies (OPERATOR_CMD blocks) for the notebook tests."""

from __future__ import annotations

import base64
import json
from typing import Any


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def block(id: str, action: str, path: str | None = None, **fields: str) -> str:
    """One OPERATOR_CMD block."""
    lines = ["OPERATOR_CMD", "version: 1", f"id: {id}", f"action: {action}"]
    if path is not None:
        lines.append(f"path: {path}")
    lines += [f"{key}: {value}" for key, value in fields.items()]
    lines.append("END_OPERATOR_CMD")
    return "\n".join(lines) + "\n"


def write_block(id: str, path: str, content: str) -> str:
    return block(id, "fs.write", path, content_b64=b64(content))


def edits_block(id: str, path: str, edits: list[dict[str, Any]]) -> str:
    return block(
        id, "fs.applyEdits", path, edits_b64=b64(json.dumps({"version": 1, "edits": edits}))
    )


def reply(*blocks: str) -> str:
    """A model reply: a little prose, then the blocks."""
    return "Here is what I propose.\n\n" + "\n".join(blocks)
