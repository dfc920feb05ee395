"""Line matching for the unified diff: which lines of ``a`` stay, as lines of ``b``.

``difflib.SequenceMatcher`` alone has quadratic cases, so a region is first trimmed of its common
prefix and suffix; a small region then goes to ``SequenceMatcher``, a large one is anchored on
lines that occur exactly once on each side (patience diff: the longest increasing run of such
pairs), and the gaps between anchors are matched the same way. A large gap with no unique line
stays one replaced block (a correct, if not minimal, diff).

Big files spend their time here, so the passes over all lines are C-level (``dict``, ``map``,
``itertools``, list slice comparisons); Python-level loops run once per run of anchors, per gap
and per line that is no anchor, but not per matched line, except when lines moved or repeat
(the longest increasing run is worked out line by line then).
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Hashable, Sequence
from itertools import compress, count
from operator import ne

from ..sequences import longest_increasing_run

SMALL_GAP = 250_000  # largest (old lines x new lines) product handed to SequenceMatcher

Block = tuple[int, int, int]  # (i, j, n): a[i:i+n] == b[j:j+n]
Region = tuple[int, int, int, int]  # (alo, ahi, blo, bhi)
Anchoring = tuple[list[int | None], list[int]]  # (js, ints) of anchor_runs
_FIRST_STEP = 16  # lines compared in the first slice of a run; doubled while they all match


def common_prefix(a: Sequence[Hashable], b: Sequence[Hashable], alo: int, blo: int, n: int) -> int:
    """How many of the ``n`` lines from ``a[alo]`` and ``b[blo]`` are equal, from the start."""
    if not n or a[alo] != b[blo]:  # most regions differ at once
        return 0
    return _equal_run(a, alo, b, blo, n)


def common_suffix(a: Sequence[Hashable], b: Sequence[Hashable], ahi: int, bhi: int, n: int) -> int:
    """How many of the ``n`` lines before ``a[ahi]`` and ``b[bhi]`` are equal, from the end."""
    if not n or a[ahi - 1] != b[bhi - 1]:
        return 0
    done, step = 1, _FIRST_STEP
    while done < n:  # as _equal_run, backwards
        stop = min(done + step, n)
        chunk, want = a[ahi - stop : ahi - done], b[bhi - stop : bhi - done]
        if chunk != want:
            return done + next(compress(count(), map(ne, reversed(chunk), reversed(want))))
        done, step = stop, step * 2
    return n


def unique_positions(
    b: Sequence[Hashable], blo: int, bhi: int
) -> tuple[dict[Hashable, int], list[int]]:
    """Index of each line occurring exactly once in ``b[blo:bhi]``, and the list of all the
    indexes ``blo..bhi-1`` whose int objects are the dict's values (see :func:`anchor_runs`)."""
    side = b[blo:bhi] if blo or bhi != len(b) else b
    ints = list(range(blo, bhi))
    pos = dict(zip(side, ints, strict=True))
    if len(pos) != len(side):  # some lines repeat: drop them
        counts = Counter(side)
        for line in compress(counts, map((1).__lt__, counts.values())):
            del pos[line]
    return pos, ints


def anchor_runs(js: list[int | None], alo: int, ints: list[int]) -> list[Block]:
    """Runs ``(i, j, n)`` of consecutive anchors, given ``js[k]``: the index in ``b`` of the
    line ``a[alo + k]`` when that line is unique in b's region (else None), an object of
    ``ints`` (from :func:`unique_positions`).

    An anchor is also unique in a's region (its j occurs once in ``js``) and on the longest
    increasing run of them. When nothing moved, that is all of them, and the runs are found
    with a few C-level calls each (:func:`_increasing_runs`); only moved lines take the
    line-by-line longest increasing run.
    """
    runs = _increasing_runs(js, alo, ints)
    if runs is None:
        counts = Counter(js)
        counts.pop(None, None)
        if len(counts) != len(js) - js.count(None):  # lines repeated in a are no anchors
            drop = dict.fromkeys(compress(counts, map((1).__lt__, counts.values())))
            js = list(map(drop.get, js, js))  # None for a dropped j, else j itself
            runs = _increasing_runs(js, alo, ints)
    return runs if runs is not None else _longest_increasing_runs(js, alo)


def _increasing_runs(js: list[int | None], alo: int, ints: list[int]) -> list[Block] | None:
    """The runs of :func:`anchor_runs` when the ``js`` are strictly increasing, else None.

    A run ``j, j+1, ...`` is the stretch of ``js`` equal to a slice of ``ints``, which holds
    the very objects found in ``js``: list comparisons stop at the first item that is not the
    same object.
    """
    runs: list[Block] = []
    blo = ints[0] if ints else 0
    end_j = -1
    k, n = 0, len(js)
    while k < n:
        j = js[k]
        if j is None:
            k += 1
            continue
        if j <= end_j:  # a moved line, or one that repeats in a
            return None
        length = _equal_run(js, k, ints, j - blo, min(n - k, len(ints) - (j - blo)))
        runs.append((alo + k, j, length))
        k += length
        end_j = j + length - 1
    return runs


