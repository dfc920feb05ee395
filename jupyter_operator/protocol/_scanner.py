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

A block's content is every line between its START and the next marker line. In line order,
a blank line is ``ERR_EMPTY_LINE_IN_CMD`` and more than 200 lines or 50,000 characters
(trimmed line length + 1) is ``ERR_BLOCK_TOO_LARGE``; either discards the block, and the rest
of it is prose. A block still open at the end is ``ERR_MISSING_END_MARKER``. Every
block-level error carries the block's id when an ``id:`` line was read before the fault.

Speed: a well-formed block is checked with a few whole-chunk C calls (``_KV_LINES.findall``
clears the blank-line, key-value and CR rules at once); anything they do not clear goes
through the exact per-line path, which finds and words the first fault. The tests compare
the scanner with a plain per-line reference implementation of these rules.

A finished block is checked in this order: ASCII only, every line ``key: value``
(a stray line right after ``content:``, or a CR in a value, is ``ERR_CONTENT_HAS_NEWLINES``),
no key repeated with a different value, then ``_validate.validate_fields``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from . import codes
from ._errors import OperatorError, shown
from ._models import Command, ScanError, ScanResult
from ._spec import MAX_BLOCK_CHARS, MAX_BLOCK_LINES, MAX_SCAN_CHARS
from ._validate import validate_fields

_TOKEN = "OPERATOR_CMD"
_TOKEN_LEN = len(_TOKEN)
_END_PREFIX = "END_"
_WS = " \t"
_KEY_VALUE = re.compile(r"([A-Za-z0-9_.-]+)[ \t]*:[ \t]*(.*)")
# Whole-chunk forms of the per-line rules, so a well-formed block costs a few C calls. Any
# chunk they do not clear takes the exact per-line path, which finds and words the error.
# Used only on chunks without CR. The value is greedy up to its last non-blank character:
# a lazy value, or a [^\r\n] class, is 5-50 times slower on a long base64 line.
_KV_LINES = re.compile(r"^[ \t]*([A-Za-z0-9_.-]+)[ \t]*:[ \t]*((?:.*[^ \t])?)[ \t]*$", re.M)

START, END = "START", "END"
OUTSIDE, INSIDE = "outside", "inside"
_CONTENT_NL = "content contains newline; use content_b64."


def _quote(line: str) -> str:
    """A line for an error message: printable ASCII only, shortened."""
    return shown(line, 60)


def _clean_id(value: str | None) -> str | None:
    """An id fit to echo in a result line (printable ASCII), else None."""
    if value and value.isascii() and value.isprintable():
        return value
    return None


def _lines(chunk: str) -> list[str]:
    """Content lines: split on LF, one CR before it dropped, spaces and tabs trimmed."""
    return [(raw[:-1] if raw.endswith("\r") else raw).strip(_WS) for raw in chunk.split("\n")]


def _recover_id(lines: list[str]) -> str | None:
    """The value of the first ``id:`` line, for errors in blocks that never parsed."""
    for line in lines:
        if line.startswith("id"):
            match = _KEY_VALUE.fullmatch(line)
            if match and match.group(1) == "id":
                return _clean_id(match.group(2))
    return None


def _not_alone(line: str) -> str:
    line = line.rstrip("\r").strip(_WS)
    token = "END_OPERATOR_CMD" if line.startswith(_END_PREFIX) else _TOKEN
    return f"line '{_quote(line)}' must be only {token}."


def _markers(text: str) -> list[tuple[int, int, str, bool]]:
    """Every marker line: (line start offset, line end offset, START|END, alone).

    Linear in the text: each line's lead is looked at once, for the first token on it.
    """
    found: list[tuple[int, int, str, bool]] = []
    find, rfind = text.find, text.rfind
    pos = 0  # where the next search starts: after a prose token, or at a marker line's end
    while True:
        i = find(_TOKEN, pos)
        if i < 0:
            return found
        newline = rfind("\n", pos, i)
        if newline < 0 and pos > 0:
            pos = i + _TOKEN_LEN  # a second token on a prose line
            continue
        line_start = newline + 1
        kind = START
        if line_start != i:  # something before the token: END_ and/or indentation, or prose
            lead = text[line_start:i]
            if lead.endswith(_END_PREFIX):
                kind, lead = END, lead[:-4]
            if lead.strip(_WS):
                pos = i + _TOKEN_LEN  # mentioned in prose, not a marker line
                continue
        after = i + _TOKEN_LEN
        line_end = find("\n", after)
        if line_end < 0:
            line_end = len(text)
        alone = line_end == after or not text[after:line_end].removesuffix("\r").strip(_WS)
        found.append((line_start, line_end, kind, alone))
        pos = line_end


