"""Cell-by-cell diffs of two versions of a notebook (pure: text in, a description out).

Cells are matched in four passes, each only among the cells still unmatched:

1. by cell id (nbformat 4.5 and later), when the id is unique on both sides;
2. by identical type and source, anywhere in the notebook (the k-th copy to the k-th copy);
3. between the cells kept in order (the longest run of pairs increasing on both sides), by
   source similarity, aligned in order (a gap of one old and one new cell of the same type is
   a change whatever its text: "this cell was rewritten");
4. what is still left, across the whole notebook, by a high similarity (moved and edited).

Pairs outside the longest in-order run are *moved*. A new cell whose text is part of an old
cell that its neighbour still holds is marked as split from it; an old cell whose text went into
a neighbour's new cell as merged into it. Outputs and metadata are summarised, never diffed;
a change of execution count alone is folded with the unchanged cells.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from itertools import pairwise
from typing import Any, Literal

from ..sequences import longest_increasing_run
from .cell_changes import Cell, load, metadata_summary, outputs_summary, similarity, source_diff

Status = Literal["added", "removed", "moved", "changed", "unchanged"]

#: Similarity two cells need to be taken for one edited cell, in place (pass 3) or moved (4).
IN_PLACE = 0.5
MOVED = 0.7
#: Most similarity comparisons made for one gap or for the last pass (they cost most).
_MAX_COMPARISONS = 10_000


@dataclass
class CellChange:
    """One entry of a notebook diff, in display order.

    Indexes are 0-based positions in the old and new notebook. An ``unchanged`` entry stands
    for ``count`` cells in a row (``renumbered`` of them only got a new execution count).
    ``source_diff`` is a unified diff of the cell's source (hunk headers count lines from the
    cell's first line); an added or removed cell's diff holds all its lines.
    """

    status: Status
    old_index: int | None
    new_index: int | None
    id: str | None = None
    cell_type: str = "code"
    old_cell_type: str | None = None  # set when the type changed
    old_id: str | None = None  # set when the id changed
    source_diff: str = ""
    added: int = 0
    removed: int = 0
    outputs: str | None = None  # "1 added, 2 removed"
    metadata: str | None = None  # "tags changed"
    execution_count: list[int | None] | None = None  # [old, new] when it changed
    split_from: int | None = None  # old index of the cell this one was split off
    merged_into: int | None = None  # new index of the cell this one was merged into
    count: int = 1
    renumbered: int = 0
    #: A code cell whose source changed and whose outputs did not: they show what the old
    #: source printed (the card and the model's result say so).
    stale_outputs: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class NotebookDiff:
    """What changed between two notebooks, cell by cell (see :func:`diff_notebooks`)."""

    old_format: str | None
    new_format: str | None
    metadata: str | None
    cells: list[CellChange] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        """How many cells were added, removed, moved, changed, and left unchanged."""
        counts = dict.fromkeys(("added", "removed", "moved", "changed", "unchanged"), 0)
        for entry in self.cells:
            counts[entry.status] += entry.count
        return counts

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: formats, notebook metadata summary, counts and the cell entries."""
        return {
            "old_format": self.old_format,
            "new_format": self.new_format,
            "metadata": self.metadata,
            "counts": self.counts,
            "cells": [entry.to_dict() for entry in self.cells],
        }


def diff_notebooks(old: str | bytes | None, new: str | bytes | None) -> NotebookDiff | None:
    """The cell diff from ``old`` to ``new`` (None means the file does not exist).

    Returns None when a side that exists is not a notebook (fronts then show the text diff),
    or when neither exists.
    """
    if old is None and new is None:
        return None
    before = load(old) if old is not None else None
    after = load(new) if new is not None else None
    if (old is not None and before is None) or (new is not None and after is None):
        return None
    a = before.cells if before else []
    b = after.cells if after else []
    pairs = _match(a, b)
    meta = metadata_summary(before.metadata, after.metadata) if before and after else None
    return NotebookDiff(
        before.version if before else None,
        after.version if after else None,
        meta,
        _entries(a, b, pairs),
    )


# -- matching ------------------------------------------------------------------------------


