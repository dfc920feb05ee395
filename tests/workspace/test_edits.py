"""fs.applyEdits semantics (mirroring the exec_applyEdits conformance cases) and byte exactness."""

# ruff: noqa: E501  (case tables read best one case a line)

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as hs

from jupyter_operator.protocol import (
    InsertAfter,
    InsertBefore,
    OperatorError,
    ReplaceAll,
    ReplaceFirst,
    ReplaceRange,
    codes,
)
from jupyter_operator.workspace import apply_edits, split_lines

CASES = [
    # (name, before, edits, after)
    ("golden path", "Alpha\nBeta", [InsertAfter(anchor="Beta", text="\nGamma")], "Alpha\nBeta\nGamma"),
    ("prepends newline", "Alpha\nBeta\n", [InsertAfter(anchor="Alpha", text="X")], "Alpha\nX\nBeta\n"),
    ("eof without newline", "Alpha\nBeta", [InsertAfter(anchor="Beta", text="Gamma")], "Alpha\nBeta\nGamma"),
    ("crlf newline", "Alpha\r\nBeta\r\n", [InsertAfter(anchor="Alpha", text="X")], "Alpha\r\nX\r\nBeta\r\n"),
    ("crlf at eof", "A\r\nB", [InsertAfter(anchor="B", text="C")], "A\r\nB\r\nC"),
    ("mid-line anchor", "foo bar\n", [InsertAfter(anchor="foo", text="!")], "foo! bar\n"),
    ("text with newline first", "A\nB\n", [InsertAfter(anchor="A", text="\nX")], "A\nX\nB\n"),
    ("insertBefore occurrence", "x1\nx2\nx3\n", [InsertBefore(anchor="x", text=">", occurrence=2)], "x1\n>x2\nx3\n"),
    ("insertAfter occurrence", "ab ab cd\n", [InsertAfter(anchor="ab", text="!", occurrence=2)], "ab ab! cd\n"),
    ("replaceFirst unique", "Alpha\nBeta\n", [ReplaceFirst(find="Beta", text="B")], "Alpha\nB\n"),
    ("replaceFirst first of many", "foo foo\n", [ReplaceFirst(find="foo", text="bar")], "bar foo\n"),
    ("replaceAll", "a.a.a\n", [ReplaceAll(find="a", text="bb")], "bb.bb.bb\n"),
    ("replaceRange", "L1\nL2\nL3\n", [ReplaceRange(start_line=2, end_line=2, text="X\nY")], "L1\nX\nY\nL3\n"),
    ("replaceRange trailing newline", "L1\nL2\nL3\n", [ReplaceRange(start_line=2, end_line=3, text="X\n")], "L1\nX\n"),
    ("replaceRange crlf", "L1\r\nL2\r\nL3\r\n", [ReplaceRange(start_line=1, end_line=2, text="X\nY\nZ")], "X\r\nY\r\nZ\r\nL3\r\n"),
    ("replaceRange last line no eol", "L1\nL2", [ReplaceRange(start_line=2, end_line=2, text="X\nY")], "L1\nX\nY"),
    ("replaceRange delete lines", "L1\nL2\nL3\n", [ReplaceRange(start_line=2, end_line=2, text="")], "L1\nL3\n"),
    ("replaceRange delete tail", "L1\nL2\nL3", [ReplaceRange(start_line=2, end_line=3, text="")], "L1\n"),
    ("replaceRange one empty line", "L1\nL2\n", [ReplaceRange(start_line=1, end_line=1, text="\n")], "\nL2\n"),
    ("sequential", "Alpha\nBeta\n", [ReplaceFirst(find="Beta", text="Gamma"), InsertAfter(anchor="Gamma", text="Delta")], "Alpha\nGamma\nDelta\n"),
    ("empty list", "same\n", [], "same\n"),
    ("dict edits", "a\n", [{"op": "replaceAll", "find": "a", "text": "b"}], "b\n"),
]  # fmt: skip


