"""A frozen copy of the line diff as it was before its speed work (line lists of ``str``,
tuple pairs, one ``SequenceMatcher`` per small gap): the reference that the faster
``jupyter_operator.workspace.diff`` must match byte for byte."""

from __future__ import annotations

import difflib
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator


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


CONTEXT = 3
_SMALL_GAP = 250_000  # largest (old lines x new lines) product handed to SequenceMatcher

Opcode = tuple[str, int, int, int, int]


_NO_EOL = "\0"  # marks a last line without a newline (text with NUL is binary, never diffed)


def _lines(data: bytes | None) -> list[str] | None:
    """Lines split on ``\n`` (a ``\r`` stays part of its line, so CRLF vs LF shows); a last
    line without a newline carries ``_NO_EOL``. None when the bytes are not UTF-8 text."""
    if data is None:
        return []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if _NO_EOL in text:
        return None
    lines = text.split("\n")
    if lines[-1]:
        lines[-1] += _NO_EOL
    else:
        lines.pop()
    return lines


def _unique_pairs(
    a: list[str], b: list[str], alo: int, ahi: int, blo: int, bhi: int
) -> list[tuple[int, int]]:
    """``(i, j)`` for lines occurring exactly once in ``a[alo:ahi]`` and in ``b[blo:bhi]``."""
    side_a, side_b = a[alo:ahi], b[blo:bhi]
    pos_a = _unique_positions(side_a, alo)
    pos_b = _unique_positions(side_b, blo)
    js = list(map(pos_b.get, side_a))  # runs in C; None where the line is not unique in b
    numbered = zip(range(alo, ahi), js, strict=True)
    if len(pos_a) == len(side_a):  # every line of a is unique (the usual case for code)
        return [(i, j) for i, j in numbered if j is not None]
    return [(i, j) for i, j in numbered if j is not None and pos_a.get(a[i]) == i]


def _unique_positions(lines: list[str], offset: int) -> dict[str, int]:
    """Index of each line that occurs exactly once (built with C-level dict/Counter calls)."""
    pos = dict(zip(lines, range(offset, offset + len(lines)), strict=True))
    if len(pos) != len(lines):  # some lines repeat: drop them
        for line, n in Counter(lines).items():
            if n > 1:
                del pos[line]
    return pos


Task = tuple[str, int, int, int, int]


def _anchor_tasks(
    anchors: list[tuple[int, int]], alo: int, ahi: int, blo: int, bhi: int
) -> list[Task]:
    """Blocks for runs of consecutive anchors and regions for the non-empty gaps between."""
    tasks: list[Task] = []
    pa, pb = alo, blo
    run_i = run_j = run_n = 0
    for i, j in anchors:
        if run_n and i == run_i + run_n and j == run_j + run_n:
            run_n += 1
            continue
        if run_n:
            tasks.append(("b", run_i, run_j, run_n, 0))
            pa, pb = run_i + run_n, run_j + run_n
        if pa < i or pb < j:
            tasks.append(("r", pa, i, pb, j))
        run_i, run_j, run_n = i, j, 1
    if run_n:
        tasks.append(("b", run_i, run_j, run_n, 0))
        pa, pb = run_i + run_n, run_j + run_n
    if pa < ahi or pb < bhi:
        tasks.append(("r", pa, ahi, pb, bhi))
    return tasks


def _match_blocks(a: list[str], b: list[str]) -> list[tuple[int, int, int]]:
    """Matching blocks ``(i, j, n)`` with ``a[i:i+n] == b[j:j+n]``, in increasing order."""
    blocks: list[tuple[int, int, int]] = []
    # Tasks: ("r", alo, ahi, blo, bhi) a region to match, ("b", i, j, n, 0) a block to emit.
    # Pushed in reverse so they pop in file order, which keeps ``blocks`` sorted.
    stack: list[Task] = [("r", 0, len(a), 0, len(b))]
    while stack:
        kind, alo, ahi, blo, bhi = stack.pop()
        if kind == "b":
            blocks.append((alo, ahi, blo))
            continue
        pre = 0
        while alo + pre < ahi and blo + pre < bhi and a[alo + pre] == b[blo + pre]:
            pre += 1
        if pre:
            blocks.append((alo, blo, pre))
            alo += pre
            blo += pre
        suf = 0
        while ahi - suf > alo and bhi - suf > blo and a[ahi - 1 - suf] == b[bhi - 1 - suf]:
            suf += 1
        if suf:
            ahi -= suf
            bhi -= suf
            stack.append(("b", ahi, bhi, suf, 0))
        if alo == ahi or blo == bhi:
            continue
        if (ahi - alo) * (bhi - blo) <= _SMALL_GAP:
            sm = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
            blocks.extend((alo + i, blo + j, n) for i, j, n in sm.get_matching_blocks() if n)
            continue
        anchors = longest_increasing_run(_unique_pairs(a, b, alo, ahi, blo, bhi))
        if anchors:
            stack.extend(reversed(_anchor_tasks(anchors, alo, ahi, blo, bhi)))
        # else: a large gap without a unique line stays one replaced block
    return blocks


