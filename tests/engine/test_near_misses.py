"""Replies that almost follow the spec: accepted as the spec allows, or refused with the fix."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from jupyter_operator.engine import Operator


def block(*lines: str) -> str:
    return "\n".join(["OPERATOR_CMD", "version: 1", *lines, "END_OPERATOR_CMD"])


@pytest.fixture
def op(tmp_path: Path):
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "a.txt").write_text("def  load(path):\n    pass\n")
    with Operator(tmp_path / "ws", journal_dir=tmp_path / "journal") as operator:
        yield operator


def summary(op: Operator, reply: str) -> str:
    (item,) = op.run(reply).items
    return item.result.summary if item.result else item.summary


def test_a_workspace_field_is_said_not_silently_ignored(op: Operator) -> None:
    text = summary(op, block("id: r1", "action: fs.read", "path: a.txt", "workspace: /home/me"))
    assert text.startswith("Read file (note: the workspace field was ignored")


def test_a_quoted_path_is_refused_with_the_fix(op: Operator) -> None:
    text = summary(op, block("id: r1", "action: fs.read", 'path: "a.txt"'))
    assert "ERR_NOT_FOUND" in text and "write path: a.txt" in text


def test_curly_quotes_and_base64_with_spaces_say_the_fix(op: Operator) -> None:
    text = summary(op, block("id: r1", "action: fs.read", "path: \u201ca.txt\u201d"))
    assert "ERR_NON_ASCII_IN_CMD" in text and "U+201C; values are never quoted" in text
    encoded = base64.b64encode(b"hello there\n").decode()
    text = summary(op, block("id: w1", "action: fs.write", "path: b.txt",
                             f"content_b64: {encoded[:8]} {encoded[8:]}"))  # fmt: skip
    assert "ERR_INVALID_BASE64" in text and "remove every space" in text


def test_a_fenced_block_is_accepted(op: Operator) -> None:
    reply = "```\n" + block("id: r1", "action: fs.read", "path: a.txt") + "\n```"
    assert summary(op, reply) == "Read file"


def test_an_edit_that_misses_names_the_closest_line(op: Operator) -> None:
    import json

    edits = base64.b64encode(json.dumps({"version": 1, "edits": [
        {"op": "replaceFirst", "find": "def load(path):", "text": "def load(p):"}]}).encode())
    text = summary(op, block("id: e1", "action: fs.applyEdits", "path: a.txt",
                             f"edits_b64: {edits.decode()}"))  # fmt: skip
    assert "ERR_ANCHOR_NOT_FOUND" in text
    assert "closest: line 1 'def  load(path):' (whitespace differs)" in text


