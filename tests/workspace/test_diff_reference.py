"""unified_diff gives byte for byte the output of the reference line diff (diff_reference.py),
on small inputs (the SequenceMatcher path) and on big ones (unique-line anchoring, gaps)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from jupyter_operator.workspace import unified_diff
from jupyter_operator.workspace.diff import diff_stats, diff_with_stats

from . import diff_reference

ENDINGS = ["\n", "\n", "\n", "\r\n"]


def _text(lines: list[str], rnd: random.Random, last_eol: bool) -> bytes:
    text = "".join(line + rnd.choice(ENDINGS) for line in lines)
    if lines and not last_eol:
        text = text.rstrip("\n").removesuffix("\r")
    return text.encode()


def _edit(rnd: random.Random, lines: list[str], vocab: list[str], edits: int) -> list[str]:
    new = list(lines)
    for _ in range(edits):
        op = rnd.random()
        if op < 0.25 and new:
            del new[rnd.randrange(len(new))]
        elif op < 0.5:
            new.insert(rnd.randrange(len(new) + 1), rnd.choice([*vocab, "new", "é ü", ""]))
        elif op < 0.75 and new:
            new[rnd.randrange(len(new))] = rnd.choice(vocab) + " changed"
        elif new:  # move a block elsewhere
            i = rnd.randrange(len(new))
            block = new[i : i + rnd.randint(1, 60)]
            del new[i : i + len(block)]
            pos = rnd.randrange(len(new) + 1)
            new[pos:pos] = block
    return new


def _same(old: bytes | None, new: bytes | None) -> None:
    assert unified_diff(old, new, "d/f.txt") == diff_reference.unified_diff(old, new, "d/f.txt")


@settings(max_examples=400, deadline=None)
@given(
    hs.lists(hs.sampled_from(["a", "b", "c", "", " x", "a\r", "é"]), max_size=40),
    hs.lists(hs.sampled_from(["a", "b", "c", "", " x", "a\r", "é"]), max_size=40),
    hs.randoms(use_true_random=False),
    hs.booleans(),
    hs.booleans(),
)
def test_small_inputs_match_the_reference(a, b, rnd, a_eol, b_eol) -> None:
    _same(_text(a, rnd, a_eol), _text(b, rnd, b_eol))


@settings(max_examples=60, deadline=None)
@given(
    hs.integers(0, 2**32),
    hs.sampled_from([30, 400, 5000, 100_000]),
    hs.integers(500, 3000),
    hs.integers(0, 80),
    hs.booleans(),
)
def test_big_inputs_match_the_reference(seed, vocab_size, size, edits, last_eol) -> None:
    rnd = random.Random(seed)
    vocab = [f"line {k}" for k in range(vocab_size)]
    a = [rnd.choice(vocab) for _ in range(size)]
    b = _edit(rnd, a, vocab, edits)
    _same(_text(a, rnd, last_eol), _text(b, rnd, rnd.random() < 0.8))


@pytest.mark.parametrize("seed", range(4))
def test_unique_lines_with_scattered_changes_match_the_reference(seed: int) -> None:
    """The shape of bench/preview.py: every line unique, 1% of them changed, some moved."""
    rnd = random.Random(seed)
    a = [f"{i:06d} {rnd.random()}" for i in range(20_000)]
    b = _edit(rnd, a, a[:50], 200)
    _same(_text(a, rnd, True), _text(b, rnd, True))


@pytest.mark.parametrize("seed", range(3))
def test_code_like_lines_match_the_reference(seed: int) -> None:
    """Blank lines and braces repeat; some lines repeat in the old side only."""
    rnd = random.Random(seed)
    pool = ["", "}", "    return x;", "else {", *(f"    call_{k}(a);" for k in range(3000))]
    a = [rnd.choice(pool) if rnd.random() < 0.3 else f"line {i}" for i in range(20_000)]
    b = _edit(rnd, a, pool[:40], 300)
    _same(_text(a, rnd, True), _text(b, rnd, True))


def test_edge_cases_match_the_reference() -> None:
    cases: list[tuple[bytes | None, bytes | None]] = [
        (None, b""),
        (b"", None),
        (None, b"x\ny"),
        (b"x\n", None),
        (b"a\r", b"a\r\n"),
        (b"a\r\r\n", b"a\n"),
        (b"\xef\xbb\xbfbom\n", b"bom\n"),
        (b"\xff", b"x"),
        (b"a\0b", b"a"),
        (b"x\n" * 3000 + b"y\n" * 3000, b"y\n" * 3000 + b"x\n" * 3000),
        (b"same", b"same"),
    ]
    for old, new in cases:
        _same(old, new)


@settings(max_examples=300, deadline=None)
@given(
    hs.lists(hs.sampled_from(["a", "b", "", " x", "a\r", "é", "\\ y"]), max_size=60),
    hs.randoms(use_true_random=False),
    hs.booleans(),
    hs.sampled_from([None, b""]),
    hs.booleans(),
)
def test_a_file_made_or_emptied_matches_the_reference(lines, rnd, last_eol, empty, made) -> None:
    # One empty side takes a path of its own (no line matching): every line in one hunk.
    data = _text(lines, rnd, last_eol)
    old, new = (empty, data) if made else (data, empty)
    _same(old, new)
    counts = diff_with_stats(old, new, "d/f.txt")
    assert (counts.added, counts.removed) == diff_stats(counts.text)
