"""Regions: the exec_*Region conformance behaviour, newline handling and refusals."""

from __future__ import annotations

import pytest

from jupyter_operator.protocol import CommentStyle, OperatorError, codes
from jupyter_operator.workspace import (
    delete_region,
    insert_region,
    list_regions,
    read_region,
    replace_region,
)

PY = CommentStyle(language="py", type="line", line_prefix="#")
HTML = CommentStyle(language="html", type="block", block_start="<!--", block_end="-->")
SRC = "import os\n# OPERATOR_BEGIN r1\nx = 1\ny = 2\n# OPERATOR_END r1\nprint(x)\n"


def test_list_regions() -> None:
    regions = list_regions(SRC, PY)
    assert [r.to_dict() for r in regions] == [
        {"marker_id": "r1", "begin_line": 2, "end_line": 5, "content_start_line": 3,
         "content_end_line": 4, "content_lines": 2}
    ]  # fmt: skip
    empty = list_regions("# OPERATOR_BEGIN e\n# OPERATOR_END e\n", PY)[0]
    assert (empty.content_start_line, empty.content_end_line, empty.content_lines) == (2, 1, 0)


def test_read_region_marker_spacing_tolerated() -> None:
    text = "  #OPERATOR_BEGIN   r1  \nv = 1\n# OPERATOR_END r1\n"
    assert read_region(text, PY, "r1") == "v = 1\n"
    assert read_region(SRC, PY, "r1") == "x = 1\ny = 2\n"


def test_block_style_regions() -> None:
    text = "<p>\n<!-- OPERATOR_BEGIN h -->\n<b>old</b>\n<!--OPERATOR_END h-->\n</p>\n"
    assert read_region(text, HTML, "h") == "<b>old</b>\n"
    out = replace_region(text, HTML, "h", "<i>new</i>\n")
    assert out == "<p>\n<!-- OPERATOR_BEGIN h -->\n<i>new</i>\n<!--OPERATOR_END h-->\n</p>\n"
    out = insert_region("<p>\n</p>\n", HTML, "n", "<p>", "x")
    assert out == "<p>\n<!-- OPERATOR_BEGIN n -->\nx\n<!-- OPERATOR_END n -->\n</p>\n"


def test_replace_preserves_crlf_and_adds_no_blank_line() -> None:
    text = "# OPERATOR_BEGIN r1\r\nold\r\n# OPERATOR_END r1\r\n"
    assert replace_region(text, PY, "r1", "a\nb") == (
        "# OPERATOR_BEGIN r1\r\na\r\nb\r\n# OPERATOR_END r1\r\n"
    )
    assert replace_region(text, PY, "r1", "a\nb\n") == (
        "# OPERATOR_BEGIN r1\r\na\r\nb\r\n# OPERATOR_END r1\r\n"
    )
    assert replace_region(text, PY, "r1", "") == "# OPERATOR_BEGIN r1\r\n# OPERATOR_END r1\r\n"


def test_replace_keeps_other_lines_and_mixed_endings() -> None:
    text = "keep\r\n# OPERATOR_BEGIN r\nold\n# OPERATOR_END r\nlast"
    assert replace_region(text, PY, "r", "new\n") == (
        "keep\r\n# OPERATOR_BEGIN r\nnew\n# OPERATOR_END r\nlast"
    )


def test_delete_region_keeps_markers() -> None:
    assert delete_region(SRC, PY, "r1") == (
        "import os\n# OPERATOR_BEGIN r1\n# OPERATOR_END r1\nprint(x)\n"
    )


def test_insert_region_before_and_after() -> None:
    assert insert_region(SRC, PY, "r2", "print(x)", "pass", "before") == (
        "import os\n# OPERATOR_BEGIN r1\nx = 1\ny = 2\n# OPERATOR_END r1\n"
        "# OPERATOR_BEGIN r2\npass\n# OPERATOR_END r2\nprint(x)\n"
    )
    assert insert_region("x x\ny\nx\n", PY, "q", "x", "Q = 1", "after", 2) == (
        "x x\ny\nx\n# OPERATOR_BEGIN q\nQ = 1\n# OPERATOR_END q\n"
    )


