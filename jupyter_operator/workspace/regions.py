"""Marked regions: ``OPERATOR_BEGIN <id>`` ... ``OPERATOR_END <id>`` comment lines.

Marker syntax is the reference app's: a whole line of optional indentation, the comment prefix
(or block start), optional spaces, ``OPERATOR_BEGIN``/``OPERATOR_END``, spaces, the id, optional
spaces (and the block end). New markers are written at column 0 as ``<prefix> OPERATOR_BEGIN <id>``
or ``<start> OPERATOR_BEGIN <id> <end>``.

Differences from the reference app, on purpose: region content is joined with the file's own
newline and one trailing newline in it just ends its last line (no blank line is added); the
rest of the file keeps its bytes (no conversion of mixed line endings); ``list_regions`` refuses
nested or overlapping regions (``ERR_REGION_MARKER_MISMATCH``) and lists regions in file order.

Codes: ``ERR_REGION_MARKER_NOT_FOUND``, ``ERR_REGION_MARKER_NOT_UNIQUE``,
``ERR_REGION_MARKER_ORDER``, ``ERR_REGION_MARKER_MISMATCH``, ``ERR_REGION_MARKER_ALREADY_EXISTS``
and ``ERR_ANCHOR_NOT_FOUND`` (insert anchor: a substring of one line; ``occurrence`` counts
matching lines, a line containing the anchor twice counts once).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from jupyter_operator.protocol import OperatorError, codes

from .budget import MAX_PLANNED_BYTES, SizeBudget, utf8_len
from .near import closest_line
from .text import newline_of, split_lines


@dataclass(frozen=True)
class Region:
    """One region, all line numbers 1-based. An empty region has
    ``content_start_line == content_end_line + 1`` and ``content_lines == 0``."""

    marker_id: str
    begin_line: int
    end_line: int
    content_start_line: int
    content_end_line: int
    content_lines: int

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``fs.listRegions`` details (the reference app's key names)."""
        return asdict(self)


def _marker_re(style: Any, kind: str, marker_id: str | None) -> re.Pattern[str]:
    ident = r"(\S+)" if marker_id is None else "(" + re.escape(marker_id) + ")"
    if style.type == "block" or (style.block_start and not style.line_prefix):
        start = re.escape(style.block_start or "")
        end = re.escape(style.block_end or "")
        return re.compile(rf"^\s*{start}\s*OPERATOR_{kind}\s+{ident}\s*{end}\s*$")
    prefix = re.escape(style.line_prefix or "")
    return re.compile(rf"^\s*{prefix}\s*OPERATOR_{kind}\s+{ident}\s*$")


def _marker_line(style: Any, kind: str, marker_id: str) -> str:
    if style.type == "block" or (style.block_start and not style.line_prefix):
        return f"{style.block_start} OPERATOR_{kind} {marker_id} {style.block_end}"
    return f"{style.line_prefix} OPERATOR_{kind} {marker_id}"


def _find(lines: list[tuple[str, str]], style: Any, marker_id: str) -> tuple[int, int]:
    """0-based indexes of the BEGIN and END lines of ``marker_id``."""
    begin_re = _marker_re(style, "BEGIN", marker_id)
    end_re = _marker_re(style, "END", marker_id)
    begins = [i for i, (c, _) in enumerate(lines) if begin_re.match(c)]
    ends = [i for i, (c, _) in enumerate(lines) if end_re.match(c)]
    if len(begins) > 1:
        raise OperatorError(
            codes.ERR_REGION_MARKER_NOT_UNIQUE,
            f"multiple OPERATOR_BEGIN markers for marker_id={marker_id}",
        )
    if len(ends) > 1:
        raise OperatorError(
            codes.ERR_REGION_MARKER_NOT_UNIQUE,
            f"multiple OPERATOR_END markers for marker_id={marker_id}",
        )
    if not begins or not ends:
        missing = "OPERATOR_BEGIN" if not begins else "OPERATOR_END"
        raise OperatorError(
            codes.ERR_REGION_MARKER_NOT_FOUND, f"missing {missing} for marker_id={marker_id}"
        )
    if ends[0] < begins[0]:
        raise OperatorError(
            codes.ERR_REGION_MARKER_ORDER,
            f"OPERATOR_END appears before OPERATOR_BEGIN for marker_id={marker_id}",
        )
    # Regions never nest or overlap (fs.listRegions refuses such a file): neither may the
    # actions that read or change one region.
    _no_markers(lines[begins[0] + 1 : ends[0]], style, f"region {marker_id}")
    outer = _open_at(lines[: begins[0]], style)
    if outer is not None:
        raise _nested(f"region {marker_id} lies inside region {outer}")
    return begins[0], ends[0]


