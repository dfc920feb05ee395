"""The scanner against a plain per-line reference implementation written from the rules.

The scanner takes shortcuts for speed (``str.find`` for markers, whole-chunk regexes for
well-formed blocks); this reference walks every line with the rules as PROTOCOL.md states
them. Both must agree on every item: kind, code, id and line.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_operator.protocol import Command, OperatorError, _blocks, _scanner, scan
from jupyter_operator.protocol._scanner import FOLD_MIN, _not_alone
from jupyter_operator.protocol._validate import validate_fields

KV = re.compile(r"([A-Za-z0-9_.-]+)[ \t]*:[ \t]*(.*)")


def _id(lines: list[str]) -> str | None:
    for line in lines:
        m = KV.fullmatch(line)
        if m and m.group(1) == "id":
            v = m.group(2)
            return v if v and v.isascii() and v.isprintable() else None
    return None


def reference(text: str) -> list[tuple[str, str | None, str | None, int]]:
    """(kind, code, id, line) per item, from a line-by-line reading of the rules, folded."""
    return fold(unfolded(text))


def fold(items: list[tuple]) -> list[tuple[str, str | None, str | None, int]]:
    """The fold rule: FOLD_MIN or more equal errors on consecutive lines become the first."""
    out: list[tuple[str, str | None, str | None, int]] = []
    runs: list[list[tuple]] = []
    for item in items:
        run = runs[-1] if runs else None
        last = run[-1] if run else None
        if (
            last is not None
            and len(item) == len(last) == 5
            and (item[1], item[2], item[4]) == (last[1], last[2], last[4])
            and item[3] == last[3] + 1
        ):
            run.append(item)
        else:
            runs.append([item])
    for run in runs:
        kept = run[:1] if len(run) >= FOLD_MIN else run
        out.extend(item[:4] for item in kept)
    return out


def unfolded(text: str) -> list[tuple]:
    """(kind, code, id, line, message key) per item; the key is set for marker errors."""
    raw_lines = text.split("\n")
    if text.endswith("\n"):
        raw_lines.pop()  # the final terminator is not an empty line
    out: list[tuple] = []
    seen: dict[str, str] = {}
    nested = "nested"
    block: list[str] | None = None
    start = 0
    for n, raw in enumerate(raw_lines, 1):
        line = raw[:-1] if raw.endswith("\r") else raw
        t = line.strip(" \t")
        kind = None
        if t.startswith("END_OPERATOR_CMD"):
            kind = ("END", t == "END_OPERATOR_CMD")
        elif t.startswith("OPERATOR_CMD"):
            kind = ("START", t == "OPERATOR_CMD")
        if block is None:
            if kind == ("START", True):
                block, start = [], n
            elif kind is not None and not kind[1]:
                out.append(("error", "ERR_MARKER_NOT_ALONE", None, n, _not_alone(line)))
            continue
        if kind is not None:
            if not kind[1]:
                out.append(("error", "ERR_MARKER_NOT_ALONE", _id(block), start, _not_alone(line)))
                block = None
            elif kind[0] == "START":
                out.append(("error", "ERR_NESTED_BLOCK", _id(block), start, nested))
                block, start = [], n
            else:
                out.extend(_finish(block, start, seen))
                block = None
            continue
        if not t:
            out.append(("error", "ERR_EMPTY_LINE_IN_CMD", _id(block), start))
            block = None
            continue
        block.append(t)
        if len(block) > 200 or sum(len(x) + 1 for x in block) > 50_000:
            out.append(("error", "ERR_BLOCK_TOO_LARGE", _id(block), start))
            block = None
    if block is not None:
        out.append(("error", "ERR_MISSING_END_MARKER", _id(block), start))
    return out


def _finish(block: list[str], start: int, seen: dict[str, str]) -> list[tuple]:
    if not all(x.isascii() for x in block):
        return [("error", "ERR_NON_ASCII_IN_CMD", _id(block), start)]
    fields: dict[str, str] = {}
    dup = False
    prev = ""
    for x in block:
        m = KV.fullmatch(x)
        if not m:
            code = "ERR_CONTENT_HAS_NEWLINES" if prev == "content" else "ERR_NON_KEY_VALUE_LINE"
            return [("error", code, _id(block), start)]
        k, v = m.groups()
        if "\r" in v:
            return [("error", "ERR_CONTENT_HAS_NEWLINES", _id(block), start)]
        dup = dup or fields.setdefault(k, v) != v
        prev = k
    if dup:
        return [("error", "ERR_DUPLICATE_KEY", _id(block), start)]
    try:
        cid, _, _, _ = validate_fields(fields)
    except OperatorError as exc:
        good = fields.get("id")
        good = good if good and good.isascii() and good.isprintable() else None
        return [("error", exc.code, good, start)]
    canon = repr(sorted(fields.items()))
    if cid not in seen:
        seen[cid] = canon
        return [("command", None, cid, start)]
    if seen[cid] == canon:
        return []
    return [("error", "ERR_DUPLICATE_ID", cid, start)]


def actual(text: str) -> list[tuple[str, str | None, str | None, int]]:
    return [
        ("command", None, i.id, i.line)
        if isinstance(i, Command)
        else ("error", i.code, i.id, i.line)
        for i in scan(text).items
    ]


PIECES = [
    "OPERATOR_CMD",
    "END_OPERATOR_CMD",
    "  OPERATOR_CMD\t",
    "OPERATOR_CMD x",
    "END_OPERATOR_CMD!",
    "> OPERATOR_CMD",
    "x OPERATOR_CMD y OPERATOR_CMD",
    "version: 1",
    "version:1 ",
    "id: a",
    "id: b",
    " id : a",
    "action: fs.read",
    "action: operator.getInterfaceSpec",
    "action: fs.write",
    "path: x",
    "path: y",
    "content: hi",
    "content: a\rb",
    "content_b64: QQ==",
    "content_b64: QR==",
    "more text",
    "",
    " \t",
    "caf\u00e9: 1",
    "\r",
]


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=8)), max_size=30),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
)
def test_scanner_agrees_with_the_reference(pieces: list[str], nl: str, final: bool) -> None:
    text = nl.join(pieces) + (nl if final else "")
    assert actual(text) == reference(text)


def test_reference_agrees_on_large_blocks() -> None:
    for n in (199, 200, 201):
        text = "OPERATOR_CMD\nversion: 1\nid: a\naction: fs.list\npath: .\n"
        text += "".join(f"k{i}: v\n" for i in range(n - 4)) + "END_OPERATOR_CMD\n"
        assert actual(text) == reference(text)
    for pad in (-1, 0, 1):
        body = "version: 1\nid: a\naction: fs.list\npath: .\nx: "
        text = "OPERATOR_CMD\n" + body + "a" * (50_000 - len(body) - 1 + pad) + "\nEND_OPERATOR_CMD"
        assert actual(text) == reference(text)


def test_long_runs_of_one_marker_error_are_folded() -> None:
    for line in ("OPERATOR_CMD", "OPERATOR_CMD x", "  END_OPERATOR_CMD!"):
        for count in (FOLD_MIN - 2, FOLD_MIN + 1, 5_000):
            text = (line + "\n") * count
            assert actual(text) == reference(text), (line, count)
    items = scan("OPERATOR_CMD x\n" * 500).items
    assert len(items) == 1 and items[0].line == 1
    assert "500 errors folded into this result" in items[0].message
    assert "(to line 500)" in items[0].message


def test_runs_with_different_lines_fold_by_message_not_by_text() -> None:
    # Bare START markers with and without trailing blanks give one nested error each.
    text = "".join("OPERATOR_CMD" + " " * (i % 3) + "\n" for i in range(40)) + "tail\n"
    assert actual(text) == reference(text)
    first = scan(text).items[0]
    assert first.code == "ERR_NESTED_BLOCK" and "39 errors folded" in first.message


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.sampled_from(PIECES), st.integers(min_value=1, max_value=3 * FOLD_MIN)),
        max_size=8,
    ),
    st.sampled_from(["\n", "\r\n"]),
)
def test_scanner_agrees_with_the_reference_on_repeated_lines(
    runs: list[tuple[str, int]], nl: str
) -> None:
    text = nl.join(piece for piece, count in runs for _ in range(count))
    assert actual(text) == reference(text)


HEADERS = [
    "version: 1\nid: {}\naction: fs.read\npath: x",
    "\tversion :1\n id:{}\naction:  fs.write\npath: y\ncontent: hi  there",
    "version: 1\nid: {}\naction: fs.readSlice\npath: y\nstart: 2",
    "version: 1\nid: {}\naction: fs.write\npath: y",
    "version: 2\nid: {}\naction: fs.stat\npath: .",
    "",
]
EXTRA_LINES = [
    "path: x",
    "path:",
    "path:  ",
    "id: a ",
    "content:",
    "content: a\rb",
    "content_b64: QQ==",
    "content_b64: QR==",
    "lines: 500",
    "caf\u00e9: 1",
    "x: caf\u00e9",
    "OPERATOR_CMD: x",
    "  END_OPERATOR_CMDx: 1",
    "OPERATOR_CMD",
    "more text",
    "",
    " \t",
]
STARTS = ["OPERATOR_CMD", " \tOPERATOR_CMD \t", "OPERATOR_CMD\r", "OPERATOR_CMD x"]
ENDS = ["END_OPERATOR_CMD", "\tEND_OPERATOR_CMD  ", "END_OPERATOR_CMD\r", "END_OPERATOR_CMD!", ""]
BLOCKS = st.tuples(
    st.sampled_from(STARTS),
    st.sampled_from(HEADERS),
    st.sampled_from(["a", "b", "a b"]),
    st.lists(st.sampled_from(EXTRA_LINES), max_size=3),
    st.sampled_from(ENDS),
).map(lambda b: "\n".join([b[0], *([b[1].format(b[2])] if b[1] else []), *b[3], b[4]]))


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.one_of(BLOCKS, st.sampled_from(["prose", "", "x OPERATOR_CMD"])), max_size=8),
    st.booleans(),
)
def test_whole_block_pattern_gives_what_the_line_path_gives(
    pieces: list[str], final: bool
) -> None:
    # Every item (fields, params, messages, lines) is the same with the whole-block pattern
    # as without it, where every block goes through the per-line path.
    text = "\n".join(pieces) + ("\n" if final else "")
    fast = scan(text)
    with_lines = _blocks._BLOCK
    try:
        _blocks._BLOCK = re.compile(r"(?!)")
        slow = scan(text)
    finally:
        _blocks._BLOCK = with_lines
    assert fast == slow


@settings(max_examples=300)
@given(
    st.lists(st.sampled_from(["\n", "\n\n", "x" * 40, "y" * 700, "z" * 3000]), max_size=30),
    st.data(),
)
def test_line_numbers_in_long_prose_count_every_newline(pieces: list[str], data) -> None:
    text = "".join(pieces)
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert _scanner._newlines(text, start, end) == text.count("\n", start, end)