def _equal_run(x: Sequence[object], xk: int, y: Sequence[object], yk: int, limit: int) -> int:
    """How many of the ``limit`` items from ``x[xk]`` and ``y[yk]`` on are equal, given that
    the first are: compared in slices that double while they match, so a long run costs a few
    C-level comparisons and a short one does not copy much."""
    done, step = 1, _FIRST_STEP
    while done < limit:
        stop = min(done + step, limit)
        chunk, want = x[xk + done : xk + stop], y[yk + done : yk + stop]
        if chunk != want:
            return done + next(compress(count(), map(ne, chunk, want)))
        done, step = stop, step * 2
    return limit


def _longest_increasing_runs(js: list[int | None], alo: int) -> list[Block]:
    """:func:`anchor_runs` when lines moved (``js`` without repeats): the longest increasing
    run of the anchors, line by line, joined into runs."""
    pairs = [(alo + k, j) for k, j in enumerate(js) if j is not None]
    runs: list[Block] = []
    for i, j in longest_increasing_run(pairs):
        if runs and runs[-1][0] + runs[-1][2] == i and runs[-1][1] + runs[-1][2] == j:
            ri, rj, rn = runs[-1]
            runs[-1] = (ri, rj, rn + 1)
        else:
            runs.append((i, j, 1))
    return runs


def _tasks(runs: list[Block], region: Region) -> list[tuple[str, tuple[int, ...]]]:
    """Blocks for the runs and regions for the non-empty gaps around them, in file order."""
    alo, ahi, blo, bhi = region
    tasks: list[tuple[str, tuple[int, ...]]] = []
    for i, j, n in runs:
        if alo < i or blo < j:
            tasks.append(("r", (alo, i, blo, j)))
        tasks.append(("b", (i, j, n)))
        alo, blo = i + n, j + n
    if alo < ahi or blo < bhi:
        tasks.append(("r", (alo, ahi, blo, bhi)))
    return tasks


def trim(a: Sequence[Hashable], b: Sequence[Hashable], region: Region) -> tuple[int, int]:
    """Lines of the common prefix and of the common suffix of a region (not overlapping)."""
    alo, ahi, blo, bhi = region
    pre = common_prefix(a, b, alo, blo, min(ahi - alo, bhi - blo))
    return pre, common_suffix(a, b, ahi, bhi, min(ahi - alo, bhi - blo) - pre)


def _small_region(a: Sequence[Hashable], b: Sequence[Hashable], region: Region) -> list[Block]:
    """Matching blocks of a region small enough for ``SequenceMatcher``."""
    alo, ahi, blo, bhi = region
    side_a, side_b = a[alo:ahi], b[blo:bhi]
    if set(side_a).isdisjoint(side_b):  # a changed line or block: no SequenceMatcher needed
        return []
    sm = difflib.SequenceMatcher(None, side_a, side_b, autojunk=False)
    return [(alo + i, blo + j, n) for i, j, n in sm.get_matching_blocks() if n]


def match_blocks(
    a: Sequence[Hashable], b: Sequence[Hashable], first: Anchoring | None = None
) -> list[Block]:
    """Matching blocks ``(i, j, n)`` with ``a[i:i+n] == b[j:j+n]``, in increasing order (blocks
    that touch are not always joined).

    ``first``: the ``js`` and ``ints`` of :func:`anchor_runs` for the whole of ``a`` and ``b``
    once trimmed, when the caller worked them out already.
    """
    blocks: list[Block] = []
    # ("r", region) a region to match, ("b", block) a block to emit; pushed in reverse so they
    # pop in file order, which keeps ``blocks`` sorted.
    stack: list[tuple[str, tuple[int, ...]]] = [("r", (0, len(a), 0, len(b)))]
    while stack:
        kind, item = stack.pop()
        if kind == "b":
            blocks.append(item)  # type: ignore[arg-type]
            continue
        alo, ahi, blo, bhi = item
        pre, suf = trim(a, b, (alo, ahi, blo, bhi))
        if pre:
            blocks.append((alo, blo, pre))
            alo += pre
            blo += pre
        if suf:
            ahi -= suf
            bhi -= suf
            stack.append(("b", (ahi, bhi, suf)))
        if alo == ahi or blo == bhi:
            continue
        if (ahi - alo) * (bhi - blo) <= SMALL_GAP:
            blocks.extend(_small_region(a, b, (alo, ahi, blo, bhi)))
            continue
        if first is not None:
            (js, ints), first = first, None
        else:
            pos, ints = unique_positions(b, blo, bhi)
            js = list(map(pos.get, a[alo:ahi]))
            del pos
        runs = anchor_runs(js, alo, ints)
        del js
        if runs:  # else a large gap without a unique line stays one replaced block
            stack.extend(reversed(_tasks(runs, (alo, ahi, blo, bhi))))
    return blocks