def _nested(what: str) -> OperatorError:
    return OperatorError(codes.ERR_REGION_MARKER_MISMATCH, f"{what}; regions cannot nest")


def _no_markers(lines: list[tuple[str, str]], style: Any, where: str) -> None:
    """Refuse when ``lines`` (a region's content, old or new) hold any region marker."""
    begin_re, end_re = _marker_re(style, "BEGIN", None), _marker_re(style, "END", None)
    for content, _ in lines:
        if m := begin_re.match(content) or end_re.match(content):
            raise _nested(f"{where} holds a marker of region {m.group(1)}")


def _open_at(lines: list[tuple[str, str]], style: Any) -> str | None:
    """The region still open after ``lines`` (the one a line below them lies in), if any."""
    begin_re, end_re = _marker_re(style, "BEGIN", None), _marker_re(style, "END", None)
    open_ids: list[str] = []
    for content, _ in lines:
        if m := begin_re.match(content):
            open_ids.append(m.group(1))
        elif (m := end_re.match(content)) and m.group(1) in open_ids:
            open_ids.remove(m.group(1))
    return open_ids[-1] if open_ids else None


def _content_lines(content: str, nl: str) -> list[tuple[str, str]]:
    """Region content as lines ending in ``nl``; one trailing newline only ends the last line."""
    if content.endswith("\r\n"):
        content = content[:-2]
    elif content.endswith("\n"):
        content = content[:-1]
    elif content == "":
        return []
    return [(p[:-1] if p.endswith("\r") else p, nl) for p in content.split("\n")]


def _join(lines: list[tuple[str, str]]) -> str:
    return "".join(c + e for c, e in lines)


def _size(lines: list[tuple[str, str]]) -> int:
    return sum(utf8_len(c) + len(e) for c, e in lines)


def list_regions(text: str, style: Any) -> list[Region]:
    """Every region of the file, in file order; refuses broken, nested or overlapping ones."""
    begin_re = _marker_re(style, "BEGIN", None)
    end_re = _marker_re(style, "END", None)
    regions: list[Region] = []
    seen: set[str] = set()
    open_id: str | None = None
    open_at = 0
    for i, (content, _) in enumerate(split_lines(text)):
        if m := begin_re.match(content):
            mid = m.group(1)
            if mid in seen or mid == open_id:
                raise OperatorError(
                    codes.ERR_REGION_MARKER_NOT_UNIQUE,
                    f"multiple OPERATOR_BEGIN/END markers for marker_id={mid}",
                )
            if open_id is not None:
                raise OperatorError(
                    codes.ERR_REGION_MARKER_MISMATCH,
                    f"region {mid} begins inside region {open_id}; regions cannot nest",
                )
            open_id, open_at = mid, i
        elif m := end_re.match(content):
            mid = m.group(1)
            if mid in seen:
                raise OperatorError(
                    codes.ERR_REGION_MARKER_NOT_UNIQUE,
                    f"multiple OPERATOR_BEGIN/END markers for marker_id={mid}",
                )
            if open_id is None:
                raise OperatorError(
                    codes.ERR_REGION_MARKER_ORDER,
                    f"OPERATOR_END appears before OPERATOR_BEGIN for marker_id={mid}",
                )
            if mid != open_id:
                raise OperatorError(
                    codes.ERR_REGION_MARKER_MISMATCH,
                    f"OPERATOR_END {mid} inside region {open_id}; regions cannot overlap",
                )
            begin, end = open_at + 1, i + 1
            regions.append(Region(mid, begin, end, begin + 1, end - 1, end - begin - 1))
            seen.add(mid)
            open_id = None
    if open_id is not None:
        raise OperatorError(
            codes.ERR_REGION_MARKER_MISMATCH, f"missing OPERATOR_END for marker_id={open_id}"
        )
    return regions


