"""The scanner's line model, state machine, windows, ids and duplicate tracking."""

from __future__ import annotations

import pytest

from jupyter_operator.protocol import (
    Command,
    Result,
    ScanError,
    codes,
    format_results,
    parse_results,
    scan,
    unread_note,
)

from .helpers import block, cmd


def only(reply: str, **kw: object) -> Command | ScanError:
    items = scan(reply, **kw).items  # type: ignore[arg-type]
    assert len(items) == 1, items
    return items[0]


def test_prose_around_block_and_marker_line_number() -> None:
    item = only("Sure.\nI will list.\n" + cmd("l-1", "fs.list", path=".") + "Done.\n")
    assert isinstance(item, Command)
    assert (item.id, item.action, item.path, item.line) == ("l-1", "fs.list", ".", 3)
    assert item.fields == {"version": "1", "id": "l-1", "action": "fs.list", "path": "."}


def test_crlf_reply_scans_like_lf_and_values_keep_no_cr() -> None:
    item = only(cmd("c-1", "fs.read", path="a.txt").replace("\n", "\r\n"))
    assert isinstance(item, Command)
    assert item.path == "a.txt"
    assert all("\r" not in v for v in item.fields.values())


CRLF_REPLIES = [
    cmd("c-1", "fs.read", path="a.txt") + cmd("c-2", "fs.write", "content: x ", path="b.txt"),
    "OPERATOR_CMD\n" + "k: v\n" * 199 + "END_OPERATOR_CMD",  # a bench's hostile shape
    "OPERATOR_CMD x\nOPERATOR_CMD\nOPERATOR_CMD\nid: n\nEND_OPERATOR_CMD\n",
    cmd("c-3", "fs.list", "x: " + "a" * 49_940, path=".") + "END_OPERATOR_CMD here\n",
    cmd("c-4", "fs.read", path="a.txt") * 2 + cmd("c-4", "fs.read", path="b.txt"),
    "OPERATOR_CMD\nversion: 1\n\nid: e\nEND_OPERATOR_CMD\n" * 12,
]


@pytest.mark.parametrize("reply", CRLF_REPLIES)
def test_crlf_replies_give_what_their_lf_form_gives(reply: str) -> None:
    crlf = reply.replace("\n", "\r\n")
    assert scan(crlf) == scan(reply)
    # A lone CR in prose keeps the text as it is (the per-line path): the items are the same.
    assert scan(crlf + "\r\nprose\rwith a lone CR\r\n").items == scan(reply).items


def test_indented_markers_and_lines() -> None:
    reply = (
        "   OPERATOR_CMD   \n\tversion: 1\n  id: i-1\n action: fs.read\n path: a.txt  \n"
        "\t END_OPERATOR_CMD \t\n"
    )
    item = only(reply)
    assert isinstance(item, Command)
    assert item.path == "a.txt"


@pytest.mark.parametrize("sep", ["\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\u2029"])
def test_only_newline_splits_lines(sep: str) -> None:
    # str.splitlines() would split here; the spec's lines do not, so no block is found.
    assert scan(f"prose{sep}OPERATOR_CMD{sep}version: 1{sep}END_OPERATOR_CMD\n").items == ()


def test_vt_inside_a_value_is_ascii_and_kept() -> None:
    item = only(cmd("v-1", "fs.write", "content: a\x0bb", path="a.txt"))
    assert isinstance(item, Command)
    assert item.params.content == "a\x0bb"  # type: ignore[union-attr]


def test_fenced_block_is_a_command_but_fence_inside_is_not_key_value() -> None:
    item = only("```\n" + cmd("f-1", "fs.list", path=".") + "```\n")
    assert isinstance(item, Command)
    item = only(block("```", "version: 1", "id: f-2", "action: fs.list", "path: .", "```"))
    assert isinstance(item, ScanError)
    assert (item.code, item.id) == (codes.ERR_NON_KEY_VALUE_LINE, "f-2")


@pytest.mark.parametrize("prefix", ["> ", "- ", "* ", "1. "])
def test_quoted_or_bulleted_blocks_are_prose(prefix: str) -> None:
    reply = "".join(prefix + line + "\n" for line in cmd("q", "fs.list", path=".").splitlines())
    assert scan(reply).items == ()


def test_lowercase_markers_and_mentions_are_prose() -> None:
    reply = "use an OPERATOR_CMD block\noperator_cmd\nversion: 1\nend_operator_cmd\n"
    assert scan(reply).items == ()


def test_start_marker_with_colon_gives_one_error_and_no_block() -> None:
    reply = "OPERATOR_CMD:\n" + cmd("x", "fs.list", path=".").split("\n", 1)[1]
    item = only(reply)
    assert isinstance(item, ScanError)
    assert (item.code, item.id, item.line) == (codes.ERR_MARKER_NOT_ALONE, None, 1)


