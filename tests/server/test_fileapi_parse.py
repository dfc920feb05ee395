"""Any frame a client can send is either a valid request or a ``bad_request``, never a crash."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_operator.server.errors import BAD_REQUEST, FileApiError
from jupyter_operator.server.fileapi import Capabilities, FileList, FileRead, FileWrite, parse

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
FIELDS = {"type", "path", "project", "workspace", "content_b64", "request_id"}
KEYS = st.sampled_from([*sorted(FIELDS), "extra"])
TYPES = st.sampled_from(["file_list", "file_read", "file_write", "capabilities", "file_delete", ""])
MESSAGES = st.dictionaries(KEYS, JSON | TYPES, max_size=6)


def _outcome(frame: str | bytes) -> object:
    try:
        return parse(frame)
    except FileApiError as exc:
        assert exc.code == BAD_REQUEST
        assert "Traceback" not in exc.message and len(exc.message) <= 200
        return exc


@settings(max_examples=300, deadline=None)
@given(MESSAGES)
def test_message_objects(message: dict) -> None:
    result = _outcome(json.dumps(message))
    if not isinstance(result, FileApiError):
        assert isinstance(result, FileList | FileRead | FileWrite | Capabilities)
        assert message["type"] == result.type
        # The message type's own fields were strings; fields it does not know may be anything.
        own = set(type(result).model_fields) - {"request_id"}
        assert all(isinstance(v, str) for k, v in message.items() if k in own)
        request_id = message.get("request_id")
        assert request_id is None or type(request_id) in (str, int)
        assert result.request_id == request_id
    elif isinstance(message.get("request_id"), str):
        assert result.echo == {"request_id": message["request_id"]}


@settings(max_examples=200, deadline=None)
@given(JSON)
def test_any_json_value(value: object) -> None:
    _outcome(json.dumps(value))


@settings(max_examples=200, deadline=None)
@given(st.text() | st.binary())
def test_any_frame(frame: str | bytes) -> None:
    _outcome(frame)


def test_unknown_fields_are_ignored_and_request_id_kept() -> None:
    read = parse('{"type": "file_read", "path": "a.txt", "client": {"v": 1.2}, "request_id": 7}')
    assert read == FileRead(type="file_read", path="a.txt", request_id=7)
    assert parse('{"type": "capabilities", "request_id": "r1"}') == Capabilities(
        type="capabilities", request_id="r1"
    )


def test_valid_examples_parse() -> None:
    assert parse('{"type": "file_list"}') == FileList(type="file_list")
    read = parse('{"type": "file_read", "path": "a.txt", "project": "p", "workspace": "w"}')
    assert read == FileRead(type="file_read", path="a.txt", project="p", workspace="w")


def test_deep_nesting_is_a_bad_request_not_a_crash() -> None:
    deep = _outcome("[" * 200_000 + "]" * 200_000)
    assert isinstance(deep, FileApiError)
    nested = _outcome('{"type": "file_read", "path": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert isinstance(nested, FileApiError)


def test_a_bad_request_id_names_the_field() -> None:
    """A malformed request_id was reported as field 'str' (the union member pydantic tried)."""
    message = {"type": "file_read", "project": "p", "workspace": "default", "path": "a.txt",
               "request_id": [1]}  # fmt: skip
    with pytest.raises(FileApiError) as err:
        parse(json.dumps(message))
    assert err.value.message == "field 'request_id': must be a str or int"
