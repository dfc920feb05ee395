"""unified_diff: standard output, correct hunks, and no quadratic blow-up on big files."""

from __future__ import annotations

import difflib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from jupyter_operator.workspace import apply_patch, diff_stats, diff_with_stats, unified_diff
from jupyter_operator.workspace.diff import opcodes


def test_matches_difflib_on_a_simple_change() -> None:
    old = "".join(f"line {i}\n" for i in range(20))
    new = old.replace("line 10\n", "line ten\n")
    ours = unified_diff(old.encode(), new.encode(), "f.txt")
    ref = "".join(
        difflib.unified_diff(old.splitlines(True), new.splitlines(True), "a/f.txt", "b/f.txt")
    )
    assert ours == ref
    assert diff_stats(ours) == (1, 1)


def test_create_delete_and_no_newline_markers() -> None:
    assert unified_diff(None, b"x\ny", "n.txt") == (
        "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n\\ No newline at end of file\n"
    )
    assert unified_diff(b"x\n", None, "./n.txt").startswith(
        "--- a/n.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
    )
    assert unified_diff(b"same", b"same", "s") == ""
    assert unified_diff(None, b"", "e.txt") == "--- /dev/null\n+++ b/e.txt\n"
    assert unified_diff(b"\xff", b"x", "b.bin") == "Binary files a/b.bin and b/b.bin differ\n"


def test_line_ending_change_is_visible() -> None:
    diff = unified_diff(b"a\r\nb\r\n", b"a\nb\r\n", "f")
    assert diff_stats(diff) == (1, 1)


def test_stats_count_dash_lines_inside_hunks() -> None:
    diff = unified_diff(b"-- x\n", b"++ y\n", "q.sql")
    assert "\n--- x\n" in diff and "\n+++ y\n" in diff
    assert diff_stats(diff) == (1, 1)


def _stats_line_by_line(diff: str) -> tuple[int, int]:
    """What a reader of the diff counts: '+' and '-' lines from the first hunk header on."""
    lines = diff.split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith("@@")]
    body = lines[starts[0] + 1 :] if starts else []
    return sum(x.startswith("+") for x in body), sum(x.startswith("-") for x in body)


@settings(max_examples=300, deadline=None)
@given(
    hs.lists(hs.sampled_from(["a", "-- b", "++ c", "@@ d", "+", "-", "", "\r"]), max_size=30),
    hs.lists(hs.sampled_from(["a", "-- b", "++ c", "@@ d", "+", "-", "", "x\r"]), max_size=30),
    hs.booleans(),
    hs.booleans(),
)
def test_counts_match_a_line_by_line_count(a: list[str], b: list[str], new_a: bool, gone_b: bool):
    old = None if new_a else "\n".join(a).encode()
    new = None if gone_b else "\n".join(b).encode()
    diff, added, removed = diff_with_stats(old, new, "f")
    assert diff == unified_diff(old, new, "f")
    assert diff_stats(diff) == _stats_line_by_line(diff) == (added, removed)
    assert diff_stats(diff.split("\n", 2)[-1]) == _stats_line_by_line(diff.split("\n", 2)[-1])


@settings(max_examples=300, deadline=None)
@given(
    hs.lists(hs.sampled_from(["a", "b", "c", "d", "e"]), max_size=40),
    hs.lists(hs.sampled_from(["a", "b", "c", "d", "e"]), max_size=40),
)
def test_opcodes_rebuild_the_new_side(a: list[str], b: list[str]) -> None:
    rebuilt: list[str] = []
    last = 0
    for tag, i1, i2, j1, j2 in opcodes(a, b):
        assert i1 == last
        last = i2
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2]
            rebuilt += a[i1:i2]
        else:
            rebuilt += b[j1:j2]
    assert last == len(a) and rebuilt == b


@settings(max_examples=200, deadline=None)
@given(hs.lists(hs.sampled_from(["x", "y", "z", ""]), max_size=30), hs.data())
def test_diff_applies_back_and_stats_match(lines: list[str], data) -> None:
    new = list(lines)
    for _ in range(data.draw(hs.integers(0, 4))):
        if new and data.draw(hs.booleans()):
            del new[data.draw(hs.integers(0, len(new) - 1))]
        else:
            new.insert(data.draw(hs.integers(0, len(new))), data.draw(hs.sampled_from(["q", "x"])))
    old_text = "".join(s + "\n" for s in lines)
    new_text = "".join(s + "\n" for s in new)
    diff = unified_diff(old_text.encode(), new_text.encode(), "f")
    if old_text != new_text:
        assert apply_patch(old_text, diff, path="f") == new_text
    added, removed = diff_stats(diff)
    assert len(new) - len(lines) == added - removed


def test_repeated_lines_without_unique_anchors_still_diff_correctly() -> None:
    """No line is unique here: the big gap is shown as one replaced block (correct, not minimal)
    instead of going quadratic. Speed itself is measured in bench/preview.py, not here."""
    old = "x\n" * 3000 + "y\n" * 3000
    new = "y\n" * 3000 + "x\n" * 3000
    diff = unified_diff(old.encode(), new.encode(), "f")
    assert apply_patch(old, diff, path="f") == new
    added, removed = diff_stats(diff)
    assert added == removed > 0


@pytest.mark.parametrize("seed", range(12))
def test_anchored_path_on_big_inputs_with_repeats(seed: int) -> None:
    """Inputs big enough to take the unique-line anchoring path (not SequenceMatcher alone),
    with repeated lines, moved blocks, insertions and deletions."""
    rnd = random.Random(seed)
    vocab = [f"line {k}" for k in range(rnd.choice([50, 400, 5000]))]
    a = [rnd.choice(vocab) for _ in range(rnd.randint(600, 1500))]
    b = list(a)
    for _ in range(rnd.randint(1, 40)):
        op = rnd.random()
        if op < 0.3:
            del b[rnd.randrange(len(b))]
        elif op < 0.6:
            b.insert(rnd.randrange(len(b) + 1), rnd.choice([*vocab, "new"]))
        else:  # move a block of up to 50 lines elsewhere
            i = rnd.randrange(len(b))
            block = b[i : i + rnd.randint(1, 50)]
            del b[i : i + len(block)]
            pos = rnd.randrange(len(b) + 1)
            b[pos:pos] = block
    rebuilt: list[str] = []
    for tag, i1, i2, j1, j2 in opcodes(a, b):
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2]
        rebuilt += a[i1:i2] if tag == "equal" else b[j1:j2]
    assert rebuilt == b
    old = "".join(x + "\n" for x in a)
    new = "".join(x + "\n" for x in b)
    if old != new:
        assert apply_patch(old, unified_diff(old.encode(), new.encode(), "f"), path="f") == new


@pytest.mark.timeout(60)  # the failure this guards against is quadratic work (minutes)
def test_code_like_big_file_with_repeated_lines_stays_linear() -> None:
    """Blank lines and braces repeat: many gaps between anchors begin with equal lines, and
    trimming them must not walk the line lists from their start each time."""
    rnd = random.Random(5)
    pool = ["", "}", "    return x;", "else {", *(f"    call_{k}(a);" for k in range(5000))]
    a = [rnd.choice(pool) if rnd.random() < 0.3 else f"line {i}" for i in range(400_000)]
    b = list(a)
    for i in rnd.sample(range(len(b)), 4000):
        b[i] += " changed"
    old = "".join(x + "\n" for x in a).encode()
    new = "".join(x + "\n" for x in b).encode()
    added, removed = diff_stats(unified_diff(old, new, "f"))
    assert added == removed >= 4000
