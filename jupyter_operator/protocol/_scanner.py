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

Transitions (table ``_TRANSITIONS``), one per (state, marker kind):

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

While a block is open, each content line is checked as it arrives: a blank line is
``ERR_EMPTY_LINE_IN_CMD`` and more than 200 lines or 50,000 characters (line length + 1) is
``ERR_BLOCK_TOO_LARGE``; either discards the block and the rest of it is prose. A block still
open at the end is ``ERR_MISSING_END_MARKER``. Every block-level error carries the block's
id when an ``id:`` line was read.

A finished block is checked in this order: ASCII only, every line ``key: value``
(a stray line right after ``content:``, or a CR in a value, is ``ERR_CONTENT_HAS_NEWLINES``),
no key repeated with a different value, then ``_validate.validate_fields``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from . import codes
from ._errors import OperatorError
from ._models import Command, ScanError, ScanResult
from ._spec import MAX_BLOCK_CHARS, MAX_BLOCK_LINES, MAX_SCAN_CHARS
from ._validate import validate_fields

_TOKEN = "OPERATOR_CMD"
_END_PREFIX = "END_"
_WS = " \t"
_KEY_VALUE = re.compile(r"([A-Za-z0-9_.-]+)[ \t]*:[ \t]*(.*)")

START, END = "START", "END"
OUTSIDE, INSIDE = "outside", "inside"


def _quote(line: str, limit: int = 60) -> str:
    """A line for an error message: printable ASCII only, shortened."""
    shown = line if len(line) <= limit else line[:limit] + "..."
    if shown.isascii() and shown.isprintable():
        return shown
    return "".join(ch if ch.isascii() and ch.isprintable() else "?" for ch in shown)


def _clean_id(value: str | None) -> str | None:
    """An id fit to echo in a result line (printable ASCII), else None."""
    if value and value.isascii() and value.isprintable():
        return value
    return None


def _recover_id(lines: list[str]) -> str | None:
    """The value of the first ``id:`` line, for errors in blocks that never parsed."""
    for line in lines:
        if line.startswith("id"):
            match = _KEY_VALUE.fullmatch(line)
            if match and match.group(1) == "id":
                return _clean_id(match.group(2))
    return None


def _markers(text: str) -> list[tuple[int, int, str, bool]]:
    """Every marker line: (line start offset, line end offset, START|END, alone)."""
    found: list[tuple[int, int, str, bool]] = []
    find, rfind = text.find, text.rfind
    pos = 0
    while True:
        i = find(_TOKEN, pos)
        if i < 0:
            return found
        line_start = rfind("\n", 0, i) + 1
        lead = text[line_start:i]
        kind = START
        if lead.endswith(_END_PREFIX):
            kind, lead = END, lead[: -len(_END_PREFIX)]
        line_end = find("\n", i)
        if line_end < 0:
            line_end = len(text)
        if lead.strip(_WS):
            pos = i + len(_TOKEN)  # mentioned in prose, not a marker line
            continue
        rest = text[i + len(_TOKEN) : line_end]
        if rest.endswith("\r"):
            rest = rest[:-1]
        found.append((line_start, line_end, kind, not rest.strip(_WS)))
        pos = line_end


