"""OPERATOR_RESULT formatting, parsing and scan-error results."""

from __future__ import annotations

import base64
import json

import pytest

from jupyter_operator.protocol import (
    OperatorError,
    Result,
    ScanError,
    codes,
    error_result,
    format_result,
    format_results,
    parse_results,
    read_too_large,
    scan,
)


def test_format_result_exact_text() -> None:
    r = Result("list-001", True, "Listed 2 entries", "a.txt\n[DIR] sub")
    assert format_result(r) == (
        "OPERATOR_RESULT\n"
        "id: list-001\n"
        "ok: true\n"
        "summary: Listed 2 entries\n"
        f"details_b64: {base64.b64encode(b'a.txt' + bytes([10]) + b'[DIR] sub').decode()}\n"
        "END_OPERATOR_RESULT"
    )


def test_no_details_line_without_details_and_empty_details_kept() -> None:
    assert "details_b64" not in format_result(Result("w", True, "Wrote file"))
    text = format_result(Result("r", True, "Read file", ""))
    assert "\ndetails_b64: \n" in text
    assert parse_results(text) == [Result("r", True, "Read file", "")]


def test_results_joined_by_one_blank_line() -> None:
    rs = [Result("a", True, "x"), Result("b", False, "y")]
    text = format_results(rs)
    assert text == format_result(rs[0]) + "\n\n" + format_result(rs[1])
    assert format_results([]) == ""


@pytest.mark.parametrize(
    ("summary", "shown"),
    [
        ("line one\nline two", "line one?line two"),
        ("caf\u00e9 \u2705", "caf? ?"),
        ("tab\there\r", "tab?here?"),
        ("plain ASCII", "plain ASCII"),
    ],
)
def test_summary_is_one_ascii_line(summary: str, shown: str) -> None:
    r = Result("s", False, summary)
    assert r.summary == shown
    assert format_result(r).count("\n") == 4


def test_ids_with_line_breaks_are_refused() -> None:
    with pytest.raises(ValueError, match="line break"):
        Result("a\nb", True, "x")


def test_details_are_utf8_base64() -> None:
    text = format_result(Result("u", True, "Read file", "caf\u00e9\n"))
    line = next(x for x in text.split("\n") if x.startswith("details_b64: "))
    assert base64.b64decode(line.split(": ", 1)[1], validate=True).decode() == "caf\u00e9\n"


def test_parse_results_ignores_prose_and_accepts_crlf() -> None:
    text = "Here you go:\r\n" + format_results([Result("a", True, "x", "d")]).replace("\n", "\r\n")
    assert parse_results(text + "\r\nthanks") == [Result("a", True, "x", "d")]


@pytest.mark.parametrize(
    "bad",
    [
        "OPERATOR_RESULT\nid: a\nok: yes\nsummary: x\nEND_OPERATOR_RESULT",
        "OPERATOR_RESULT\nid: a\nsummary: x\nEND_OPERATOR_RESULT",
        "OPERATOR_RESULT\nid: a\nok: true\nsummary: x\ndetails_b64: ***\nEND_OPERATOR_RESULT",
        "OPERATOR_RESULT\nid: a\nok: true\nsummary: x\nextra: 1\nEND_OPERATOR_RESULT",
        "OPERATOR_RESULT\nid: a\nok: true\nsummary: x",
    ],
)
def test_parse_results_rejects_malformed_blocks(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_results(bad)


def test_error_result_uses_block_id_and_json_details() -> None:
    (err,) = scan("OPERATOR_CMD\nversion: 1\nid: e-1\naction: fs.list\nEND_OPERATOR_CMD\n").items
    assert isinstance(err, ScanError)
    r = error_result(err, 1)
    assert (r.id, r.ok) == ("e-1", False)
    assert (
        r.summary == "Invalid OPERATOR_CMD (ERR_ACTION_REQUIRES_PATH): fs.* actions require path."
    )
    assert r.details is not None
    assert json.loads(r.details) == {
        "code": codes.ERR_ACTION_REQUIRES_PATH,
        "message": "fs.* actions require path.",
        "related_id": "e-1",
        "line": 1,
    }


def test_error_result_without_id_gets_a_generated_one() -> None:
    (err,) = scan("x\nOPERATOR_CMD please\n").items
    assert isinstance(err, ScanError)
    r = error_result(err, 3)
    assert r.id == "operator-error-3"
    assert r.details is not None
    details = json.loads(r.details)
    assert (details["related_id"], details["line"]) == (None, 2)


# -- one error vocabulary ---------------------------------------------------------------------


@pytest.mark.parametrize(("code", "prefix"), [
    (codes.ERR_NOT_FOUND, "Invalid OPERATOR_CMD"),
    (codes.ERR_REJECTED, "Rejected"),
    (codes.ERR_POLICY_DENIED, "Denied"),
    (codes.ERR_STALE_PREVIEW, "Not applied"),
])  # fmt: skip
def test_failures_are_built_in_one_place_and_carry_their_code(code: str, prefix: str) -> None:
    result = Result.failure("x1", code, "what to do.")
    assert (result.ok, result.code) == (False, code)
    assert result.summary == f"{prefix} ({code}): what to do."
    assert OperatorError(code, "what to do.").summary == result.summary
    assert Result.of_error("x1", OperatorError(code, "what to do.")) == result
    [back] = parse_results(format_results([result]))
    assert back == result


def test_a_successful_result_has_no_code() -> None:
    assert Result("r1", True, "Read file", "a").code is None
    with pytest.raises(ValueError, match="no error code"):
        Result("r1", True, "Read file", "a", codes.ERR_IO)


def test_the_large_read_keeps_the_spec_wording_and_its_code() -> None:
    result = read_too_large("r1", 300_000)
    assert result.summary == "File too large for fs.read (300000 bytes). Use fs.readSlice."
    assert result.code == codes.ERR_FILE_TOO_LARGE
    assert parse_results(format_results([result])) == [result]


def test_made_up_error_ids_skip_the_ids_taken_in_the_reply() -> None:
    err = ScanError(codes.ERR_MISSING_REQUIRED_FIELDS, "id is missing", None, 3)
    assert error_result(err, 3).id == "operator-error-3"
    taken = {"operator-error-3", "operator-error-3-2"}
    result = error_result(err, 3, taken=taken)
    assert (result.id, result.code) == ("operator-error-3-3", codes.ERR_MISSING_REQUIRED_FIELDS)