def read_region(text: str, style: Any, marker_id: str) -> str:
    """The lines strictly between the markers, with their own endings (the last one too)."""
    lines = split_lines(text)
    begin, end = _find(lines, style, marker_id)
    return _join(lines[begin + 1 : end])


def replace_region(
    text: str, style: Any, marker_id: str, content: str, *, limit: int = MAX_PLANNED_BYTES
) -> str:
    """Replace the region's content; the marker lines stay.

    ``ERR_RESULT_TOO_LARGE`` when the result would be over ``limit`` bytes (checked first).
    """
    budget = SizeBudget(text, limit)
    lines = split_lines(text)
    begin, end = _find(lines, style, marker_id)
    nl = lines[begin][1] or newline_of(text)
    new = _content_lines(content, nl)
    _no_markers(new, style, f"the new content of region {marker_id}")
    budget.grow(_size(new) - _size(lines[begin + 1 : end]))
    return _join(lines[: begin + 1] + new + lines[end:])


def delete_region(text: str, style: Any, marker_id: str) -> str:
    """Remove the region's content lines; the marker lines stay."""
    return replace_region(text, style, marker_id, "")


def insert_region(
    text: str,
    style: Any,
    marker_id: str,
    anchor: str,
    content: str,
    position: str = "after",
    occurrence: int = 1,
    *,
    limit: int = MAX_PLANNED_BYTES,
) -> str:
    """Insert a new region before or after the ``occurrence``-th line containing ``anchor``.

    ``ERR_RESULT_TOO_LARGE`` when the result would be over ``limit`` bytes (checked first).
    """
    budget = SizeBudget(text, limit)
    lines = split_lines(text)
    begin_re = _marker_re(style, "BEGIN", marker_id)
    end_re = _marker_re(style, "END", marker_id)
    if any(begin_re.match(c) or end_re.match(c) for c, _ in lines):
        raise OperatorError(
            codes.ERR_REGION_MARKER_ALREADY_EXISTS, f"marker_id={marker_id} already exists"
        )
    if not anchor:
        raise OperatorError(codes.ERR_ANCHOR_NOT_FOUND, "the anchor is empty")
    hits = [i for i, (c, _) in enumerate(lines) if anchor in c]
    if len(hits) < max(occurrence, 1):
        what = "anchor text" if occurrence <= 1 else f"occurrence {occurrence} of the anchor text"
        hint = closest_line("\n".join(c for c, _ in lines), anchor) if not hits else ""
        raise OperatorError(codes.ERR_ANCHOR_NOT_FOUND, f"{what} not found in any line{hint}")
    at = hits[max(occurrence, 1) - 1]
    outer = _open_at(lines[: at if position == "before" else at + 1], style)
    if outer is not None:
        raise _nested(f"the anchor line {at + 1} lies inside region {outer}")
    nl = lines[at][1] or newline_of(text)
    _no_markers(_content_lines(content, nl), style, f"the content of region {marker_id}")
    block = [
        (_marker_line(style, "BEGIN", marker_id), nl),
        *_content_lines(content, nl),
        (_marker_line(style, "END", marker_id), nl),
    ]
    if position == "before":
        budget.grow(_size(block))
        return _join(lines[:at] + block + lines[at:])
    if not lines[at][1]:
        # The anchor is the last line and has no newline: it gets one, the END marker doesn't.
        lines[at] = (lines[at][0], nl)
        block[-1] = (block[-1][0], "")
        budget.grow(len(nl))
    budget.grow(_size(block))
    return _join(lines[: at + 1] + block + lines[at + 1 :])
