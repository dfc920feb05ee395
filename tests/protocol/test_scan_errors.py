"""Every error code the scanner can produce, with the exact summary a model reads."""

from __future__ import annotations

import pytest

from jupyter_operator.protocol import Command, ScanError, codes, scan

from .helpers import RUNTIME_CODES, b64, block, cmd

# (case name, reply, expected code, expected id, expected summary)
TABLE: list[tuple[str, str, str, str | None, str]] = [
    (
        "marker_not_alone_outside",
        "OPERATOR_CMD blocks are how I work.\n",
        codes.ERR_MARKER_NOT_ALONE,
        None,
        "Invalid OPERATOR_CMD (ERR_MARKER_NOT_ALONE): line 'OPERATOR_CMD blocks are how I work.'"
        " must be only OPERATOR_CMD.",
    ),
    (
        "end_marker_not_alone_inside",
        "OPERATOR_CMD\nversion: 1\nid: e-1\naction: fs.list\npath: .\nEND_OPERATOR_CMD thanks\n",
        codes.ERR_MARKER_NOT_ALONE,
        "e-1",
        "Invalid OPERATOR_CMD (ERR_MARKER_NOT_ALONE): line 'END_OPERATOR_CMD thanks'"
        " must be only END_OPERATOR_CMD.",
    ),
    (
        "missing_end_marker",
        "OPERATOR_CMD\nversion: 1\nid: m-1\naction: fs.list\npath: .\n",
        codes.ERR_MISSING_END_MARKER,
        "m-1",
        "Invalid OPERATOR_CMD (ERR_MISSING_END_MARKER): reached end of text without"
        " END_OPERATOR_CMD.",
    ),
    (
        "non_key_value_line",
        block("version: 1", "id: k-1", "action: fs.list", "path: .", "please list"),
        codes.ERR_NON_KEY_VALUE_LINE,
        "k-1",
        "Invalid OPERATOR_CMD (ERR_NON_KEY_VALUE_LINE): line 'please list' is not key: value.",
    ),
    (
        "empty_line",
        block("version: 1", "id: el-1", "", "action: fs.list", "path: ."),
        codes.ERR_EMPTY_LINE_IN_CMD,
        "el-1",
        "Invalid OPERATOR_CMD (ERR_EMPTY_LINE_IN_CMD): empty line inside OPERATOR_CMD.",
    ),
    (
        "non_ascii",
        cmd("na-1", "fs.write", "content: caf\u00e9", path="x.txt"),
        codes.ERR_NON_ASCII_IN_CMD,
        "na-1",
        "Invalid OPERATOR_CMD (ERR_NON_ASCII_IN_CMD): non-ASCII character detected in command"
        " block. (line 6 of the block: U+00E9; put text in content_b64 (base64 of UTF-8))",
    ),
    (
        "missing_required_fields",
        block("id: r-1", "path: ."),
        codes.ERR_MISSING_REQUIRED_FIELDS,
        "r-1",
        "Invalid OPERATOR_CMD (ERR_MISSING_REQUIRED_FIELDS): missing version, action.",
    ),
    (
        "action_requires_path",
        cmd("p-1", "fs.read"),
        codes.ERR_ACTION_REQUIRES_PATH,
        "p-1",
        "Invalid OPERATOR_CMD (ERR_ACTION_REQUIRES_PATH): fs.* actions require path.",
    ),
    (
        "action_forbids_path",
        cmd("p-2", "operator.getInterfaceSpec", path="."),
        codes.ERR_ACTION_FORBIDS_PATH,
        "p-2",
        "Invalid OPERATOR_CMD (ERR_ACTION_FORBIDS_PATH): operator.* actions must not include path.",
    ),
    (
        "content_continuation_line",
        cmd("c-1", "fs.write", "content: first line", "second line", path="a.txt"),
        codes.ERR_CONTENT_HAS_NEWLINES,
        "c-1",
        "Invalid OPERATOR_CMD (ERR_CONTENT_HAS_NEWLINES): content contains newline; use"
        " content_b64.",
    ),
    (
        "content_lone_cr",
        cmd("c-2", "fs.write", "content: a\rb", path="a.txt"),
        codes.ERR_CONTENT_HAS_NEWLINES,
        "c-2",
        "Invalid OPERATOR_CMD (ERR_CONTENT_HAS_NEWLINES): content contains newline; use"
        " content_b64.",
    ),
    (
        "invalid_base64",
        cmd("b-1", "fs.write", "content_b64: QR==", path="a.txt"),
        codes.ERR_INVALID_BASE64,
        "b-1",
        "Invalid OPERATOR_CMD (ERR_INVALID_BASE64): field=content_b64 is not valid base64.",
    ),
    (
        "base64_not_utf8",
        cmd("b-2", "fs.write", "content_b64: 6Q==", path="a.txt"),
        codes.ERR_INVALID_BASE64,
        "b-2",
        "Invalid OPERATOR_CMD (ERR_INVALID_BASE64): field=content_b64 does not decode to UTF-8"
        " text.",
    ),
    (
        "missing_query",
        cmd("q-1", "fs.searchTree", path="."),
        codes.ERR_MISSING_QUERY,
        "q-1",
        "Invalid OPERATOR_CMD (ERR_MISSING_QUERY): missing query; use query: <text>.",
    ),
    (
        "invalid_readslice_params",
        cmd("rs-1", "fs.readSlice", "start: 1.5", path="t.txt"),
        codes.ERR_INVALID_READSLICE_PARAMS,
        "rs-1",
        "Invalid OPERATOR_CMD (ERR_INVALID_READSLICE_PARAMS): start must be a whole number >= 1"
        " (got '1.5').",
    ),
    (
        "missing_edits_b64",
        cmd("ae-1", "fs.applyEdits", path="n.txt"),
        codes.ERR_MISSING_EDITS_B64,
        "ae-1",
        "Invalid OPERATOR_CMD (ERR_MISSING_EDITS_B64): edits_b64 is required.",
    ),
    (
        "missing_patch_b64",
        cmd("pa-1", "fs.patch", path="n.txt"),
        codes.ERR_MISSING_PATCH_B64,
        "pa-1",
        "Invalid OPERATOR_CMD (ERR_MISSING_PATCH_B64): patch_b64 is required.",
    ),
    (
        "invalid_edits_json",
        cmd("ae-2", "fs.applyEdits", f"edits_b64: {b64('{not json')}", path="n.txt"),
        codes.ERR_INVALID_EDITS_JSON,
        "ae-2",
        "Invalid OPERATOR_CMD (ERR_INVALID_EDITS_JSON): edits_b64 is not valid JSON.",
    ),
    (
        "unknown_action",
        cmd("u-1", "fs.frobnicate", path="a.txt"),
        codes.ERR_UNKNOWN_ACTION,
        "u-1",
        "Invalid OPERATOR_CMD (ERR_UNKNOWN_ACTION): Unknown action: fs.frobnicate. Use one of the"
        " spec's actions.",
    ),
    (
        "reserved_action",
        cmd("re-1", "operator.error"),
        codes.ERR_RESERVED_ACTION,
        "re-1",
        "Invalid OPERATOR_CMD (ERR_RESERVED_ACTION): action reserved for UI: operator.error.",
    ),
    (
        "duplicate_id",
        cmd("d-1", "fs.read", path="a.txt") + cmd("d-1", "fs.read", path="b.txt"),
        codes.ERR_DUPLICATE_ID,
        "d-1",
        "Invalid OPERATOR_CMD (ERR_DUPLICATE_ID): duplicate id with differing content: d-1; use a"
        " new id for a new command.",
    ),
    (
        "block_too_large_lines",
        cmd("big-1", "fs.list", *[f"k{i}: v" for i in range(197)], path="."),
        codes.ERR_BLOCK_TOO_LARGE,
        "big-1",
        "Invalid OPERATOR_CMD (ERR_BLOCK_TOO_LARGE): too many lines (>200).",
    ),
    (
        "block_too_large_chars",
        cmd("big-2", "fs.write", "content_b64: " + "QUJD" * 12_500, path="a.txt"),
        codes.ERR_BLOCK_TOO_LARGE,
        "big-2",
        "Invalid OPERATOR_CMD (ERR_BLOCK_TOO_LARGE): too many characters (>50000).",
    ),
    (
        "unsupported_version",
        block("version: 1.0", "id: v-1", "action: operator.getInterfaceSpec"),
        codes.ERR_UNSUPPORTED_VERSION,
        "v-1",
        "Invalid OPERATOR_CMD (ERR_UNSUPPORTED_VERSION): version must be exactly 1.",
    ),
    (
        "missing_marker_id",
        cmd("mk-1", "fs.deleteRegion", path="a.py"),
        codes.ERR_MISSING_MARKER_ID,
        "mk-1",
        "Invalid OPERATOR_CMD (ERR_MISSING_MARKER_ID): marker_id is required.",
    ),
    (
        "marker_id_with_space",
        cmd("mk-2", "fs.readRegion", "marker_id: two words", path="a.py"),
        codes.ERR_MISSING_MARKER_ID,
        "mk-2",
        "Invalid OPERATOR_CMD (ERR_MISSING_MARKER_ID): marker_id must be one word without spaces.",
    ),
    (
        "missing_content_b64",
        cmd("rr-1", "fs.replaceRegion", "marker_id: r1", path="a.py"),
        codes.ERR_MISSING_CONTENT_B64,
        "rr-1",
        "Invalid OPERATOR_CMD (ERR_MISSING_CONTENT_B64): content_b64 is required.",
    ),
    (
        "missing_write_content",
        cmd("w-1", "fs.write", path="a.txt"),
        codes.ERR_MISSING_WRITE_CONTENT,
        "w-1",
        "Invalid OPERATOR_CMD (ERR_MISSING_WRITE_CONTENT): fs.write requires content or"
        " content_b64.",
    ),
    (
        "unknown_language",
        cmd("l-1", "fs.listRegions", "language: json", path="a.json"),
        codes.ERR_UNKNOWN_LANGUAGE,
        "l-1",
        "Invalid OPERATOR_CMD (ERR_UNKNOWN_LANGUAGE): unknown language 'json'; use"
        " operator.getCommentStyle to list languages, or set comment_line_prefix or"
        " comment_block_start/comment_block_end.",
    ),
    (
        "invalid_comment_style",
        cmd("s-1", "fs.listRegions", "comment_line_prefix: #", "comment_block_end: */", path="a"),
        codes.ERR_INVALID_COMMENT_STYLE,
        "s-1",
        "Invalid OPERATOR_CMD (ERR_INVALID_COMMENT_STYLE): Use either comment_line_prefix or"
        " comment_block_start/comment_block_end.",
    ),
    (
        "missing_anchor",
        cmd("ir-1", "fs.insertRegion", "marker_id: r2", f"content_b64: {b64('x')}", path="a.py"),
        codes.ERR_MISSING_ANCHOR,
        "ir-1",
        "Invalid OPERATOR_CMD (ERR_MISSING_ANCHOR): anchor is required.",
    ),
    (
        "invalid_anchor_occurrence",
        cmd(
            "ir-2",
            "fs.insertRegion",
            "marker_id: r2",
            "anchor: x",
            "occurrence: 0",
            f"content_b64: {b64('x')}",
            path="a.py",
        ),
        codes.ERR_INVALID_ANCHOR_OCCURRENCE,
        "ir-2",
        "Invalid OPERATOR_CMD (ERR_INVALID_ANCHOR_OCCURRENCE): occurrence must be a whole number"
        " >= 1 (got '0').",
    ),
    (
        "invalid_insert_position",
        cmd(
            "ir-3",
            "fs.insertRegion",
            "marker_id: r2",
            "anchor: x",
            "position: After",
            f"content_b64: {b64('x')}",
            path="a.py",
        ),
        codes.ERR_INVALID_INSERT_POSITION,
        "ir-3",
        "Invalid OPERATOR_CMD (ERR_INVALID_INSERT_POSITION): position must be 'before' or 'after'.",
    ),
    (
        "duplicate_key",
        cmd("dk-1", "fs.read", "path: b.txt", path="a.txt"),
        codes.ERR_DUPLICATE_KEY,
        "dk-1",
        "Invalid OPERATOR_CMD (ERR_DUPLICATE_KEY): key 'path' appears twice with different values.",
    ),
]


