"""Builders for model replies used across the test suites."""

from __future__ import annotations

import base64
import json


def b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def block(id: str, action: str, **fields: str) -> str:
    """One OPERATOR_CMD block."""
    lines = ["OPERATOR_CMD", "version: 1", f"id: {id}", f"action: {action}"]
    lines += [f"{key}: {value}" for key, value in fields.items()]
    return "\n".join([*lines, "END_OPERATOR_CMD"])


def edits(*ops: dict[str, object]) -> str:
    return b64(json.dumps({"version": 1, "edits": list(ops)}))