def _match(a: list[Cell], b: list[Cell]) -> dict[int, int]:
    """Old index -> new index for every matched cell."""
    pairs: dict[int, int] = {}
    taken: set[int] = set()
    ids_a = _unique_ids(a)
    ids_b = _unique_ids(b)
    for cell_id, i in ids_a.items():
        j = ids_b.get(cell_id)
        if j is not None:
            pairs[i] = j
            taken.add(j)
    copies: dict[tuple[str, str], list[int]] = defaultdict(list)
    for cell in b:
        if cell.index not in taken:
            copies[(cell.cell_type, cell.source)].append(cell.index)
    for bucket in copies.values():
        bucket.reverse()  # pop() hands them out in order
    for cell in a:
        if cell.index not in pairs:
            bucket = copies.get((cell.cell_type, cell.source))
            if bucket:
                pairs[cell.index] = bucket.pop()
                taken.add(pairs[cell.index])
    anchors = longest_increasing_run(sorted(pairs.items()))
    # Pass 3: the gaps between anchors, aligned in order.
    bounds = [(-1, -1), *anchors, (len(a), len(b))]
    for (i0, j0), (i1, j1) in pairwise(bounds):
        olds = [c for c in a[i0 + 1 : i1] if c.index not in pairs]
        news = [c for c in b[j0 + 1 : j1] if c.index not in taken]
        if olds and news:
            for i, j in _align(olds, news):
                pairs[i] = j
                taken.add(j)
    # Pass 4: moved and edited.
    olds = [c for c in a if c.index not in pairs]
    news = [c for c in b if c.index not in taken]
    if olds and news and len(olds) * len(news) <= _MAX_COMPARISONS:
        scored = sorted(
            ((s, o.index, n.index) for o in olds for n in news
             if o.cell_type == n.cell_type and (s := similarity(o, n)) >= MOVED),
            reverse=True,
        )  # fmt: skip
        for _s, i, j in scored:
            if i not in pairs and j not in taken:
                pairs[i] = j
                taken.add(j)
    return pairs


def _unique_ids(cells: list[Cell]) -> dict[str, int]:
    seen: dict[str, int] = {}
    repeated: set[str] = set()
    for cell in cells:
        if cell.id is None:
            continue
        if cell.id in seen:
            repeated.add(cell.id)
        seen[cell.id] = cell.index
    return {k: v for k, v in seen.items() if k not in repeated}


