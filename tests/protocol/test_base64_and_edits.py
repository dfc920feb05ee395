"""Strict base64 and the applyEdits JSON checks."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jupyter_operator.protocol import (
    InsertAfter,
    InsertBefore,
    OperatorError,
    ReplaceAll,
    ReplaceFirst,
    ReplaceRange,
    codes,
    decode_b64_text,
    encode_b64_text,
    parse_edits,
)


@pytest.mark.parametrize(
    ("value", "text"),
    [("QWxwaGEKQmV0YQ==", "Alpha\nBeta"), ("QQ==", "A"), ("QUI=", "AB"), ("w6k=", "\u00e9")],
)
def test_valid_base64(value: str, text: str) -> None:
    assert decode_b64_text(value) == text


@pytest.mark.parametrize(
    "value",
    [
        "",  # empty
        "QR==",  # unused bits set (binascii accepts it)
        "QUI=QUI=",  # padding in the middle
        "QUJD====",  # excess padding (binascii accepts it)
        "Q===",
        "QUJDRA",  # missing padding
        "_-8=",  # URL-safe alphabet
        "QWxw aGEK",  # inner space
        "QWxw\taGEK",
        "e30",
        "6Q==",  # byte 0xE9: not UTF-8
        "wK8=",  # overlong encoding C0 AF
        "7aCA",  # CESU-8 surrogate ED A0 80
    ],
)
def test_invalid_base64(value: str) -> None:
    assert decode_b64_text(value) is None


@given(st.text())
def test_base64_round_trip(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates are not text a file can hold
        return
    if not text:  # an empty payload is refused on purpose (use content: for an empty file)
        assert decode_b64_text(encode_b64_text(text)) is None
        return
    encoded = encode_b64_text(text)
    assert encoded == base64.b64encode(text.encode("utf-8")).decode("ascii")
    assert decode_b64_text(encoded) == text


@given(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ "))
def test_accepted_base64_is_canonical(value: str) -> None:
    text = decode_b64_text(value)
    if text is not None:
        assert encode_b64_text(text) == value


def test_edits_of_every_op() -> None:
    doc = (
        '{"version":1,"edits":['
        '{"op":"insertAfter","anchor":"a","text":"x","occurrence":2},'
        '{"op":"insertBefore","anchor":"b","text":""},'
        '{"op":"replaceFirst","find":"c","text":"y"},'
        '{"op":"replaceAll","find":"d","text":"z"},'
        '{"op":"replaceRange","startLine":1,"endLine":1,"text":"w"}]}'
    )
    assert parse_edits(doc) == (
        InsertAfter(anchor="a", text="x", occurrence=2),
        InsertBefore(anchor="b", text="", occurrence=1),
        ReplaceFirst(find="c", text="y"),
        ReplaceAll(find="d", text="z"),
        ReplaceRange(start_line=1, end_line=1, text="w"),
    )
    assert parse_edits('{"version":1,"edits":[]}') == ()


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ("{not json", "edits_b64 is not valid JSON."),
        ("[]", 'edits_b64 payload must be {"version":1,"edits":[...]}.'),
        ('{"version":2,"edits":[]}', 'edits_b64 payload must be {"version":1,"edits":[...]}.'),
        ('{"version":true,"edits":[]}', 'edits_b64 payload must be {"version":1,"edits":[...]}.'),
        ('{"version":1.0,"edits":[]}', 'edits_b64 payload must be {"version":1,"edits":[...]}.'),
        ('{"version":1,"edits":{}}', 'edits_b64 payload must be {"version":1,"edits":[...]}.'),
        ('{"version":1,"version":1,"edits":[]}', "edits_b64 JSON: duplicate key 'version'."),
        (
            '{"version":1,"edits":[{"op":"replaceAll","find":"a","text":NaN}]}',
            "edits_b64 JSON: NaN is not allowed.",
        ),
        ('{"version":1,"edits":[1]}', "edit 0 is not a JSON object."),
        (
            '{"version":1,"edits":[{"op":"replaceAll","find":"a","text":"b"},{"op":"move"}]}',
            "edit 1: op must be one of insertAfter, insertBefore, replaceFirst, replaceAll, "
            "replaceRange.",
        ),
        (
            '{"version":1,"edits":[{"op":"replaceFirst","find":"Beta"}]}',
            "edit 0 (replaceFirst): text must be a string.",
        ),
        (
            '{"version":1,"edits":[{"op":"replaceAll","find":"","text":"-"}]}',
            "edit 0 (replaceAll): find must be a non-empty string.",
        ),
        (
            '{"version":1,"edits":[{"op":"insertAfter","anchor":5,"text":"-"}]}',
            "edit 0 (insertAfter): anchor must be a non-empty string.",
        ),
        (
            '{"version":1,"edits":[{"op":"insertBefore","anchor":"a","text":"-","occurrence":0}]}',
            "edit 0 (insertBefore): occurrence must be an integer >= 1.",
        ),
        (
            '{"version":1,"edits":[{"op":"insertAfter","anchor":"a","text":"-","occurrence":1.5}]}',
            "edit 0 (insertAfter): occurrence must be an integer >= 1.",
        ),
        (
            '{"version":1,"edits":[{"op":"replaceRange","startLine":"1","endLine":2,"text":""}]}',
            "edit 0 (replaceRange): startLine must be an integer >= 1.",
        ),
        (
            '{"version":1,"edits":[{"op":"replaceRange","startLine":3,"endLine":2,"text":""}]}',
            "edit 0 (replaceRange): endLine must be >= startLine.",
        ),
        (
            '{"version":1,"edits":[{"op":"replaceFirst","find":"a","text":"b","occurence":2}]}',
            "edit 0 (replaceFirst): unknown key 'occurence'.",
        ),
    ],
)
def test_invalid_edits(doc: str, message: str) -> None:
    with pytest.raises(OperatorError) as info:
        parse_edits(doc)
    assert (info.value.code, info.value.message) == (codes.ERR_INVALID_EDITS_JSON, message)


def test_deeply_nested_json_is_an_error_not_a_crash() -> None:
    with pytest.raises(OperatorError) as info:
        parse_edits("[" * 100_000 + "]" * 100_000)
    assert info.value.code == codes.ERR_INVALID_EDITS_JSON
