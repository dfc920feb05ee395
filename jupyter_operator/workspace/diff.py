"""Unified diffs of exact file bytes, fast on big files.

Lines are compared with their endings, so a CRLF to LF change shows. The matching itself is in
:mod:`.line_match`.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence

from .line_match import match_blocks

CONTEXT = 3

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


def opcodes(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[Opcode]:
    """``difflib``-style opcodes turning line list ``a`` into ``b``."""
    ops: list[Opcode] = []
    i = j = 0
    for bi, bj, n in _merged(match_blocks(a, b)):
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


def diff_stats(diff: str) -> tuple[int, int]:
    """``(added, removed)`` line counts of a unified diff (headers are not counted)."""
    added = removed = 0
    in_hunk = False
    for line in diff.split("\n"):
        if line.startswith("@@"):
            in_hunk = True
        elif not in_hunk:
            continue
        elif line.startswith("+"):
            added += 1
        elif line.startswith("-"):
            removed += 1
    return added, removed