class _Scan:
    """One pass over one text; see the module docstring."""

    def __init__(self, text: str, seen: dict[str, str]) -> None:
        self.text = text
        self.seen = seen
        self.items: list[Command | ScanError] = []
        self.skipped: list[str] = []
        self.state = OUTSIDE
        self.block_line = 0  # line number of the open block's START marker
        self.block_lines: list[str] = []
        self.block_chars = 0

    # --- content lines ---------------------------------------------------------------------
    def feed_lines(self, chunk: str) -> None:
        """Content lines of the open block (``chunk`` has no marker lines)."""
        lines = self.block_lines
        for raw in chunk.split("\n"):
            line = raw[:-1] if raw.endswith("\r") else raw
            line = line.strip(_WS)
            if not line:
                self.block_error(codes.ERR_EMPTY_LINE_IN_CMD, "empty line inside OPERATOR_CMD.")
                return
            self.block_chars += len(line) + 1
            lines.append(line)
            if len(lines) > MAX_BLOCK_LINES:
                self.block_error(codes.ERR_BLOCK_TOO_LARGE, f"too many lines (>{MAX_BLOCK_LINES}).")
                return
            if self.block_chars > MAX_BLOCK_CHARS:
                self.block_error(
                    codes.ERR_BLOCK_TOO_LARGE, f"too many characters (>{MAX_BLOCK_CHARS})."
                )
                return

    def block_error(self, code: str, message: str) -> None:
        self.items.append(ScanError(code, message, _recover_id(self.block_lines), self.block_line))
        self.state = OUTSIDE

    # --- transitions -----------------------------------------------------------------------
    def open_block(self, line_no: int, line: str) -> None:
        self.state = INSIDE
        self.block_line = line_no
        self.block_lines = []
        self.block_chars = 0

    def not_alone_outside(self, line_no: int, line: str) -> None:
        self.items.append(ScanError(codes.ERR_MARKER_NOT_ALONE, _not_alone(line), None, line_no))

    def not_alone_inside(self, line_no: int, line: str) -> None:
        self.block_error(codes.ERR_MARKER_NOT_ALONE, _not_alone(line))

    def nested(self, line_no: int, line: str) -> None:
        self.block_error(codes.ERR_NESTED_BLOCK, "OPERATOR_CMD started before END_OPERATOR_CMD.")
        self.open_block(line_no, line)

    def ignore(self, line_no: int, line: str) -> None:
        pass

    def finish(self, line_no: int, line: str) -> None:
        self.state = OUTSIDE
        self.items.extend(self.finalize())

    # --- a complete block ------------------------------------------------------------------
    def finalize(self) -> list[Command | ScanError]:
        lines, line_no = self.block_lines, self.block_line
        if not all(line.isascii() for line in lines):
            message = "non-ASCII character detected in command block."
            return [ScanError(codes.ERR_NON_ASCII_IN_CMD, message, _recover_id(lines), line_no)]
        fields: dict[str, str] = {}
        duplicate: str | None = None
        previous_key = ""
        for line in lines:
            match = _KEY_VALUE.fullmatch(line)
            if match is None:
                if previous_key == "content":
                    return [self._error(codes.ERR_CONTENT_HAS_NEWLINES, _CONTENT_NL, lines)]
                message = f"line '{_quote(line)}' is not key: value."
                return [self._error(codes.ERR_NON_KEY_VALUE_LINE, message, lines)]
            key, value = match.groups()
            if "\r" in value:
                message = _CONTENT_NL if key == "content" else f"{key} contains a line break."
                return [self._error(codes.ERR_CONTENT_HAS_NEWLINES, message, lines)]
            old = fields.setdefault(key, value)
            if old != value and duplicate is None:
                duplicate = key
            previous_key = key
        if duplicate is not None:
            message = f"key '{duplicate}' appears twice with different values."
            return [self._error(codes.ERR_DUPLICATE_KEY, message, lines)]
        try:
            command_id, action, path, params = validate_fields(fields)
        except OperatorError as exc:
            return [ScanError(exc.code, exc.message, _clean_id(fields.get("id")), line_no)]
        canonical = "\n".join(f"{k}: {v}" for k, v in sorted(fields.items()))
        claimed = self.seen.get(command_id)
        if claimed is None:
            self.seen[command_id] = canonical
        elif claimed == canonical:
            self.skipped.append(command_id)
            return []
        else:
            message = (
                f"duplicate id with differing content: {_quote(command_id)}; "
                "use a new id for a new command."
            )
            return [ScanError(codes.ERR_DUPLICATE_ID, message, _clean_id(command_id), line_no)]
        command = Command.model_construct(
            id=command_id, action=action, path=path, line=line_no, fields=fields, params=params
        )
        return [command]

    def _error(self, code: str, message: str, lines: list[str]) -> ScanError:
        return ScanError(code, message, _recover_id(lines), self.block_line)


_CONTENT_NL = "content contains newline; use content_b64."


def _not_alone(line: str) -> str:
    token = "END_OPERATOR_CMD" if line.lstrip(_WS).startswith(_END_PREFIX) else _TOKEN
    return f"line '{_quote(line.rstrip(chr(13)).strip(_WS))}' must be only {token}."


_Handler = Callable[[_Scan, int, str], None]
_TRANSITIONS: dict[tuple[str, str, bool], _Handler] = {
    (OUTSIDE, START, True): _Scan.open_block,
    (OUTSIDE, START, False): _Scan.not_alone_outside,
    (OUTSIDE, END, True): _Scan.ignore,
    (OUTSIDE, END, False): _Scan.not_alone_outside,
    (INSIDE, START, True): _Scan.nested,
    (INSIDE, START, False): _Scan.not_alone_inside,
    (INSIDE, END, True): _Scan.finish,
    (INSIDE, END, False): _Scan.not_alone_inside,
}


def scan(
    text: str, *, seen: dict[str, str] | None = None, max_chars: int = MAX_SCAN_CHARS
) -> ScanResult:
    """Find and validate every ``OPERATOR_CMD`` block of a reply, in block order.

    Parameters
    ----------
    text
        The model's reply. Only the last ``max_chars`` characters are scanned.
    seen
        Command id -> canonical form of the command that claimed it. Pass the session's dict
        to track duplicate ids across replies; it is updated in place. ``None``: a fresh dict.
    max_chars
        Scan window (the spec's 200,000 characters).

    Returns
    -------
    ScanResult
        ``items`` holds a ``Command`` or a ``ScanError`` per block (identical duplicates are
        left out and listed in ``skipped_duplicates``); ``truncated_chars`` says how many
        characters were cut from the front. Never raises on any text.
    """
    truncated = max(0, len(text) - max(0, max_chars))
    if truncated:
        text = text[truncated:]
    state = _Scan(text, {} if seen is None else seen)
    line_no, counted_to, content_from = 1, 0, 0
    for line_start, line_end, kind, alone in _markers(text):
        line_no += text.count("\n", counted_to, line_start)
        counted_to = line_start
        if state.state == INSIDE and line_start > content_from:
            state.feed_lines(text[content_from : line_start - 1])
        line = text[line_start:line_end]
        _TRANSITIONS[state.state, kind, alone](state, line_no, line)
        content_from = line_end + 1
    if state.state == INSIDE:
        rest = text[content_from:]
        if rest.endswith("\n"):
            rest = rest[:-1]  # the final line terminator is not an empty line
        if rest and content_from <= len(text):
            state.feed_lines(rest)
        if state.state == INSIDE:
            state.block_error(
                codes.ERR_MISSING_END_MARKER, "reached end of text without END_OPERATOR_CMD."
            )
    return ScanResult(tuple(state.items), tuple(state.skipped), truncated)