def _align(olds: list[Cell], news: list[Cell]) -> list[tuple[int, int]]:
    """Pairs of similar cells in order (most total similarity), then lone 1:1 leftovers."""
    m, n = len(olds), len(news)
    band = abs(m - n) + max(3, (_MAX_COMPARISONS // max(m, n)) // 2)
    scored: list[tuple[int, int, float]] = []
    for x in range(m):
        for y in range(max(0, x - band), min(n, x + band + 1)):
            if olds[x].cell_type == news[y].cell_type:
                s = similarity(olds[x], news[y])
                if s >= IN_PLACE:
                    scored.append((x, -y, s))
    scored.sort()  # by old position, then new position descending (see _heaviest_chain)
    found = _heaviest_chain([(x, -y, s) for x, y, s in scored], n)
    # Between found pairs, one old and one new cell of the same type: the cell was rewritten.
    pairs: list[tuple[int, int]] = []
    for (x0, y0), (x1, y1) in zip([(-1, -1), *found], [*found, (m, n)], strict=True):
        if x1 - x0 == 2 and y1 - y0 == 2 and olds[x0 + 1].cell_type == news[y0 + 1].cell_type:
            pairs.append((olds[x0 + 1].index, news[y0 + 1].index))
        if (x1, y1) != (m, n):
            pairs.append((olds[x1].index, news[y1].index))
    return pairs


def _heaviest_chain(scored: list[tuple[int, int, float]], n: int) -> list[tuple[int, int]]:
    """The pairs, increasing in both positions, of most total similarity (O(k log n)).

    ``scored`` is sorted by old position, and within one by new position descending, so two
    pairs of one row never chain. A Fenwick tree holds the best chain ending below each column.
    """
    tree: list[tuple[float, int]] = [(0.0, -1)] * (n + 1)
    best: list[float] = []
    prev: list[int] = []
    for k, (_x, y, s) in enumerate(scored):
        top, i = (0.0, -1), y  # best chain over columns < y (tree positions 1..y)
        while i > 0:
            if tree[i][0] > top[0]:
                top = tree[i]
            i -= i & -i
        best.append(top[0] + s)
        prev.append(top[1])
        i = y + 1
        while i <= n:
            if best[k] > tree[i][0]:
                tree[i] = (best[k], k)
            i += i & -i
    k = max(range(len(best)), key=best.__getitem__) if best else -1
    chain: list[tuple[int, int]] = []
    while k >= 0:
        chain.append((scored[k][0], scored[k][1]))
        k = prev[k]
    return chain[::-1]


# -- entries -------------------------------------------------------------------------------


def _compare(old: Cell, new: Cell, moved: bool) -> CellChange:
    diff, added, removed = source_diff(old.source, new.source)
    outputs = outputs_summary(old.outputs, new.outputs)
    metadata = metadata_summary(old.metadata, new.metadata)
    if old.attachments != new.attachments:
        metadata = ", ".join(filter(None, [metadata, "attachments changed"]))
    counts = [old.execution_count, new.execution_count]
    changed = bool(diff or outputs or metadata) or old.cell_type != new.cell_type
    changed = changed or old.id != new.id
    status: Status = "moved" if moved else "changed" if changed else "unchanged"
    stale = (len(new.outputs or []) if diff and new.cell_type == "code" and not outputs
             else 0)  # fmt: skip
    return CellChange(
        status, old.index, new.index, new.id, new.cell_type,
        old.cell_type if old.cell_type != new.cell_type else None,
        old.id if old.id != new.id else None,
        diff, added, removed, outputs, metadata,
        counts if counts[0] != counts[1] else None,
        renumbered=int(status == "unchanged" and counts[0] != counts[1]),
        stale_outputs=stale,
    )  # fmt: skip


def _lone(cell: Cell, status: Status) -> CellChange:
    old, new = (cell.source, None) if status == "removed" else (None, cell.source)
    diff, added, removed = source_diff(old, new)
    index = cell.index
    outputs = len(cell.outputs or [])
    return CellChange(
        status, index if status == "removed" else None, index if status == "added" else None,
        cell.id, cell.cell_type, source_diff=diff, added=added, removed=removed,
        outputs=f"{outputs} output{'s' * (outputs != 1)}" if outputs else None,
    )  # fmt: skip


def _contains(whole: str, part: str) -> bool:
    piece = part.strip()
    return bool(piece) and piece in whole


def _entries(a: list[Cell], b: list[Cell], pairs: dict[int, int]) -> list[CellChange]:
    anchors = dict(longest_increasing_run(sorted(pairs.items())))
    by_new = {j: i for i, j in pairs.items()}
    # Old index of the next anchor at or after each new position (where removals are shown).
    next_anchor = [len(a)] * (len(b) + 1)
    for j in range(len(b) - 1, -1, -1):
        i = by_new.get(j)
        next_anchor[j] = i if i is not None and anchors.get(i) == j else next_anchor[j + 1]
    out: list[CellChange] = []
    shown = 0  # old cells before this index have been considered for "removed"

    def flush(until: int) -> None:
        nonlocal shown
        for i in range(shown, until):
            if i not in pairs:
                entry = _lone(a[i], "removed")
                for k in (i - 1, i + 1):  # merged into the cell a neighbour became
                    became = b[pairs[k]].source if k in pairs else ""
                    if _contains(became, a[i].source) and not _contains(a[k].source, a[i].source):
                        entry.merged_into = pairs[k]
                        break
                out.append(entry)
        shown = max(shown, until)

    for j, cell in enumerate(b):
        flush(next_anchor[j])
        i = by_new.get(j)
        if i is None:
            entry = _lone(cell, "added")
            for k in (j - 1, j + 1):  # split off the old cell a neighbour still holds
                o = by_new.get(k)
                if (
                    o is not None
                    and _contains(a[o].source, cell.source)
                    and not _contains(b[k].source, cell.source)
                ):
                    entry.split_from = o
                    break
            out.append(entry)
            continue
        entry = _compare(a[i], cell, moved=anchors.get(i) != j)
        last = out[-1] if out else None
        if entry.status == "unchanged" and last is not None and last.status == "unchanged":
            last.count += 1
            last.renumbered += entry.renumbered
            continue
        if entry.status == "unchanged":
            entry.source_diff = ""
        out.append(entry)
    flush(len(a))
    return out