def _merged(blocks: list[tuple[int, int, int]]) -> Iterator[tuple[int, int, int]]:
    """Join blocks that touch (consecutive anchors)."""
    cur: tuple[int, int, int] | None = None
    for i, j, n in blocks:
        if cur and cur[0] + cur[2] == i and cur[1] + cur[2] == j:
            cur = (cur[0], cur[1], cur[2] + n)
            continue
        if cur:
            yield cur
        cur = (i, j, n)
    if cur:
        yield cur


def opcodes(a: list[str], b: list[str]) -> list[Opcode]:
    """``difflib``-style opcodes turning line list ``a`` into ``b``."""
    ops: list[Opcode] = []
    i = j = 0
    for bi, bj, n in _merged(_match_blocks(a, b)):
        if i < bi or j < bj:
            tag = "replace" if i < bi and j < bj else ("delete" if i < bi else "insert")
            ops.append((tag, i, bi, j, bj))
        ops.append(("equal", bi, bi + n, bj, bj + n))
        i, j = bi + n, bj + n
    if i < len(a) or j < len(b):
        tag = "replace" if i < len(a) and j < len(b) else ("delete" if i < len(a) else "insert")
        ops.append((tag, i, len(a), j, len(b)))
    return ops


def _groups(ops: list[Opcode], n: int = CONTEXT) -> Iterator[list[Opcode]]:
    """Hunks of opcodes with ``n`` lines of context (as ``SequenceMatcher.get_grouped_opcodes``)."""
    if not ops or (len(ops) == 1 and ops[0][0] == "equal"):
        return
    ops = list(ops)
    if ops[0][0] == "equal":
        tag, i1, i2, j1, j2 = ops[0]
        ops[0] = (tag, max(i1, i2 - n), i2, max(j1, j2 - n), j2)
    if ops[-1][0] == "equal":
        tag, i1, i2, j1, j2 = ops[-1]
        ops[-1] = (tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n))
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal" and i2 - i1 > 2 * n:
            group.append((tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)))
            yield group
            group = []
            i1, j1 = max(i1, i2 - n), max(j1, j2 - n)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group


def _range(start: int, length: int) -> str:
    beginning = start + 1
    if length == 1:
        return str(beginning)
    if not length:
        beginning -= 1
    return f"{beginning},{length}"


def _emit(out: list[str], prefix: str, line: str) -> None:
    if line.endswith(_NO_EOL):
        out.append(f"{prefix}{line[:-1]}\n\\ No newline at end of file\n")
    else:
        out.append(f"{prefix}{line[:-1] if line.endswith(chr(13)) else line}\n")


def unified_diff(old: bytes | None, new: bytes | None, path: str) -> str:
    """A standard unified diff (``--- a/path``, ``+++ b/path``, 3 lines of context).

    ``None`` means the file does not exist (``/dev/null`` header). Lines are shown without their
    terminator; a last line without one is followed by ``\\ No newline at end of file``. Bytes
    that are not UTF-8 text give a one-line ``Binary files ... differ``. Identical inputs give "".
    """
    name = path.replace("\\", "/")
    while name.startswith("./"):
        name = name[2:]
    head_a = "/dev/null" if old is None else f"a/{name}"
    head_b = "/dev/null" if new is None else f"b/{name}"
    if old == new:
        return ""
    a, b = _lines(old), _lines(new)
    if a is None or b is None:
        return f"Binary files {head_a} and {head_b} differ\n"
    out = [f"--- {head_a}\n", f"+++ {head_b}\n"]
    for group in _groups(opcodes(a, b)):
        i1, i2 = group[0][1], group[-1][2]
        j1, j2 = group[0][3], group[-1][4]
        out.append(f"@@ -{_range(i1, i2 - i1)} +{_range(j1, j2 - j1)} @@\n")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                for line in a[a1:a2]:
                    _emit(out, " ", line)
                continue
            for line in a[a1:a2]:
                _emit(out, "-", line)
            for line in b[b1:b2]:
                _emit(out, "+", line)
    return "".join(out)  # headers alone when an empty file is created or deleted