def test_insert_after_last_line_without_newline_keeps_it_missing() -> None:
    assert insert_region("a\nend", PY, "z", "end", "z\n") == (
        "a\nend\n# OPERATOR_BEGIN z\nz\n# OPERATOR_END z"
    )


@pytest.mark.parametrize(
    "call,code",
    [
        (lambda: read_region(SRC, PY, "nope"), codes.ERR_REGION_MARKER_NOT_FOUND),
        (lambda: read_region(SRC + SRC, PY, "r1"), codes.ERR_REGION_MARKER_NOT_UNIQUE),
        (lambda: read_region("# OPERATOR_END r1\nv\n# OPERATOR_BEGIN r1\n", PY, "r1"),
         codes.ERR_REGION_MARKER_ORDER),
        (lambda: read_region("# OPERATOR_BEGIN r1\nv\n", PY, "r1"),
         codes.ERR_REGION_MARKER_NOT_FOUND),
        (lambda: list_regions("# OPERATOR_BEGIN open1\nv\n", PY), codes.ERR_REGION_MARKER_MISMATCH),
        (lambda: list_regions("# OPERATOR_END e\n", PY), codes.ERR_REGION_MARKER_ORDER),
        (lambda: list_regions(SRC + SRC, PY), codes.ERR_REGION_MARKER_NOT_UNIQUE),
        (lambda: list_regions("# OPERATOR_BEGIN a\n# OPERATOR_BEGIN b\n# OPERATOR_END b\n"
                              "# OPERATOR_END a\n", PY), codes.ERR_REGION_MARKER_MISMATCH),
        (lambda: list_regions("# OPERATOR_BEGIN a\n# OPERATOR_END b\n", PY),
         codes.ERR_REGION_MARKER_MISMATCH),
        (lambda: insert_region(SRC, PY, "r1", "print", "pass"),
         codes.ERR_REGION_MARKER_ALREADY_EXISTS),
        (lambda: insert_region(SRC, PY, "r7", "no such text", "pass"), codes.ERR_ANCHOR_NOT_FOUND),
        (lambda: insert_region(SRC, PY, "r7", "x", "pass", "after", 9), codes.ERR_ANCHOR_NOT_FOUND),
    ],
)  # fmt: skip
def test_region_errors(call, code: str) -> None:
    with pytest.raises(OperatorError) as info:
        call()
    assert info.value.code == code


def test_marker_text_after_id_does_not_match() -> None:
    assert list_regions("# OPERATOR_BEGIN r1 trailing words\n", PY) == []


NESTED = ("# OPERATOR_BEGIN outer\na = 1\n# OPERATOR_BEGIN inner\nb = 2\n# OPERATOR_END inner\n"
          "c = 3\n# OPERATOR_END outer\n")  # fmt: skip


@pytest.mark.parametrize("call", [
    lambda: read_region(NESTED, PY, "outer"),
    lambda: read_region(NESTED, PY, "inner"),
    lambda: replace_region(NESTED, PY, "outer", "x = 0\n"),
    lambda: replace_region(NESTED, PY, "inner", "x = 0\n"),
    lambda: delete_region(NESTED, PY, "outer"),
    lambda: list_regions(NESTED, PY),
    lambda: insert_region(NESTED, PY, "new", "b = 2", "y\n"),
    lambda: replace_region(SRC, PY, "r1", "# OPERATOR_BEGIN sneaky\nz\n"),
    lambda: insert_region(SRC, PY, "new", "import os", "# OPERATOR_END r1\n"),
])  # fmt: skip
def test_nested_regions_are_refused_by_every_action(call) -> None:  # type: ignore[no-untyped-def]
    """fs.listRegions refused a nested file, but readRegion and replaceRegion took it (and
    replacing the outer region deleted the inner BEGIN line): every action refuses now."""
    with pytest.raises(OperatorError) as err:
        call()
    assert err.value.code == codes.ERR_REGION_MARKER_MISMATCH
