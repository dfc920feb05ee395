"""The one builder of model replies (``OPERATOR_CMD`` blocks) for the test suites.

Importable from every test module (``tests`` is on pytest's ``pythonpath``):
``from support.replies import b64, block, edits, write``.
"""

from __future__ import annotations

import base64
import json


def b64(text: str | bytes) -> str:
    """Standard base64 of UTF-8 text (or of raw bytes), with the standard library only."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    return base64.b64encode(data).decode("ascii")


def block(id: str, action: str, **fields: str) -> str:
    """One OPERATOR_CMD block (no trailing newline); ``fields`` become ``key: value`` lines."""
    lines = ["OPERATOR_CMD", "version: 1", f"id: {id}", f"action: {action}"]
    lines += [f"{key}: {value}" for key, value in fields.items()]
    return "\n".join([*lines, "END_OPERATOR_CMD"])


def edits(*ops: dict[str, object]) -> str:
    """``edits_b64`` for ``fs.applyEdits``: the JSON envelope around ``ops``, base64."""
    return b64(json.dumps({"version": 1, "edits": list(ops)}))


def write(id: str, path: str, text: str) -> str:
    """An ``fs.write`` block with base64 content."""
    return block(id, "fs.write", path=path, content_b64=b64(text))


def reply(*blocks: str) -> str:
    """A model reply: a line of prose, then the blocks, one per line."""
    return "Here is what I propose.\n\n" + "\n".join(blocks) + "\n"
