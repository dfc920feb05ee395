"""Find ``OPERATOR_CMD`` blocks in a reply and turn each into a ``Command`` or a ``ScanError``.

Theory of operation
-------------------
Lines are the text split on ``\\n``, one ``\\r`` before it dropped (never
``str.splitlines``, which also splits on VT, FF, U+2028 ...). A final line terminator does
not make an empty last line.

Only *marker lines* move the state machine: a line that, after leading spaces and tabs,
starts with ``OPERATOR_CMD`` or ``END_OPERATOR_CMD``. It is *alone* when nothing but spaces
and tabs follows the token, else it is "not alone" (``OPERATOR_CMD:``, ``OPERATOR_CMDX``).
Marker lines are found with ``str.find`` over the whole text, so prose costs no Python work;
the lines between two markers are only looked at while a block is open.

Transitions (table ``_blocks._TRANSITIONS``), one per (state, marker kind):

=========  ==================  ================================================================
state      marker              effect
=========  ==================  ================================================================
outside    START alone         open a block
outside    START/END not alone ERR_MARKER_NOT_ALONE (no id)
outside    END alone           ignored (a stray END)
inside     END alone           finish the block: validate it
inside     START/END not alone ERR_MARKER_NOT_ALONE for the block; back to outside
inside     START alone         ERR_NESTED_BLOCK for the open block; a new block opens here
=========  ==================  ================================================================

A block's content is every line between its START and the next marker line. In line order,
a blank line is ``ERR_EMPTY_LINE_IN_CMD`` and more than 200 lines or 50,000 characters
(trimmed line length + 1) is ``ERR_BLOCK_TOO_LARGE``; either discards the block, and the rest
of it is prose. A block still open at the end is ``ERR_MISSING_END_MARKER``. Every
block-level error carries the block's id when an ``id:`` line was read before the fault.

Speed (``bench/scan.py`` times it against the reference app's scanner):

- Marker lines are found with ``str.find``; a line whose first token follows prose is skipped
  to its end at once, so a line that mentions the token thousands of times costs one search.
- A block as models write it (markers with nothing around them, every line between
  ``key:value`` with no blank before the colon or at the end) is taken whole at its START line
  with one pattern match (``_blocks._BLOCK``) and one ``findall`` for its fields, and so is
  every such block right after it, in one loop, without searching for markers again
  (``_Scan.take_blocks``); anything else goes through the exact per-line path, which finds and
  words the first fault. A valid block's command and parameters are built by setting their
  slots, and the duplicate-id check keeps the claiming block's fields (no canonical text).
- Line numbers: the newlines between two markers are counted with ``str.count``, or found one
  by one with ``str.find`` in long stretches of long lines (``_newlines``).
- A marker line repeated on the lines right after it is counted with one regular-expression
  match (``_REPEATS``) and its transitions applied once for the whole run.
- Folding: a run of ``FOLD_MIN`` or more errors with the same code, message and id, each on the
  line right after the previous one (only marker errors can be: nested or not-alone markers), is
  reported as one error whose message says how many lines it stands for. ``_fold`` applies the
  rule to the items whichever way they were found, from the first error on.

The tests compare the scanner with a plain per-line reference implementation of these rules,
and the items of the whole-block path with those of the per-line path.

A finished block is checked in this order: ASCII only, every line ``key: value``
(a stray line right after ``content:``, or a CR in a value, is ``ERR_CONTENT_HAS_NEWLINES``),
no key repeated with a different value, then ``_validate.validate_fields``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from . import codes
from ._blocks import (
    _TOKEN,
    _TRANSITIONS,
    _WS,
    END,
    FOLD_MIN,
    INSIDE,
    START,
    _fold,
    _not_alone,
    _Scan,
)
from ._cells import check_extensions
from ._models import ScanResult
from ._spec import MAX_SCAN_CHARS

__all__ = ["FOLD_MIN", "_not_alone", "scan", "unread_markers"]

_TOKEN_LEN = len(_TOKEN)
_END_PREFIX = "END_"
_LONG_STRETCH, _FEW_LINES, _LONG_LINE = 2048, 2, 300  # see _newlines
# A line followed by one or more exact copies of itself.
_REPEATS = re.compile(r"([^\n]*\n)(?:\1)+")


def _newlines(text: str, start: int, end: int) -> int:
    """``text.count("\\n", start, end)``, faster on prose.

    ``str.count`` looks at every character; ``str.find`` of one character jumps to it with
    ``memchr``, many times faster per character but with a Python step per line. So in a
    long stretch of prose newlines are found one by one, and once ``_FEW_LINES`` of them
    average under ``_LONG_LINE`` characters a line, the rest is counted in one pass.
    """
    if end - start < _LONG_STRETCH:
        return text.count("\n", start, end)
    n, pos, find = 0, start, text.find
    while (found := find("\n", pos, end)) >= 0:
        n += 1
        pos = found + 1
        if n >= _FEW_LINES and pos - start < n * _LONG_LINE:
            return n + text.count("\n", pos, end)
    return n


def _next_marker(text: str, pos: int) -> tuple[int, int, str, bool] | None:
    """The first marker line at or after ``pos`` (a line start): (start, end, kind, alone).

    Linear in the text: a line whose first token follows prose is skipped to its end.
    """
    find, rfind = text.find, text.rfind
    while True:
        i = find(_TOKEN, pos)
        if i < 0:
            return None
        line_start = rfind("\n", pos, i) + 1 or pos
        kind = START
        if line_start != i:  # something before the token: END_ and/or indentation, or prose
            lead = text[line_start:i]
            if lead.endswith(_END_PREFIX):
                kind, lead = END, lead[:-4]
            if lead.strip(_WS):  # prose: no marker on the rest of this line
                pos = find("\n", i) + 1
                if not pos:
                    return None
                continue
        after = i + _TOKEN_LEN
        line_end = find("\n", after)
        if line_end < 0:
            line_end = len(text)
        alone = line_end == after or not text[after:line_end].removesuffix("\r").strip(_WS)
        return line_start, line_end, kind, alone


def scan(
    text: str, *, seen: dict[str, dict[str, str]] | None = None, max_chars: int = MAX_SCAN_CHARS,
    extensions: Iterable[str] = (),
) -> ScanResult:
    """Find and validate every ``OPERATOR_CMD`` block of a reply, in block order.

    Parameters
    ----------
    text
        The model's reply. Only the last ``max_chars`` characters are scanned.
    seen
        Command id -> the fields of the command that claimed it. Pass the session's dict to
        track duplicate ids across replies; it is updated in place. ``None``: a fresh dict.
    max_chars
        Scan window (the spec's 200,000 characters).
    extensions
        Host extensions the host enabled (``"nb"``: the notebook cell actions); the actions
        of any other are ``ERR_UNKNOWN_ACTION``. ValueError for an unknown name.

    Returns
    -------
    ScanResult
        ``items`` holds a ``Command`` or a ``ScanError`` per block (identical duplicates are
        left out and listed in ``skipped_duplicates``; long runs of one marker error are
        folded, see the module docstring); ``truncated_chars`` says how many characters were
        cut from the front and ``unread_markers`` how many ``OPERATOR_CMD`` markers they held.
        Never raises on any text.
    """
    truncated = max(0, len(text) - max(0, max_chars))
    unread = 0
    if truncated:
        unread = unread_markers(text, truncated)
        text = text[truncated:]
    if "\r" in text and text.count("\r") == text.count("\r\n"):
        # Every CR ends a line (a CRLF reply): read it as LF text, so well-formed blocks take
        # the whole-block path. Lines, values and the character bounds (which never count a
        # line's CR) are the same; any lone CR keeps the text as it is, for the per-line path.
        text = text.replace("\r\n", "\n")
    state = _Scan({} if seen is None else seen, check_extensions(extensions))
    line_no, counted_to, content_from, pos = 1, 0, 0, 0
    repeats = _REPEATS.match
    while (marker := _next_marker(text, pos)) is not None:
        line_start, line_end, kind, alone = marker
        line_no += _newlines(text, counted_to, line_start)
        counted_to = line_start
        if state.state == INSIDE:
            if line_start > content_from:
                state.feed(text[content_from : line_start - 1])
        elif kind == START and alone:
            # Well-formed blocks, this one and any right after it, are taken whole.
            after, line_no = state.take_blocks(text, line_start, line_no)
            if after != line_start:
                pos = content_from = counted_to = after
                continue
        line = text[line_start:line_end]
        run = repeats(text, line_start) if text.startswith(line, line_end + 1) else None
        if run is not None:
            count = (run.end() - line_start) // (line_end - line_start + 1)
            state.run(line_no, line, kind, alone, count)
            pos = content_from = line_start + count * (line_end - line_start + 1)
            continue
        _TRANSITIONS[state.state, kind, alone](state, line_no, line)
        pos = content_from = line_end + 1
    if state.state == INSIDE:
        rest = text[content_from:]
        if rest:  # at least one line; the final line terminator is not an empty line
            state.feed(rest[:-1] if rest.endswith("\n") else rest)
        if state.state == INSIDE:
            state.block_error(
                codes.ERR_MISSING_END_MARKER, "reached end of text without END_OPERATOR_CMD."
            )
    items, first = state.items, state.first_error
    if first >= 0:  # errors fold only with the errors right before them
        items = items[:first] + _fold(items[first:])
    return ScanResult(tuple(items), tuple(state.skipped), truncated, unread)  # type: ignore[arg-type]


def unread_markers(text: str, cut: int) -> int:
    """How many ``OPERATOR_CMD`` begin markers start in ``text[:cut]`` (the part not scanned).

    Every mention of the token that is not part of ``END_OPERATOR_CMD``, counted with two
    ``str.count`` calls on the cut part only (a marker cut in half counts): the scan itself is
    untouched. A mention in prose counts too, so the number is an upper bound.
    """
    span = cut + len(_TOKEN) - 1  # tokens that start before the cut
    return text.count(_TOKEN, 0, span) - text.count("END_" + _TOKEN, 0, span)
