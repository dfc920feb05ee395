"""A near miss names the closest line and what differs (one-turn fixes)."""

from __future__ import annotations

import pytest

from jupyter_operator.protocol import OperatorError, ReplaceFirst, codes
from jupyter_operator.workspace.apply_edits import apply_edits
from jupyter_operator.workspace.near import closest_line

TEXT = "import os\n\ndef  load(path):\n\treturn open(path).read()\nprint(\u201chello\u201d)\n"


@pytest.mark.parametrize(("needle", "line", "why"), [
    ("def load(path):", 3, "whitespace differs"),
    ("    return open(path).read()", 4, "whitespace differs"),
    ('print("hello")', 5, "quotes differ"),
    ("IMPORT OS", 1, "letter case differs"),
])  # fmt: skip
def test_the_closest_line_and_what_differs(needle: str, line: int, why: str) -> None:
    hint = closest_line(TEXT, needle)
    assert hint.startswith(f"; closest: line {line} ") and why in hint


def test_nothing_close_says_nothing() -> None:
    assert closest_line(TEXT, "completely unrelated words here") == ""


def test_a_find_that_misses_names_the_closest_line() -> None:
    with pytest.raises(OperatorError) as caught:
        apply_edits(TEXT, [ReplaceFirst(find="def load(path):", text="def load(p):")])
    assert caught.value.code == codes.ERR_ANCHOR_NOT_FOUND
    assert "closest: line 3 'def  load(path):' (whitespace differs)" in caught.value.message
