"""Planned sizes: every transform refuses to grow a file past the limit, before it grows."""

from __future__ import annotations

import pytest

from jupyter_operator.protocol import OperatorError, ReplaceAll, codes, resolve_style
from jupyter_operator.workspace import (
    MAX_PLANNED_BYTES,
    apply_edits,
    apply_patch,
    check_size,
    insert_region,
    replace_region,
    utf8_len,
)


def refused(info: pytest.ExceptionInfo[OperatorError]) -> str:
    assert info.value.code == codes.ERR_RESULT_TOO_LARGE, info.value
    return info.value.message


def test_the_limit_is_16_mib_of_utf8() -> None:
    assert MAX_PLANNED_BYTES == 16 * 1024 * 1024
    assert utf8_len("aé€😀") == 1 + 2 + 3 + 4
    check_size(MAX_PLANNED_BYTES)
    with pytest.raises(OperatorError) as info:
        check_size(MAX_PLANNED_BYTES + 1)
    assert f"over the {MAX_PLANNED_BYTES}-byte limit" in refused(info)


def test_replace_all_counts_bytes_not_characters() -> None:
    # 10 occurrences growing by 1 char each: 4 bytes each in UTF-8.
    assert apply_edits("x" * 10, [ReplaceAll(find="x", text="😀")], limit=40) == "😀" * 10
    with pytest.raises(OperatorError) as info:
        apply_edits("x" * 10, [ReplaceAll(find="x", text="😀")], limit=39)
    assert refused(info).startswith("edit 0: ")


@pytest.mark.parametrize("op", [
    {"op": "insertAfter", "anchor": "a", "text": "0123456789"},
    {"op": "insertBefore", "anchor": "a", "text": "0123456789"},
    {"op": "replaceFirst", "find": "a", "text": "a0123456789"},
    {"op": "replaceRange", "start_line": 1, "end_line": 1, "text": "a\n0123456789"},
])  # fmt: skip
def test_every_edit_op_is_bounded(op: dict[str, object]) -> None:
    text = "a\n"
    ok = apply_edits(text, [op], limit=len(text) + 11)  # room for the text and a newline
    assert "0123456789" in ok
    with pytest.raises(OperatorError) as info:
        apply_edits(text, [op] * 3, limit=len(text) + 15)
    assert refused(info).startswith("edit 1: ")


def test_a_patch_is_refused_while_it_is_built() -> None:
    patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1,1 +1,2 @@\n-a\n+bb\n+cc\n"
    assert apply_patch("a\n", patch, path="f.txt", limit=6) == "bb\ncc\n"
    with pytest.raises(OperatorError) as info:
        apply_patch("a\n", patch, path="f.txt", limit=5)
    refused(info)


def test_regions_are_bounded() -> None:
    style = resolve_style(None, "f.py")
    text = "anchor\n"
    grown = insert_region(text, style, "r1", "anchor", "x" * 100)
    with pytest.raises(OperatorError) as info:
        insert_region(text, style, "r1", "anchor", "x" * 100, limit=len(grown) - 1)
    refused(info)
    assert insert_region(text, style, "r1", "anchor", "x" * 100, limit=len(grown)) == grown
    with pytest.raises(OperatorError) as info:
        replace_region(grown, style, "r1", "y" * 200, limit=len(grown) + 99)
    refused(info)
    assert len(replace_region(grown, style, "r1", "y" * 200, limit=len(grown) + 100)) == len(
        grown
    ) + 100
