"""Reading a notebook's cells, and describing how one cell changed (pure, no file access).

Version 4 notebooks are read as plain JSON with the structure checks a diff needs (no schema
validation, no ``NotebookNode`` wrapping of every output: on a 5 MB notebook those cost more than
the whole diff, and the engine validates what it writes). Version 3 notebooks are converted to
version 4 by ``nbformat``; other versions are not notebooks for the diff.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

#: Above this (old lines x new lines) a cell's changed middle is shown as one replaced block:
#: SequenceMatcher is quadratic, and a card must stay quick to plan.
_SMALL = 250_000
CONTEXT = 3

Opcode = tuple[str, int, int, int, int]


@dataclass(frozen=True)
class Cell:
    """One cell as the diff sees it; ``source`` is the joined text."""

    index: int
    id: str | None
    cell_type: str
    source: str
    metadata: dict[str, Any]
    outputs: list[Any] | None  # code cells only
    execution_count: int | None
    attachments: Any = None

    @property
    def lines(self) -> list[str]:
        return self.source.split("\n") if self.source else []


@dataclass(frozen=True)
class Notebook:
    """The parts of a notebook the diff compares."""

    version: str  # "4.5"
    cells: list[Cell]
    metadata: dict[str, Any]


def _text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(part, str) for part in value):
        return "".join(value)
    return None


def load(text: str | bytes) -> Notebook | None:
    """The notebook in ``text``, or None when it is not a (structurally sound) notebook."""
    import json

    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        nb = json.loads(text)
        major = nb.get("nbformat") if isinstance(nb, dict) else None
        if major == 3:  # worksheets and "input": nbformat converts them to cells
            import nbformat

            nb = nbformat.convert(nbformat.from_dict(nb), 4)
        elif major != 4 or not isinstance(nb.get("nbformat_minor", 0), int):
            return None
    except Exception:  # not UTF-8, not JSON, a broken version 3 file: not a notebook for us
        return None
    raw_cells = nb.get("cells")
    metadata = nb.get("metadata", {})
    if not isinstance(raw_cells, list) or not isinstance(metadata, dict):
        return None
    cells: list[Cell] = []
    for index, raw in enumerate(raw_cells):
        if not isinstance(raw, dict):
            return None
        source, cell_type = _text(raw.get("source", "")), raw.get("cell_type")
        outputs = raw.get("outputs") if cell_type == "code" else None
        cell_meta = raw.get("metadata", {})
        if source is None or not isinstance(cell_type, str) or not isinstance(cell_meta, dict):
            return None
        if outputs is not None and not isinstance(outputs, list):
            return None
        cell_id = raw.get("id")
        cells.append(Cell(
            index, cell_id if isinstance(cell_id, str) else None, cell_type, source, cell_meta,
            outputs, raw.get("execution_count"), raw.get("attachments"),
        ))  # fmt: skip
    version = f"{nb.get('nbformat')}.{nb.get('nbformat_minor', 0)}"
    return Notebook(version, cells, metadata)


# -- one cell's source ---------------------------------------------------------------------


def _range(start: int, length: int) -> str:
    beginning = start + 1 if length else start
    return str(beginning) if length == 1 else f"{beginning},{length}"


def _opcodes(a: list[str], b: list[str]) -> list[Opcode]:
    """difflib opcodes, with the common prefix and suffix trimmed first (cheap and exact)."""
    pre = 0
    while pre < len(a) and pre < len(b) and a[pre] == b[pre]:
        pre += 1
    suf = 0
    while suf < len(a) - pre and suf < len(b) - pre and a[-1 - suf] == b[-1 - suf]:
        suf += 1
    mid_a, mid_b = a[pre : len(a) - suf], b[pre : len(b) - suf]
    ops: list[Opcode] = []
    if pre:
        ops.append(("equal", 0, pre, 0, pre))
    if len(mid_a) * len(mid_b) <= _SMALL:
        sm = difflib.SequenceMatcher(None, mid_a, mid_b, autojunk=False)
        ops.extend((t, i1 + pre, i2 + pre, j1 + pre, j2 + pre) for t, i1, i2, j1, j2 in
                   sm.get_opcodes())  # fmt: skip
    elif mid_a or mid_b:
        ops.append(("replace", pre, pre + len(mid_a), pre, pre + len(mid_b)))
    if suf:
        ops.append(("equal", len(a) - suf, len(a), len(b) - suf, len(b)))
    return ops


def _groups(ops: list[Opcode]) -> list[list[Opcode]]:
    """Hunks of opcodes with ``CONTEXT`` lines around each change (as difflib groups them)."""
    n = CONTEXT
    if not ops or (len(ops) == 1 and ops[0][0] == "equal"):
        return []
    if ops[0][0] == "equal":
        tag, i1, i2, j1, j2 = ops[0]
        ops[0] = (tag, max(i1, i2 - n), i2, max(j1, j2 - n), j2)
    if ops[-1][0] == "equal":
        tag, i1, i2, j1, j2 = ops[-1]
        ops[-1] = (tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n))
    groups: list[list[Opcode]] = []
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal" and i2 - i1 > 2 * n:
            group.append((tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)))
            groups.append(group)
            group = []
            i1, j1 = max(i1, i2 - n), max(j1, j2 - n)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        groups.append(group)
    return groups


def source_diff(old: str | None, new: str | None) -> tuple[str, int, int]:
    """A unified diff of one cell's source (no file headers), with line numbers counted from
    the cell's first line, and its added and removed line counts. "" when equal."""
    a = old.split("\n") if old else []
    b = new.split("\n") if new else []
    if a == b:
        return "", 0, 0
    out: list[str] = []
    added = removed = 0
    for group in _groups(_opcodes(a, b)):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{_range(i1, i2 - i1)} +{_range(j1, j2 - j1)} @@\n")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out.extend(f" {line}\n" for line in a[a1:a2])
                continue
            out.extend(f"-{line}\n" for line in a[a1:a2])
            out.extend(f"+{line}\n" for line in b[b1:b2])
            removed += a2 - a1
            added += b2 - b1
    return "".join(out), added, removed


