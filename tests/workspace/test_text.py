"""Byte-exact text: strict UTF-8, BOM kept aside, line endings kept; round trips."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from jupyter_operator.protocol import OperatorError, codes
from jupyter_operator.workspace import TextFile, decode_text, encode_text, split_lines
from jupyter_operator.workspace.text import join_lines, newline_of


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"a",
        b"a\n",
        b"a\r\nb",
        b"\xef\xbb\xbfx\r\n",
        b"mixed\r\nlf\nlone\rcr",
        b"\xe2\x80\xa8\x0c\n",
    ],
)
def test_round_trip(data: bytes) -> None:
    tf = decode_text(data)
    assert encode_text(tf) == data
    assert join_lines(split_lines(tf.text)) == tf.text


def test_bom_is_kept_aside() -> None:
    tf = decode_text(b"\xef\xbb\xbfhi")
    assert tf == TextFile("hi", bom=True)


@pytest.mark.parametrize(
    "data", [b"caf\xe9", b"\xc0\xaf", b"\xed\xa0\x80", b"abc\xe2\x82", b"a\0b"]
)
def test_not_utf8(data: bytes) -> None:
    with pytest.raises(OperatorError) as info:
        decode_text(data, "x.txt")
    assert info.value.code == codes.ERR_NOT_UTF8
    assert info.value.message.startswith("x.txt ")


def test_split_lines_model() -> None:
    assert split_lines("") == []
    assert split_lines("a\n") == [("a", "\n")]
    assert split_lines("a\r\nb") == [("a", "\r\n"), ("b", "")]
    assert split_lines("a\rb\x0cc\u2028d\n") == [("a\rb\x0cc\u2028d", "\n")]  # only \n splits
    assert newline_of("a\r\nb\n") == "\r\n" and newline_of("a") == "\n"


@settings(max_examples=300, deadline=None)
@given(hs.binary(max_size=64))
def test_decode_is_strict_and_exact(data: bytes) -> None:
    try:
        tf = decode_text(data)
    except OperatorError as err:
        assert err.code == codes.ERR_NOT_UTF8
        return
    assert encode_text(tf) == data
    assert "\ufffd" not in tf.text or "\ufffd".encode() in data


def test_bom_crlf_and_missing_final_newline_survive_an_edit() -> None:
    from jupyter_operator.protocol import ReplaceFirst
    from jupyter_operator.workspace import apply_edits, apply_patch

    data = b"\xef\xbb\xbfone\r\ntwo\r\nthree"
    tf = decode_text(data)
    edited = apply_edits(tf.text, [ReplaceFirst(find="two", text="TWO")])
    assert encode_text(TextFile(edited, tf.bom)) == b"\xef\xbb\xbfone\r\nTWO\r\nthree"
    patched = apply_patch(tf.text, "@@ -2,2 +2,3 @@\n two\n+2.5\n three\n", path="f")
    assert encode_text(TextFile(patched, tf.bom)) == b"\xef\xbb\xbfone\r\ntwo\r\n2.5\r\nthree"
