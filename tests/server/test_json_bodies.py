"""JSON in and out of the handlers: bodies read as json.loads reads them, lone surrogates found
anywhere in a body, answers that read back as they were."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from jupyter_operator.server.errors import ApiError
from jupyter_operator.server.json_bodies import dump_json, holds_lone_surrogate, parse_body

# Text with every kind of character, lone surrogates included (categories Cs).
TEXT = hs.text(hs.characters(codec=None), max_size=12)
JSON = hs.recursive(
    hs.none() | hs.booleans() | hs.integers() | TEXT,
    lambda inner: hs.lists(inner, max_size=4) | hs.dictionaries(TEXT, inner, max_size=4),
    max_leaves=20,
)


def _encodes(data: object) -> bool:
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@settings(max_examples=400, deadline=None)
@given(JSON)
def test_agrees_with_encoding_the_whole_body(data: object) -> None:
    assert holds_lone_surrogate(data) is not _encodes(data)


def test_finds_one_in_a_key_deep_in_lists() -> None:
    assert holds_lone_surrogate({"a": [[{"ok": 1, "\udc80": 2}]]})
    assert holds_lone_surrogate(["x", ["é", "\ud800"]])
    assert not holds_lone_surrogate({"text": "\U0001f600 \ud55c \\ud800", "n": [1, None, True]})


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_an_answer_reads_back_as_it_was(data: object) -> None:
    # Lone surrogates (a file name decoded with surrogateescape) go through json.dumps' escapes.
    assert json.loads(dump_json(data)) == json.loads(json.dumps(data))


def test_a_body_is_read_as_json_loads_reads_it() -> None:
    from jupyter_operator.server.bodies import ScanBody

    for raw in (b'{"text": "\\u00e9 x"}', b'\xef\xbb\xbf{"text": "x"}',
                '{"text": "x"}'.encode("utf-16")):  # fmt: skip
        assert parse_body(raw, ScanBody).text == json.loads(raw)["text"]
    deep = b'{"text": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    for raw, code in ((deep, "bad_request"), (b'{"text": "\\ud800"}', "invalid_utf8"),
                      (b'{"text": "a\tb"}', "bad_request")):  # fmt: skip
        with pytest.raises(ApiError) as refused:
            parse_body(raw, ScanBody)
        assert refused.value.code == code