def test_marker_prefix_of_longer_word_is_not_alone() -> None:
    item = only("OPERATOR_CMDX\n")
    assert isinstance(item, ScanError)
    assert item.code == codes.ERR_MARKER_NOT_ALONE


def test_stray_end_and_result_blocks_are_ignored() -> None:
    reply = (
        "END_OPERATOR_CMD\nOPERATOR_RESULT\nid: old\nok: true\nsummary: x\nEND_OPERATOR_RESULT\n"
        + cmd("s-1", "fs.read", path="a.txt")
    )
    item = only(reply)
    assert isinstance(item, Command)
    assert item.line == 7


@pytest.mark.parametrize("ending", ["", "\n", "\r\n"])
def test_final_terminator_is_not_an_empty_line(ending: str) -> None:
    item = only("OPERATOR_CMD\nversion: 1\nid: e-1\naction: fs.list\npath: ." + ending)
    assert isinstance(item, ScanError)
    assert (item.code, item.id) == (codes.ERR_MISSING_END_MARKER, "e-1")


def test_a_real_empty_line_at_the_end_is_still_empty() -> None:
    item = only("OPERATOR_CMD\nversion: 1\nid: e-2\n\n")
    assert isinstance(item, ScanError)
    assert item.code == codes.ERR_EMPTY_LINE_IN_CMD


def test_block_after_discarded_block_is_found() -> None:
    reply = block("version: 1", "id: a", "", "action: fs.list", "path: .") + cmd(
        "b", "fs.read", path="a.txt"
    )
    items = scan(reply).items
    assert [type(i).__name__ for i in items] == ["ScanError", "Command"]
    assert items[1].id == "b"


def test_exactly_200_lines_and_50000_chars_are_accepted() -> None:
    ok = cmd("l", "fs.list", *[f"k{i}: v" for i in range(196)], path=".")
    assert isinstance(only(ok), Command)
    header = ["version: 1", "id: l", "action: fs.list", "path: ."]
    used = sum(len(line) + 1 for line in header)  # each line counts its length + 1
    filler = "x: " + "a" * (50_000 - used - 4)
    assert used + len(filler) + 1 == 50_000
    assert isinstance(only(cmd("l", "fs.list", filler, path=".")), Command)
    item = only(cmd("l", "fs.list", filler + "a", path="."))
    assert isinstance(item, ScanError)
    assert item.code == codes.ERR_BLOCK_TOO_LARGE


def test_key_value_grammar() -> None:
    item = only(block("version : 1", "id:k-1", "action :  fs.read", "path: http://x/a.txt "))
    assert isinstance(item, Command)
    assert item.fields["path"] == "http://x/a.txt"
    bad = only(block("version: 1", "id: k-2", "action: fs.list", "my path: ."))
    assert isinstance(bad, ScanError)
    assert bad.code == codes.ERR_NON_KEY_VALUE_LINE


def test_same_key_same_value_is_accepted() -> None:
    item = only(cmd("k-3", "fs.read", "path: a.txt", path="a.txt"))
    assert isinstance(item, Command)


@pytest.mark.parametrize("version", ["1.0", "01", "0x1", "+1", "true", "2", "1e0"])
def test_version_must_be_the_text_1(version: str) -> None:
    item = only(block(f"version: {version}", "id: v", "action: operator.getInterfaceSpec"))
    assert isinstance(item, ScanError)
    assert item.code == codes.ERR_UNSUPPORTED_VERSION


def test_values_are_not_coerced() -> None:
    item = only(cmd("t", "fs.write", "content: true", path="false"))
    assert isinstance(item, Command)
    assert (item.path, item.params.content) == ("false", "true")  # type: ignore[union-attr]


def test_check_order_path_before_version_and_reserved() -> None:
    item = only(block("version: 2", "id: o-1", "action: fs.list"))
    assert isinstance(item, ScanError)
    assert item.code == codes.ERR_ACTION_REQUIRES_PATH
    item = only(block("version: 2", "id: o-2", "action: operator.error"))
    assert isinstance(item, ScanError)
    assert item.code == codes.ERR_RESERVED_ACTION
    item = only(block("version: 2", "id: o-3", "action: foo.bar"))
    assert isinstance(item, ScanError)
    assert item.code == codes.ERR_UNSUPPORTED_VERSION


def test_non_ascii_outside_blocks_is_fine_and_inside_keeps_the_id() -> None:
    assert isinstance(only("Voil\u00e0 \u2705\n" + cmd("a", "fs.list", path=".")), Command)
    item = only(cmd("a-\u00e9", "fs.list", path="."))
    assert isinstance(item, ScanError)
    assert (item.code, item.id) == (codes.ERR_NON_ASCII_IN_CMD, None)