class _Scan:
    """One pass over one text; see the module docstring."""

    def __init__(self, seen: dict[str, str]) -> None:
        self.seen = seen
        self.items: list[Command | ScanError] = []
        self.skipped: list[str] = []
        self.state = OUTSIDE
        self.block_line = 0  # line number of the open block's START marker
        self.block_chunk = ""  # the block's content lines, as they are in the text
        self.block_has_lines = False
        self.block_pairs: list[tuple[str, str]] | None = None  # set when every line is key: value

    # --- content lines ---------------------------------------------------------------------
    def feed(self, chunk: str) -> None:
        """The open block's content: every line between its START and the next marker."""
        n_lines = chunk.count("\n") + 1
        flat = chunk
        if "\r" in chunk:  # CRLF lines (the last one has no LF here); a lone CR stays
            flat = chunk.replace("\r\n", "\n").removesuffix("\r")
        # The untrimmed length bounds the trimmed one; a key: value line is never blank.
        if n_lines <= MAX_BLOCK_LINES and len(chunk) < MAX_BLOCK_CHARS and "\r" not in flat:
            pairs = _KV_LINES.findall(flat)
            if len(pairs) == n_lines:
                self.block_chunk, self.block_has_lines, self.block_pairs = chunk, True, pairs
                return
        chars = 0
        lines = _lines(chunk)
        for count, line in enumerate(lines, 1):
            if not line:
                message = "empty line inside OPERATOR_CMD."
                self.block_error(codes.ERR_EMPTY_LINE_IN_CMD, message, lines[: count - 1])
                return
            chars += len(line) + 1
            if count > MAX_BLOCK_LINES:
                message = f"too many lines (>{MAX_BLOCK_LINES})."
                self.block_error(codes.ERR_BLOCK_TOO_LARGE, message, lines[:count])
                return
            if chars > MAX_BLOCK_CHARS:
                message = f"too many characters (>{MAX_BLOCK_CHARS})."
                self.block_error(codes.ERR_BLOCK_TOO_LARGE, message, lines[:count])
                return
        self.block_chunk, self.block_has_lines = chunk, True

    def block_error(self, code: str, message: str, lines: list[str] | None = None) -> None:
        """Discard the open block; its id comes from ``lines`` (default: all lines read)."""
        self.items.append(self._error(code, message, lines))
        self.state = OUTSIDE

    # --- transitions -----------------------------------------------------------------------
    def open_block(self, line_no: int, line: str) -> None:
        self.state = INSIDE
        self.block_line = line_no
        self.block_chunk = ""
        self.block_has_lines = False
        self.block_pairs = None

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
        item = self.finalize()
        if item is not None:
            self.items.append(item)

    # --- a complete block ------------------------------------------------------------------
    def finalize(self) -> Command | ScanError | None:
        chunk = self.block_chunk if self.block_has_lines else ""
        if not chunk.isascii():
            message = "non-ASCII character detected in command block."
            return self._error(codes.ERR_NON_ASCII_IN_CMD, message)
        pairs = self.block_pairs if self.block_has_lines else []
        fields = dict(pairs or ())
        if pairs is None or len(fields) != len(pairs):
            # Not every line matched the fast pattern, or a key repeats: find out exactly.
            lines = _lines(chunk)
            fault = _line_fault(lines)
            if fault is not None:
                return self._error(*fault, lines)
            fields = {m[1]: m[2] for m in map(_KEY_VALUE.fullmatch, lines) if m}
        try:
            command_id, action, path, params = validate_fields(fields)
        except OperatorError as exc:
            return ScanError(exc.code, exc.message, _clean_id(fields.get("id")), self.block_line)
        canonical = "\n".join(sorted(map(": ".join, fields.items())))
        claimed = self.seen.get(command_id)
        if claimed is None:
            self.seen[command_id] = canonical
        elif claimed == canonical:
            self.skipped.append(command_id)
            return None
        else:
            message = (
                f"duplicate id with differing content: {_quote(command_id)}; "
                "use a new id for a new command."
            )
            return ScanError(
                codes.ERR_DUPLICATE_ID, message, _clean_id(command_id), self.block_line
            )
        return Command(
            id=command_id,
            action=action,
            path=path,
            line=self.block_line,
            fields=fields,
            params=params,
        )

    def _error(self, code: str, message: str, lines: list[str] | None = None) -> ScanError:
        if lines is None:
            lines = _lines(self.block_chunk) if self.block_has_lines else []
        return ScanError(code, message, _recover_id(lines), self.block_line)


def _line_fault(lines: list[str]) -> tuple[str, str] | None:
    """The first line-level fault of a block, in line order, after the per-key faults."""
    seen: dict[str, str] = {}
    duplicate: str | None = None
    previous_key = ""
    for line in lines:
        match = _KEY_VALUE.fullmatch(line)
        if match is None:
            if previous_key == "content":
                return codes.ERR_CONTENT_HAS_NEWLINES, _CONTENT_NL
            message = f"line '{_quote(line)}' is not key: value."
            if previous_key.endswith("_b64"):
                message = message[:-1] + f" ({previous_key} must be one line, without breaks)."
            return codes.ERR_NON_KEY_VALUE_LINE, message
        key, value = match.groups()
        if "\r" in value:
            message = _CONTENT_NL if key == "content" else f"{key} contains a line break."
            return codes.ERR_CONTENT_HAS_NEWLINES, message
        if seen.setdefault(key, value) != value and duplicate is None:
            duplicate = key
        previous_key = key
    if duplicate is not None:
        return codes.ERR_DUPLICATE_KEY, f"key '{duplicate}' appears twice with different values."
    return None


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
    state = _Scan({} if seen is None else seen)
    line_no, counted_to, content_from = 1, 0, 0
    for line_start, line_end, kind, alone in _markers(text):
        line_no += text.count("\n", counted_to, line_start)
        counted_to = line_start
        if state.state == INSIDE and line_start > content_from:
            state.feed(text[content_from : line_start - 1])
        line = text[line_start:line_end]
        _TRANSITIONS[state.state, kind, alone](state, line_no, line)
        content_from = line_end + 1
    if state.state == INSIDE:
        rest = text[content_from:]
        if rest:  # at least one line; the final line terminator is not an empty line
            state.feed(rest[:-1] if rest.endswith("\n") else rest)
        if state.state == INSIDE:
            state.block_error(
                codes.ERR_MISSING_END_MARKER, "reached end of text without END_OPERATOR_CMD."
            )
    return ScanResult(tuple(state.items), tuple(state.skipped), truncated)
