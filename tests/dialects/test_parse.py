"""The JSON-operations parser: every shape of reply, and every bad input as an error, never a
traceback."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_operator.dialects.json_ops import (
    CreateFile,
    EditFile,
    InvalidOperation,
    Message,
    ReadFile,
    Shell,
    parse,
)
from jupyter_operator.dialects.json_ops.parse import MAX_CONTENT_BYTES, MAX_OPERATIONS

ONE = {"type": "message", "content": "hi"}


def only_error(text: str) -> InvalidOperation:
    [op] = parse(text)
    assert isinstance(op, InvalidOperation), op
    return op


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(ONE),
        json.dumps([ONE]),
        json.dumps({"operations": [ONE]}),
        "Here you go:\n```json\n" + json.dumps(ONE) + "\n```\nThanks.",
        "```\n" + json.dumps([ONE]) + "\n```",
        "  \n" + json.dumps(ONE, indent=2) + "\n",
    ],
)
def test_shapes(text: str) -> None:
    [op] = parse(text)
    assert op == Message(0, "message", "message-1", False, "hi")


def test_several_fenced_blocks_in_order() -> None:
    text = (
        "a\n```json\n"
        + json.dumps(ONE)
        + "\n```\nb\n```json\n"
        + json.dumps({"type": "readFile", "path": "a.txt", "id": "r"})
        + "\n```\n"
    )
    ops = parse(text)
    assert [type(o) for o in ops] == [Message, ReadFile]
    assert ops[1] == ReadFile(1, "readFile", "r", True, "a.txt", "utf-8")


def test_fields_and_defaults() -> None:
    [c, e, s] = parse(
        json.dumps(
            [
                {
                    "type": "createFile",
                    "path": "b.bin",
                    "content": "AAEC",
                    "encoding": "base64",
                    "overwrite": True,
                },
                {"type": "editFile", "path": "a", "edits": [{"oldContent": "x", "newContent": ""}]},
                {"type": "shell", "command": "ls", "cwd": ".", "timeout": 5, "env": {"A_B": "1"}},
            ]
        )
    )
    assert c == CreateFile(
        0, "createFile", "createFile-1", False, "b.bin", b"\0\1\2", True, "base64"
    )
    assert isinstance(e, EditFile) and e.edits == (("x", ""),)
    assert s == Shell(2, "shell", "shell-1", False, "ls", ".", 5, (("A_B", "1"),))


BAD = [
    ("not json at all", "ERR_INVALID_JSON"),
    ('{"type": "message", ', "ERR_INVALID_JSON"),
    ('{"type": "message", "content": "a", "content": "b"}', "ERR_INVALID_JSON"),
    ('{"type": "shell", "command": "x", "timeout": NaN}', "ERR_INVALID_JSON"),
    ("[" * 100_000 + "]" * 100_000, "ERR_INVALID_JSON"),
    ('{"operations": {"type": "message"}}', "ERR_INVALID_OPERATION"),
    ('{"operations": [], "extra": 1}', "ERR_INVALID_OPERATION"),
    ("[]", "ERR_INVALID_OPERATION"),
]


@pytest.mark.parametrize(("text", "code"), BAD)
def test_bad_replies(text: str, code: str) -> None:
    err = only_error(text)
    assert (err.type, err.code) == ("error", code)
    assert err.message and "Traceback" not in err.message


OPS = [
    ({"type": "teleport"}, "ERR_UNKNOWN_OPERATION"),
    ({"content": "no type"}, "ERR_UNKNOWN_OPERATION"),
    ({"type": 7}, "ERR_UNKNOWN_OPERATION"),
    ({"type": "message"}, "ERR_INVALID_OPERATION"),
    ({"type": "message", "content": 3}, "ERR_INVALID_OPERATION"),
    ({"type": "message", "content": "x", "colour": "red"}, "ERR_INVALID_OPERATION"),
    (
        {"type": "createFile", "path": "a", "content": "x", "overwrite": "yes"},
        "ERR_INVALID_OPERATION",
    ),
    (
        {"type": "createFile", "path": "a", "content": "x", "encoding": "latin-1"},
        "ERR_INVALID_OPERATION",
    ),
    (
        {"type": "createFile", "path": "a", "content": "not base64!", "encoding": "base64"},
        "ERR_INVALID_BASE64",
    ),
    ({"type": "createFile", "path": "a", "content": "\ud800"}, "ERR_INVALID_OPERATION"),
    ({"type": "createFile", "path": 5, "content": "x"}, "ERR_INVALID_OPERATION"),
    ({"type": "readFile", "path": "/etc/passwd"}, "ERR_PATH_ESCAPE"),
    ({"type": "readFile", "path": "a/../b"}, "ERR_PATH_ESCAPE"),
    ({"type": "readFile", "path": "..\\b"}, "ERR_PATH_ESCAPE"),
    ({"type": "readFile", "path": "a\0b"}, "ERR_PATH_ESCAPE"),
    ({"type": "readFile", "path": "a" * 256}, "ERR_PATH_ESCAPE"),
    ({"type": "readFile", "path": "."}, "ERR_PATH_ESCAPE"),
    ({"type": "editFile", "path": "a", "edits": []}, "ERR_INVALID_OPERATION"),
    (
        {"type": "editFile", "path": "a", "edits": [{"oldContent": "", "newContent": "x"}]},
        "ERR_INVALID_OPERATION",
    ),
    ({"type": "editFile", "path": "a", "edits": [{"oldContent": "a"}]}, "ERR_INVALID_OPERATION"),
    ({"type": "editFile", "path": "a", "edits": "replace"}, "ERR_INVALID_OPERATION"),
    ({"type": "shell", "command": ""}, "ERR_INVALID_OPERATION"),
    ({"type": "shell", "command": "ls", "timeout": "30s"}, "ERR_INVALID_OPERATION"),
    ({"type": "shell", "command": "ls", "timeout": True}, "ERR_INVALID_OPERATION"),
    ({"type": "shell", "command": "ls", "timeout": 0}, "ERR_INVALID_OPERATION"),
    ({"type": "shell", "command": "ls", "env": {"A B": "1"}}, "ERR_INVALID_OPERATION"),
    ({"type": "shell", "command": "ls", "env": {"A": 1}}, "ERR_INVALID_OPERATION"),
    ({"type": "shell", "command": "ls", "cwd": "../.."}, "ERR_PATH_ESCAPE"),
    ({"type": "message", "content": "x", "id": ""}, "ERR_INVALID_OPERATION"),
    ({"type": "message", "content": "x", "id": 12}, "ERR_INVALID_OPERATION"),
    ("a string", "ERR_INVALID_OPERATION"),
]


@pytest.mark.parametrize(("raw", "code"), OPS)
def test_bad_operations_are_errors_in_place(raw: object, code: str) -> None:
    ops = parse(json.dumps([ONE, raw, ONE]))
    assert [type(o) for o in ops] == [Message, InvalidOperation, Message]
    assert ops[1].code == code and ops[1].index == 1


def test_duplicate_ids_in_one_batch() -> None:
    ops = parse(json.dumps([{**ONE, "id": "a"}, {**ONE, "id": "a"}]))
    assert isinstance(ops[0], Message) and ops[1].code == "ERR_DUPLICATE_ID"


def test_ten_thousand_operations_are_one_error() -> None:
    err = only_error(json.dumps([ONE] * 10_000))
    assert err.code == "ERR_TOO_MANY_OPERATIONS" and str(MAX_OPERATIONS) in err.message


def test_fifty_megabyte_content_is_refused_before_parsing() -> None:
    text = json.dumps({"type": "createFile", "path": "big.txt", "content": "x" * 50_000_000})
    assert only_error(text).code == "ERR_BLOCK_TOO_LARGE"


def test_content_over_the_file_limit() -> None:
    [op] = parse(
        json.dumps({"type": "createFile", "path": "big", "content": "x" * (MAX_CONTENT_BYTES + 1)})
    )
    assert isinstance(op, InvalidOperation) and op.code == "ERR_FILE_TOO_LARGE"


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300))
def test_never_raises_on_text(text: str) -> None:
    assert all(o.id for o in parse(text))


KEYS = ["type", "path", "content", "edits", "command", "env", "cwd", "timeout", "id", "operations"]
SCALARS = st.none() | st.booleans() | st.integers() | st.text(max_size=20)


@settings(max_examples=100, deadline=None)
@given(
    st.recursive(
        SCALARS,
        lambda c: (
            st.lists(c, max_size=4)
            | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=5), c, max_size=5)
        ),
        max_leaves=20,
    )
)
def test_never_raises_on_json(value: object) -> None:
    for op in parse(json.dumps(value)):
        assert op.id and op.type


def test_an_invalid_id_is_not_used_as_the_id() -> None:
    [op] = parse(json.dumps({"type": "message", "content": "x", "id": ""}))
    assert op.code == "ERR_INVALID_OPERATION" and op.id == "message-1" and not op.given_id