def test_error_ids_only_from_lines_read_so_far() -> None:
    item = only(block("version: 1", "", "id: late", "action: fs.list", "path: ."))
    assert isinstance(item, ScanError)
    assert (item.code, item.id) == (codes.ERR_EMPTY_LINE_IN_CMD, None)


def test_control_character_ids_are_not_echoed_in_errors() -> None:
    item = only(block("version: 1", "id: a\x07b", "action: fs.list"))
    assert isinstance(item, ScanError)
    assert (item.code, item.id) == (codes.ERR_MISSING_REQUIRED_FIELDS, None)
    item = only(block("version: 1", "id: a\x07b", "action: fs.list", "", "path: ."))
    assert isinstance(item, ScanError)
    assert (item.code, item.id) == (codes.ERR_EMPTY_LINE_IN_CMD, None)


def test_truncation_keeps_the_tail_and_cuts_blocks_in_half() -> None:
    early = cmd("early", "fs.write", "content: e", path="early.txt")
    late = cmd("late", "fs.write", "content: l", path="late.txt")
    reply = early + "filler line\n" * 20 + late
    window = len(late) + 12 * 3
    result = scan(reply, max_chars=window)
    assert result.truncated_chars == len(reply) - window
    assert [i.id for i in result.items] == ["late"]
    # A cut through the middle of a block: its END alone is a stray marker.
    result = scan(early, max_chars=len(early) - 5)
    assert result.items == ()
    assert scan(reply).truncated_chars == 0


def test_markers_in_the_cut_part_are_counted_and_told_to_the_model() -> None:
    early = [cmd(f"e{n}", "fs.write", "content: e", path=f"e{n}.txt") for n in range(3)]
    late = cmd("late", "fs.write", "content: l", path="late.txt")
    reply = "".join(early) + "filler line\n" * 20 + late
    window = len(late) + 12 * 3
    result = scan(reply, max_chars=window)
    assert [i.id for i in result.items] == ["late"]
    assert result.unread_markers == 3  # END_OPERATOR_CMD lines are not counted
    assert scan(reply).unread_markers == 0  # nothing cut
    # Only markers that start in the cut part count, one cut in half included.
    assert scan(reply, max_chars=len(reply) - 3).unread_markers == 1
    assert scan("x" * 10 + late, max_chars=len(late)).unread_markers == 0
    note = unread_note(result.truncated_chars, result.unread_markers)
    assert note.startswith("Note: only the last 200,000 characters of your reply were scanned")
    assert "hold 3 OPERATOR_CMD markers that were not read" in note and "\n" not in note
    assert unread_note(result.truncated_chars, 0) == ""
    # In the results: prose before the blocks, which readers of results skip.
    text = format_results([Result("late", True, "Wrote file")], note=note)
    assert text.startswith(note + "\n\nOPERATOR_RESULT\n")
    assert [r.id for r in parse_results(text)] == ["late"]


def test_identical_duplicates_are_skipped_key_order_irrelevant() -> None:
    first = cmd("d", "fs.read", path="a.txt")
    second = block("path: a.txt", "action: fs.read", "id: d", "version: 1")
    result = scan(first + second)
    assert [i.id for i in result.items] == ["d"]
    assert result.skipped_duplicates == ("d",)


def test_duplicates_are_tracked_across_calls_with_a_shared_dict() -> None:
    seen: dict[str, dict[str, str]] = {}
    assert isinstance(only(cmd("s", "fs.read", path="a.txt"), seen=seen), Command)
    again = scan(cmd("s", "fs.read", path="a.txt"), seen=seen)
    assert (again.items, again.skipped_duplicates) == ((), ("s",))
    item = only(cmd("s", "fs.read", path="b.txt"), seen=seen)
    assert isinstance(item, ScanError)
    assert item.code == codes.ERR_DUPLICATE_ID
    assert isinstance(only(cmd("s", "fs.read", path="b.txt")), Command)  # fresh dict


def test_invalid_blocks_do_not_claim_their_id() -> None:
    items = scan(cmd("x", "fs.read") + cmd("x", "fs.read", path="a.txt")).items
    assert [type(i).__name__ for i in items] == ["ScanError", "Command"]
    assert [i.id for i in items] == ["x", "x"]


def test_unknown_extra_keys_are_kept() -> None:
    item = only(cmd("u", "fs.read", "note: just reading", path="a.txt"))
    assert isinstance(item, Command)
    assert item.fields["note"] == "just reading"


def test_never_mutates_on_errors_and_results_are_frozen() -> None:
    result = scan(cmd("f", "fs.read", path="a.txt"))
    with pytest.raises((AttributeError, TypeError, ValueError)):
        result.items[0].id = "other"  # type: ignore[misc]
    with pytest.raises((AttributeError, TypeError)):
        result.truncated_chars = 5  # type: ignore[misc]
