"""The strict unified-diff engine: the exec_patch conformance behaviour and its refusals."""

# ruff: noqa: E501  (case tables read best one case a line)

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from jupyter_operator.protocol import OperatorError, codes
from jupyter_operator.workspace import apply_patch, unified_diff

APPLIES = [
    ("standard with trailing newline", "a\nb\nc\n",
     "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", "a\nB\nc\n"),
    ("without trailing newline", "a\nb\nc\n",
     "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c", "a\nB\nc\n"),
    ("multi hunk", "".join(f"line{i}\n" for i in range(1, 11)),
     "@@ -1,3 +1,3 @@\n line1\n-line2\n+LINE2\n line3\n@@ -8,3 +8,4 @@\n line8\n line9\n+inserted\n line10",
     "line1\nLINE2\nline3\nline4\nline5\nline6\nline7\nline8\nline9\ninserted\nline10\n"),
    ("adds final newline", "a\nb",
     "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b", "a\nb\n"),
    ("removes final newline", "a\nb\n",
     "@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n", "a\nb"),
    ("silent about a missing final newline keeps it missing", "a\nb",
     "@@ -1,2 +1,2 @@\n-a\n+A\n b\n", "A\nb"),
    ("pure insertion after line 2", "a\nb\nc\n", "@@ -2,0 +3 @@\n+X", "a\nb\nX\nc\n"),
    ("insertion at top", "a\n", "@@ -0,0 +1 @@\n+X\n", "X\na\n"),
    ("insertion into empty file", "", "@@ -0,0 +1,2 @@\n+x\n+y\n", "x\ny\n"),
    ("crlf preserved", "a\r\nb\r\nc\r\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c", "a\r\nB\r\nc\r\n"),
    ("crlf patch text", "a\nb\n", "@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+B\r\n", "a\nB\n"),
    ("lines starting with dashes", "a\n-- x\nc\n",
     "@@ -1,3 +1,3 @@\n a\n--- x\n+++ y\n c", "a\n++ y\nc\n"),
    ("blank body line is empty context", "a\n\nb\n", "@@ -1,3 +1,3 @@\n a\n\n-b\n+B\n", "a\n\nB\n"),
    ("git preamble", "a\n", "diff --git a/f.txt b/f.txt\nindex 1234..5678 100644\n--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n", "b\n"),
    ("plain header names", "a\n", "--- f.txt\t2024-01-01\n+++ f.txt\n@@ -1 +1 @@\n-a\n+b\n", "b\n"),
    ("appending after a last line without newline", "a\nb", "@@ -2,0 +3 @@\n+c\n", "a\nb\nc"),
    ("delete everything", "a\nb\n", "@@ -1,2 +0,0 @@\n-a\n-b\n", ""),
]  # fmt: skip


@pytest.mark.parametrize(
    "before,patch,after", [c[1:] for c in APPLIES], ids=[c[0] for c in APPLIES]
)
def test_applies(before: str, patch: str, after: str) -> None:
    assert apply_patch(before, patch, path="f.txt") == after


REFUSED = [
    ("no hunks", "a\n", "please change b to B", codes.ERR_INVALID_PATCH, "hunk"),
    ("wrong target", "a\n", "--- a/other.txt\n+++ b/other.txt\n@@ -1 +1 @@\n-a\n+b\n", codes.ERR_INVALID_PATCH, "f.txt"),
    ("missing +++", "a\n", "--- a/f.txt\n@@ -1 +1 @@\n-a\n+b\n", codes.ERR_INVALID_PATCH, "+++"),
    ("several files", "a\n", "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n--- a/g.txt\n+++ b/g.txt\n@@ -1 +1 @@\n-x\n+y\n", codes.ERR_INVALID_PATCH, "several files"),
    ("counts too big", "a\nb\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n", codes.ERR_INVALID_PATCH, "ends early"),
    ("counts too small", "a\nb\nc\n", "@@ -1,1 +1,1 @@\n a\n-b\n+B\n", codes.ERR_INVALID_PATCH, "unexpected line"),
    ("bad header", "a\n", "@@ -x +1 @@\n-a\n+b\n", codes.ERR_INVALID_PATCH, "malformed"),
    ("garbage line", "a\n", "@@ -1 +1 @@\n*a\n", codes.ERR_INVALID_PATCH, "hunk 1"),
    ("mode change", "a\n", "diff --git a/f.txt b/f.txt\nold mode 100644\nnew mode 100755\n", codes.ERR_INVALID_PATCH, "mode"),
    ("out of order", "a\nb\nc\nd\n", "@@ -3 +3 @@\n-c\n+C\n@@ -1 +1 @@\n-a\n+A\n", codes.ERR_INVALID_PATCH, "order"),
    ("context mismatch", "a\nb\nc\n", "@@ -1,3 +1,3 @@\n a\n-x\n+B\n c\n", codes.ERR_PATCH_DOES_NOT_APPLY, "hunk 1: line 2"),
    ("wrong position, no offsets", "a\nb\nc\n", "@@ -1 +1 @@\n-b\n+B\n", codes.ERR_PATCH_DOES_NOT_APPLY, "line 1"),
    ("past the end", "a\n", "@@ -3 +3 @@\n-c\n+C\n", codes.ERR_PATCH_DOES_NOT_APPLY, "the file has 1 lines"),
    ("no-newline claim that is false", "a\nb\n", "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n", codes.ERR_PATCH_DOES_NOT_APPLY, "no newline"),
    ("whitespace differs", "a \n", "@@ -1 +1 @@\n-a\n+b\n", codes.ERR_PATCH_DOES_NOT_APPLY, "line 1"),
]  # fmt: skip


@pytest.mark.parametrize(
    "before,patch,code,hint", [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED]
)
def test_refused(before: str, patch: str, code: str, hint: str) -> None:
    with pytest.raises(OperatorError) as info:
        apply_patch(before, patch, path="f.txt")
    assert info.value.code == code
    assert hint in info.value.message


LINES = hs.lists(hs.sampled_from(["a", "b", "c", "", "d d", "é"]), max_size=25)


def _text(lines: list[str], eol: str, final: bool) -> str:
    text = eol.join(lines)
    return text + eol if final and lines else text


@settings(max_examples=300, deadline=None)
@given(LINES, LINES, hs.sampled_from(["\n", "\r\n"]), hs.booleans(), hs.booleans())
def test_our_own_diff_applies_back(old, new, eol, old_final, new_final) -> None:
    """unified_diff(old, new) fed to apply_patch(old) gives new, line endings included."""
    before, after = _text(old, eol, old_final), _text(new, eol, new_final)
    if before == "" and after == "":
        return
    if (not old or not new) and (old_final is False or new_final is False):
        return  # an empty text has no final-newline state to carry
    if eol == "\r\n" and "\n" not in before:
        return  # no line ending to learn from: added lines get "\n" (documented)
    diff = unified_diff(before.encode(), after.encode(), "f.txt")
    if before == after:
        assert diff == ""
        return
    assert apply_patch(before, diff, path="f.txt") == after
