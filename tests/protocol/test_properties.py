"""Hypothesis properties of the scanner and the result format."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_operator.protocol import (
    Command,
    Result,
    ScanError,
    codes,
    format_results,
    parse_results,
    scan,
)

from .helpers import b64

MARKERS = ["OPERATOR_CMD", "END_OPERATOR_CMD", "version: 1", "id: a", "action: fs.read", "path: x"]

# Text shaped like replies: marker-heavy lines mixed with arbitrary unicode and controls.
reply_lines = st.lists(
    st.one_of(
        st.sampled_from(MARKERS),
        st.text(max_size=30),
        st.builds(
            lambda a, b: a + b, st.sampled_from(["", " ", "\t", "> "]), st.sampled_from(MARKERS)
        ),
    ),
    max_size=40,
)


def _check_items(text: str) -> None:
    result = scan(text)
    n_lines = text.count("\n") + 1
    for item in result.items:
        assert isinstance(item, Command | ScanError)
        assert 1 <= item.line <= n_lines
        if isinstance(item, ScanError):
            assert item.code in codes.ALL_CODES
            assert item.summary.isascii()
            assert item.summary.isprintable()  # no control characters reach a summary
        if item.id is not None:
            assert "\n" not in item.id and "\r" not in item.id


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.text())
def test_scan_never_raises_on_any_text(text: str) -> None:
    _check_items(text)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(reply_lines, st.sampled_from(["\n", "\r\n", "\r"]))
def test_scan_never_raises_on_marker_heavy_text(lines: list[str], nl: str) -> None:
    _check_items(nl.join(lines))


# --- generated replies: blocks interleaved with prose -------------------------------------------
IDS = ["a-1", "a-2", "b-1"]
PATHS = ["x.txt", "sub/y.py"]

valid_body = st.one_of(
    st.builds(lambda p: ("fs.read", (f"path: {p}",)), st.sampled_from(PATHS)),
    st.builds(lambda p: ("fs.list", (f"path: {p}",)), st.sampled_from(PATHS)),
    st.builds(
        lambda p, t: ("fs.write", (f"path: {p}", f"content_b64: {b64(t)}")),
        st.sampled_from(PATHS),
        st.text(min_size=1, max_size=20),
    ),
    st.just(("operator.getInterfaceSpec", ())),
    st.builds(
        lambda p, q: ("fs.search", (f"path: {p}", f"query: {q}")),
        st.sampled_from(PATHS),
        st.sampled_from(["def", "x y"]),
    ),
)

# Blocks that must each give exactly one ScanError (content lines after version/id/action).
INVALID_BODIES = [
    ("fs.read", ()),  # no path
    ("operator.getInterfaceSpec", ("path: .",)),
    ("fs.read", ("path: a", "not key value")),
    ("fs.read", ("path: caf\u00e9",)),
    ("fs.read", ("path: a", "")),  # empty line: the rest is prose, END is stray
    ("fs.frobnicate", ("path: a",)),
    ("operator.error", ()),
    ("fs.write", ("path: a", "content_b64: QR==")),
    ("fs.readSlice", ("path: a", "start: 0")),
    ("fs.read", ("path: a", "path: b")),
]


@st.composite
def block_specs(draw: st.DrawFn) -> tuple[bool, str, str, tuple[str, ...]]:
    cid = draw(st.sampled_from(IDS))
    if draw(st.booleans()):
        action, extra = draw(valid_body)
        return True, cid, action, extra
    action, extra = draw(st.sampled_from(INVALID_BODIES))
    return False, cid, action, extra


prose = st.lists(
    st.builds(lambda s: "p " + s, st.text(alphabet=st.characters(blacklist_characters="\n"))),
    max_size=3,
)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(block_specs(), prose), max_size=8), st.randoms(), st.booleans())
def test_one_item_per_block_minus_identical_duplicates(
    parts: list[tuple[tuple[bool, str, str, tuple[str, ...]], list[str]]],
    rnd: random.Random,
    crlf: bool,
) -> None:
    lines: list[str] = []
    expected: list[tuple[str, str]] = []
    claims: dict[str, tuple[str, frozenset[str]]] = {}
    for (valid, cid, action, extra), text in parts:
        fields = ["version: 1", f"id: {cid}", f"action: {action}", *extra]
        if valid:
            rnd.shuffle(fields)  # key order does not make a block different
            content = (action, frozenset(extra))
            if cid not in claims:
                claims[cid] = content
                expected.append(("Command", cid))
            elif claims[cid] == content:
                pass  # identical duplicate: skipped
            else:
                expected.append(("ScanError", cid))
        else:
            expected.append(("ScanError", cid))  # every invalid block here has a readable id
        lines += ["OPERATOR_CMD", *fields, "END_OPERATOR_CMD", *text]
    reply = ("\r\n" if crlf else "\n").join(lines)
    result = scan(reply)
    assert [(type(i).__name__, i.id) for i in result.items] == expected
    assert len(result.items) + len(result.skipped_duplicates) == len(parts)


# --- results round trip -------------------------------------------------------------------------
results = st.builds(
    Result,
    id=st.text(alphabet=st.characters(blacklist_characters="\r\n"), max_size=30),
    ok=st.booleans(),
    summary=st.text(max_size=60),
    details=st.none() | st.text(max_size=200),
)


@given(st.lists(results, max_size=6))
def test_parse_results_inverts_format_results(rs: list[Result]) -> None:
    assert parse_results(format_results(rs)) == rs


@given(st.lists(results, max_size=4))
def test_formatted_results_are_not_commands(rs: list[Result]) -> None:
    # Every result line starts with a key or a RESULT marker, never with a command marker.
    assert scan(format_results(rs)).items == ()
