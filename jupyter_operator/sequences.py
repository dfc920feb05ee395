"""Pure sequence helpers shared by the line diff (workspace/diff.py) and the cell diff
(notebooks/celldiff.py)."""

from __future__ import annotations

from bisect import bisect_left


def longest_increasing_run(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest run of ``pairs`` increasing in both coordinates (``pairs`` sorted by the
    first): the lines or cells that did not move. O(n log n); O(n) when nothing moved."""
    js = [j for _, j in pairs]
    if js == sorted(js):  # the usual case (nothing moved): every pair is kept
        return pairs
    tails: list[int] = []  # smallest second index ending a run of each length
    tail_at: list[int] = []
    prev = [-1] * len(pairs)
    for k, j in enumerate(js):
        pos = bisect_left(tails, j)
        if pos == len(tails):
            tails.append(j)
            tail_at.append(k)
        else:
            tails[pos], tail_at[pos] = j, k
        prev[k] = tail_at[pos - 1] if pos else -1
    run: list[tuple[int, int]] = []
    k = tail_at[-1] if tail_at else -1
    while k >= 0:
        run.append(pairs[k])
        k = prev[k]
    return run[::-1]