@pytest.mark.parametrize("before,edits,after", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_edit_table(before: str, edits: list, after: str) -> None:
    assert apply_edits(before, edits) == after


FAILURES = [
    ("anchor missing", "a\n", [InsertAfter(anchor="zz", text="x")], codes.ERR_ANCHOR_NOT_FOUND, "edit 0"),
    ("occurrence missing", "a a\n", [InsertBefore(anchor="a", text="x", occurrence=3)], codes.ERR_ANCHOR_NOT_FOUND, "edit 0"),
    ("find missing", "a\n", [ReplaceFirst(find="zz", text="x")], codes.ERR_ANCHOR_NOT_FOUND, "edit 0"),
    ("replaceAll zero", "a.a.a\n", [ReplaceAll(find="zz", text="b")], codes.ERR_ANCHOR_NOT_FOUND, "edit 0"),
    ("second edit fails", "a\n", [ReplaceAll(find="a", text="b"), ReplaceAll(find="a", text="c")], codes.ERR_ANCHOR_NOT_FOUND, "edit 1"),
    ("range past end", "L1\nL2\nL3\n", [ReplaceRange(start_line=3, end_line=4, text="X")], codes.ERR_INVALID_EDITS_JSON, "edit 0"),
    ("phantom line", "L1\n", [ReplaceRange(start_line=2, end_line=2, text="X")], codes.ERR_INVALID_EDITS_JSON, "edit 0"),
    ("unknown op", "a\n", [{"op": "nope"}], codes.ERR_INVALID_EDITS_JSON, "edit 0"),
    ("empty find", "a\n", [{"op": "replaceAll", "find": "", "text": "x"}], codes.ERR_INVALID_EDITS_JSON, "edit 0"),
    ("start after end", "L1\nL2\nL3\n", [{"op": "replaceRange", "start_line": 3, "end_line": 2, "text": ""}], codes.ERR_INVALID_EDITS_JSON, "edit 0"),
]  # fmt: skip


@pytest.mark.parametrize(
    "before,edits,code,where", [c[1:] for c in FAILURES], ids=[c[0] for c in FAILURES]
)
def test_edit_failures(before: str, edits: list, code: str, where: str) -> None:
    with pytest.raises(OperatorError) as info:
        apply_edits(before, edits)
    assert info.value.code == code
    assert info.value.message.startswith(where + ":")


LINE = hs.text(alphabet="abc \t\u00e9\r", max_size=8).filter(lambda s: not s.endswith("\r"))
ENDING = hs.sampled_from(["\n", "\r\n"])


@hs.composite
def files(draw) -> str:
    lines = draw(hs.lists(hs.tuples(LINE, ENDING), min_size=1, max_size=12))
    text = "".join(c + e for c, e in lines)
    if draw(hs.booleans()):  # no final newline
        text = text[: -len(lines[-1][1])]
    assume(text)
    return text


@settings(max_examples=300, deadline=None)
@given(files(), hs.data())
def test_replace_range_leaves_other_lines_byte_identical(text: str, data) -> None:
    lines = split_lines(text)
    start = data.draw(hs.integers(1, len(lines)))
    end = data.draw(hs.integers(start, len(lines)))
    new = data.draw(hs.text(alphabet="xyz\n", max_size=10))
    out = apply_edits(text, [ReplaceRange(start_line=start, end_line=end, text=new)])
    out_lines = split_lines(out)
    assert out_lines[: start - 1] == lines[: start - 1]
    tail = lines[end:]
    if tail:
        assert out_lines[len(out_lines) - len(tail) :] == tail
    # The file's final-newline state survives, unless the end itself was replaced by nothing
    # or by an empty last line (which cannot exist without a newline).
    last_new = (new[:-1] if new.endswith("\n") else new).split("\n")[-1]
    if tail or (new and last_new):
        assert out.endswith("\n") == text.endswith("\n")


@settings(max_examples=300, deadline=None)
@given(
    files(), hs.sampled_from(["a", "b", "c", "ab"]), hs.text(alphabet="XY", min_size=1, max_size=3)
)
def test_insert_after_only_adds_text(text: str, anchor: str, new: str) -> None:
    if anchor not in text:
        with pytest.raises(OperatorError):
            apply_edits(text, [InsertAfter(anchor=anchor, text=new)])
        return
    out = apply_edits(text, [InsertAfter(anchor=anchor, text=new)])
    pos = text.find(anchor) + len(anchor)
    assert out[:pos] == text[:pos]
    assert out.endswith(text[pos:])
    added = out[pos : len(out) - len(text) + pos]
    assert added in (new, "\n" + new, "\r\n" + new)
