"""Unified diffs of exact file bytes, fast on big files.

Lines are the file's bytes cut after each ``\\n`` (``io.BytesIO`` iteration: no decoded copy of
the file, and ``bytes`` lines are smaller than ``str`` ones); they are compared with their
endings, so a CRLF to LF change shows, and a last line without a newline differs from the same
line with one. The output is decoded once, at the end.
The matching itself is in :mod:`.line_match`.
"""

from __future__ import annotations

import codecs
import io
from collections.abc import Hashable, Iterator, Sequence
from itertools import islice
from typing import NamedTuple

from .line_match import SMALL_GAP, Anchoring, match_blocks, trim, unique_positions

CONTEXT = 3
_VALIDATE_CHUNK = 1 << 18  # bytes decoded at a time to check UTF-8 (the text is not kept)

Opcode = tuple[str, int, int, int, int]


def _is_text(data: bytes) -> bool:
    """Strict UTF-8 without NUL (text with NUL is binary, never diffed)."""
    if b"\0" in data:
        return False
    if data.isascii():
        return True
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    try:
        for start in range(0, len(data), _VALIDATE_CHUNK):
            decoder.decode(view[start : start + _VALIDATE_CHUNK])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def _lines(data: bytes | None) -> list[bytes]:
    return list(io.BytesIO(data)) if data else []


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


def opcodes(
    a: Sequence[Hashable], b: Sequence[Hashable], first: Anchoring | None = None
) -> list[Opcode]:
    """``difflib``-style opcodes turning line list ``a`` into ``b`` (``first``: see
    :func:`.line_match.match_blocks`)."""
    ops: list[Opcode] = []
    i = j = 0
    for bi, bj, n in _merged(match_blocks(a, b, first)):
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


def _body(prefix: bytes, lines: list[bytes]) -> bytes:
    """Lines shown with ``prefix``, without their terminator (``\\r\\n`` or ``\\n``); a last line
    without one is followed by ``\\ No newline at end of file``."""
    return _shown(prefix + prefix.join(lines))  # every line but a file's last ends with b"\n"


def _whole(prefix: bytes, data: bytes) -> bytes:
    """:func:`_body` of every line of ``data``, without cutting it into lines first."""
    body = prefix + data.replace(b"\n", b"\n" + prefix)
    return _shown(body[: -len(prefix)] if data.endswith(b"\n") else body)


def _shown(body: bytes) -> bytes:
    if b"\r" in body and b"\r\n" in body:  # one byte is found with memchr, two are not
        body = body.replace(b"\r\n", b"\n")
    return body if body.endswith(b"\n") else body + b"\n\\ No newline at end of file\n"


def _line_count(data: bytes) -> int:
    return data.count(b"\n") + (not data.endswith(b"\n"))


def _matched_lines(old: bytes, new: bytes) -> tuple[list[bytes], list[bytes], Anchoring | None]:
    """The lines of both sides and, for a big file, the anchoring of the trimmed whole
    (see :func:`.line_match.match_blocks`), worked out while old's lines are not held: the
    line lists and the dict of unique lines are the peak memory of a diff."""
    a, b = _lines(old), _lines(new)
    pre, suf = trim(a, b, (0, len(a), 0, len(b)))
    ahi, bhi = len(a) - suf, len(b) - suf
    if (ahi - pre) * (bhi - pre) <= SMALL_GAP:  # (an empty side too)
        return a, b, None
    del a
    pos, ints = unique_positions(b, pre, bhi)
    js = list(map(pos.get, islice(io.BytesIO(old), pre, ahi)))
    del pos
    return _lines(old), b, (js, ints)


class Diff(NamedTuple):
    """A unified diff and its counts of added and removed lines."""

    text: str
    added: int
    removed: int


def unified_diff(old: bytes | None, new: bytes | None, path: str) -> str:
    """A standard unified diff (``--- a/path``, ``+++ b/path``, 3 lines of context).

    ``None`` means the file does not exist (``/dev/null`` header). Lines are shown without their
    terminator; a last line without one is followed by ``\\ No newline at end of file``. Bytes
    that are not UTF-8 text give a one-line ``Binary files ... differ``. Identical inputs give "".
    """
    return diff_with_stats(old, new, path).text


def diff_with_stats(old: bytes | None, new: bytes | None, path: str) -> Diff:
    """:func:`unified_diff` with its line counts, taken from the matching (what
    :func:`diff_stats` finds in the text, without reading the text again)."""
    name = path.replace("\\", "/")
    while name.startswith("./"):
        name = name[2:]
    head_a = "/dev/null" if old is None else f"a/{name}"
    head_b = "/dev/null" if new is None else f"b/{name}"
    if old == new:
        return Diff("", 0, 0)
    if not (old is None or _is_text(old)) or not (new is None or _is_text(new)):
        return Diff(f"Binary files {head_a} and {head_b} differ\n", 0, 0)
    head = f"--- {head_a}\n+++ {head_b}\n"
    if not old or not new:  # a file made or emptied: one hunk of every line, nothing to match
        data = old or new or b""
        if not data:
            return Diff(head, 0, 0)
        count = _line_count(data)
        span = _range(0, count)
        hunk = f"@@ -0,0 +{span} @@\n" if new else f"@@ -{span} +0,0 @@\n"
        text = head + hunk + _whole(b"+" if new else b"-", data).decode("utf-8")
        return Diff(text, count, 0) if new else Diff(text, 0, count)
    a, b, first = _matched_lines(old, new)
    out: list[bytes] = []
    added = removed = 0
    for group in _groups(opcodes(a, b, first)):
        i1, i2 = group[0][1], group[-1][2]
        j1, j2 = group[0][3], group[-1][4]
        out.append(f"@@ -{_range(i1, i2 - i1)} +{_range(j1, j2 - j1)} @@\n".encode())
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out.append(_body(b" ", a[a1:a2]))
                continue
            if a1 < a2:
                out.append(_body(b"-", a[a1:a2]))
                removed += a2 - a1
            if b1 < b2:
                out.append(_body(b"+", b[b1:b2]))
                added += b2 - b1
    # one decode of the whole body: the inputs are valid UTF-8 cut only after b"\n"
    # (headers alone when an empty file is created or deleted)
    text = head + b"".join(out).decode("utf-8")
    return Diff(text, added, removed)


def diff_stats(diff: str) -> tuple[int, int]:
    """``(added, removed)`` line counts of a unified diff (headers are not counted)."""
    # Every line from the first hunk header on is a hunk header or starts with its one-character
    # prefix, so counting line starts is exact, and takes no Python loop per line.
    first = 0 if diff.startswith("@@") else diff.find("\n@@")
    if first < 0:
        return 0, 0
    return diff.count("\n+", first + 1), diff.count("\n-", first + 1)