@pytest.mark.parametrize(
    ("reply", "code", "cid", "summary"), [t[1:] for t in TABLE], ids=[t[0] for t in TABLE]
)
def test_error_table(reply: str, code: str, cid: str | None, summary: str) -> None:
    errors = [i for i in scan(reply).items if isinstance(i, ScanError)]
    assert len(errors) == 1, errors
    err = errors[0]
    assert (err.code, err.id, err.summary) == (code, cid, summary)
    assert err.summary.isascii()
    assert err.line >= 1


def test_nested_block_reports_outer_and_runs_inner() -> None:
    reply = "OPERATOR_CMD\nversion: 1\nid: outer\naction: fs.list\n" + cmd(
        "inner", "fs.read", path="a.txt"
    )
    items = scan(reply).items
    assert isinstance(items[0], ScanError)
    assert items[0].code == codes.ERR_NESTED_BLOCK
    assert items[0].id == "outer"
    assert items[0].summary == (
        "Invalid OPERATOR_CMD (ERR_NESTED_BLOCK): OPERATOR_CMD started before END_OPERATOR_CMD."
    )
    assert isinstance(items[1], Command)
    assert (items[1].id, items[1].line) == ("inner", 5)
    assert len(items) == 2


def test_every_scan_code_is_covered_by_the_table() -> None:
    scan_codes = {t[2] for t in TABLE} | {codes.ERR_NESTED_BLOCK}
    assert set(codes.SPEC_CODES) - RUNTIME_CODES <= scan_codes
    assert codes.ERR_DUPLICATE_KEY in scan_codes