@lru_cache(maxsize=4096)
def _shingles(source: str, by_line: bool) -> frozenset[str]:
    """The set a source is compared by: its lines, or its character trigrams."""
    if by_line:
        return frozenset(source.split("\n"))
    padded = f"\n{source}\n"
    return frozenset(padded[k : k + 3] for k in range(len(padded) - 2))


def similarity(a: Cell, b: Cell) -> float:
    """How alike two cells' sources are, 0..1: the Dice coefficient of their character trigram
    sets (line sets for long cells). Set operations run in C, so the thousands of comparisons
    a rewritten notebook needs stay cheap (``difflib`` ratios cost milliseconds each)."""
    if a.source == b.source:
        return 1.0
    if not a.source or not b.source:
        return 0.0
    by_line = len(a.source) + len(b.source) > 4_000
    sa, sb = _shingles(a.source, by_line), _shingles(b.source, by_line)
    size = len(sa) + len(sb)
    if 2 * min(len(sa), len(sb)) < 0.3 * size:  # even a perfect overlap would be too small
        return 0.0
    return 2 * len(sa & sb) / size


# -- outputs and metadata ------------------------------------------------------------------


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def _strip_count(output: Any) -> Any:
    """An output without its execution count (a re-run renumbers results, nothing else)."""
    if isinstance(output, dict) and "execution_count" in output:
        return {k: v for k, v in output.items() if k != "execution_count"}
    return output


def outputs_summary(old: list[Any] | None, new: list[Any] | None) -> str | None:
    """``"2 removed, 1 changed"`` for a cell's outputs, or None when they are the same."""
    old, new = old or [], new or []
    if old == new:  # C-level comparison: the common case costs almost nothing
        return None
    a, b = [_strip_count(o) for o in old], [_strip_count(o) for o in new]
    if a == b:
        return None
    added = removed = changed = 0
    keys_a, keys_b = [repr(o) for o in a], [repr(o) for o in b]
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, keys_a, keys_b).get_opcodes():
        if tag == "replace":
            both = min(i2 - i1, j2 - j1)
            changed += both
            removed += i2 - i1 - both
            added += j2 - j1 - both
        elif tag == "delete":
            removed += i2 - i1
        elif tag == "insert":
            added += j2 - j1
    parts = [f"{n} {word}" for n, word in ((added, "added"), (removed, "removed"),
                                           (changed, "changed")) if n]  # fmt: skip
    return ", ".join(parts) or None


def metadata_summary(old: dict[str, Any], new: dict[str, Any]) -> str | None:
    """``"tags changed, collapsed added"`` for a metadata dict, or None when equal."""
    if old == new:
        return None
    parts: list[str] = []
    for key in sorted(set(old) | set(new)):
        if key not in old:
            parts.append(f"{key} added")
        elif key not in new:
            parts.append(f"{key} removed")
        elif old[key] != new[key]:
            parts.append(f"{key} changed")
    return ", ".join(parts)