def test_wrapped_base64_names_the_field() -> None:
    (err,) = scan(cmd("w-2", "fs.write", "content_b64: QUJD", "REVG", path="a.txt")).items
    assert isinstance(err, ScanError)
    assert err.summary == (
        "Invalid OPERATOR_CMD (ERR_NON_KEY_VALUE_LINE): line 'REVG' is not key: value"
        " (content_b64 must be one line, without breaks)."
    )


def test_ids_with_control_characters_are_refused() -> None:
    (err,) = scan(cmd("a\tb", "fs.read", path="a.txt")).items
    assert isinstance(err, ScanError)
    assert (err.code, err.id) == (codes.ERR_MISSING_REQUIRED_FIELDS, None)
    assert err.message == "id must be printable ASCII text."


def test_unknown_language_for_get_comment_style() -> None:
    (err,) = scan(cmd("g-1", "operator.getCommentStyle", "language: cobol")).items
    assert isinstance(err, ScanError)
    assert err.summary == (
        "Invalid OPERATOR_CMD (ERR_UNKNOWN_LANGUAGE): unknown language 'cobol'; omit language to"
        " list every style."
    )


@pytest.mark.parametrize(
    ("extra", "action", "shown"),
    [
        ((), "fs.\x07bell", "Unknown action: fs.?bell."),
        (("start: 1\x0b2",), "fs.readSlice", "(got '1?2')"),
        (("language: c\x00bol",), "fs.listRegions", "unknown language 'c?bol'"),
    ],
)
def test_control_characters_never_reach_a_summary(
    extra: tuple[str, ...], action: str, shown: str
) -> None:
    (err,) = scan(cmd("cc", action, *extra, path="a.txt")).items
    assert isinstance(err, ScanError)
    assert shown in err.summary
    assert err.summary.isprintable()


def test_long_values_are_shortened_in_messages() -> None:
    (err,) = scan(cmd("ln", "fs." + "x" * 500, path="a.txt")).items
    assert isinstance(err, ScanError)
    assert err.message == f"Unknown action: fs.{'x' * 37}.... Use one of the spec's actions."
