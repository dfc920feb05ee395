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

Speed (``bench/scan.py`` times it against the reference app's scanner):

- Marker lines are found with ``str.find``; a line whose first token follows prose is skipped
  to its end at once, so a line that mentions the token thousands of times costs one search.
- A well-formed block (no CR, every line ``key: value``, an unindented END line) is taken whole
  at its START line: one search for the END line, one for a stray marker token, one pattern for
  the fields (``_whole_block``); anything else goes through the exact per-line path, which finds
  and words the first fault.
- A marker line repeated on the lines right after it is counted with one regular-expression
  match (``_REPEATS``) and its transitions applied once for the whole run.
- Folding: a run of ``FOLD_MIN`` or more errors with the same code, message and id, each on the
  line right after the previous one (only marker errors can be: nested or not-alone markers), is
  reported as one error whose message says how many lines it stands for. ``_fold`` applies the
  rule to the items whichever way they were found.

The tests compare the scanner with a plain per-line reference implementation of these rules.

A finished block is checked in this order: ASCII only, every line ``key: value``
(a stray line right after ``content:``, or a CR in a value, is ``ERR_CONTENT_HAS_NEWLINES``),
no key repeated with a different value, then ``_validate.validate_fields``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from . import codes
from ._cells import check_extensions
from ._errors import OperatorError, shown
from ._models import Command, ScanError, ScanResult
from ._spec import MAX_BLOCK_CHARS, MAX_BLOCK_LINES, MAX_SCAN_CHARS
from ._validate import validate_fields

_TOKEN = "OPERATOR_CMD"
_TOKEN_LEN = len(_TOKEN)
_END_LINE = "\nEND_OPERATOR_CMD"
_END_PREFIX = "END_"
_WS = " \t"
_KEY_VALUE = re.compile(r"([A-Za-z0-9_.-]+)[ \t]*:[ \t]*(.*)")
# Whole-chunk forms of the per-line rules, so a well-formed block costs a few C calls. Any
# chunk they do not clear takes the exact per-line path, which finds and words the error.
# Used only on chunks without CR. The value is greedy up to its last non-blank character:
# a lazy value, or a [^\r\n] class, is 5-50 times slower on a long base64 line.
_KV_LINES = re.compile(r"^[ \t]*([A-Za-z0-9_.-]+)[ \t]*:[ \t]*((?:.*[^ \t])?)[ \t]*$", re.M)

# A line followed by one or more exact copies of itself.
_REPEATS = re.compile(r"([^\n]*\n)(?:\1)+")
FOLD_MIN = 10  # errors in a run before they are folded into one result

START, END = "START", "END"
OUTSIDE, INSIDE = "outside", "inside"
_CONTENT_NL = "content contains newline; use content_b64."
_NESTED = "OPERATOR_CMD started before END_OPERATOR_CMD."


@dataclass(frozen=True, slots=True)
class _ErrorRun:
    """``count`` equal errors on consecutive lines from ``line`` (expanded or folded later)."""

    code: str
    message: str
    id: str | None
    line: int
    count: int


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


def _whole_block(text: str, start_end: int) -> tuple[str, list[tuple[str, str]], int] | None:
    """A well-formed block after the START line that ends at ``start_end``, else None.

    Well-formed: an unindented END line alone, no marker token and no CR before it, and every
    line ``key: value`` within the block limits. Returns (content, pairs, end of the END line).
    Anything else is left to the per-line path.
    """
    end = text.find(_END_LINE, start_end)
    if end <= start_end or text[start_end - 1] == "\r" or text.find(_TOKEN, start_end, end) >= 0:
        return None
    after = end + len(_END_LINE)
    end_line = text.find("\n", after)
    if end_line < 0:
        end_line = len(text)
    if after != end_line and text[after:end_line].strip(_WS):
        return None  # not alone, or CRLF
    content = text[start_end + 1 : end]
    lines = content.count("\n") + 1
    if lines > MAX_BLOCK_LINES or len(content) >= MAX_BLOCK_CHARS or "\r" in content:
        return None
    pairs = _KV_LINES.findall(content)
    return (content, pairs, end_line) if len(pairs) == lines else None


class _Scan:
    """One pass over one text; see the module docstring."""

    def __init__(self, seen: dict[str, str], extensions: tuple[str, ...] = ()) -> None:
        self.seen = seen
        self.extensions = extensions
        self.items: list[Command | ScanError | _ErrorRun] = []
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
        self.block_error(codes.ERR_NESTED_BLOCK, _NESTED)
        self.open_block(line_no, line)

    def ignore(self, line_no: int, line: str) -> None:
        pass

    def finish(self, line_no: int, line: str) -> None:
        self.state = OUTSIDE
        if self.block_has_lines:
            self.add(self.finalize(self.block_chunk, self.block_pairs))
        else:
            self.add(self.finalize("", []))

    def finish_whole(self, line_no: int, content: str, pairs: list[tuple[str, str]]) -> None:
        """A block found whole by ``_whole_block``."""
        self.block_line = line_no
        self.block_chunk, self.block_has_lines = content, True
        self.add(self.finalize(content, pairs))

    def run(self, line_no: int, line: str, kind: str, alone: bool, count: int) -> None:
        """``count`` identical marker lines from ``line_no``, applied at once.

        The first line takes its usual transition. After a START alone, every further line
        finds an empty open block: nested, then opens its own. After a marker that is not
        alone, every further line is not alone outside a block. Further END lines are stray.
        """
        _TRANSITIONS[self.state, kind, alone](self, line_no, line)
        rest = count - 1
        if kind == START and alone:
            self.items.append(_ErrorRun(codes.ERR_NESTED_BLOCK, _NESTED, None, line_no, rest))
            self.open_block(line_no + rest, line)
        elif not alone:
            message = _not_alone(line)
            self.items.append(
                _ErrorRun(codes.ERR_MARKER_NOT_ALONE, message, None, line_no + 1, rest)
            )

    def add(self, item: Command | ScanError | None) -> None:
        if item is not None:
            self.items.append(item)

    # --- a complete block ------------------------------------------------------------------
    def finalize(
        self, chunk: str, pairs: list[tuple[str, str]] | None
    ) -> Command | ScanError | None:
        """Validate a complete block; ``pairs`` is None unless every line matched ``_KV_LINES``."""
        if not chunk.isascii():
            message = "non-ASCII character detected in command block." + _non_ascii_fix(chunk)
            return self._error(codes.ERR_NON_ASCII_IN_CMD, message)
        fields = dict(pairs or ())
        if pairs is None or (len(fields) != len(pairs) and len(set(pairs)) != len(fields)):
            # Not every line matched the fast pattern, or a key repeats with another value:
            # find the first fault exactly.
            lines = _lines(chunk)
            fault = _line_fault(lines)
            if fault is not None:
                return self._error(*fault, lines)
            fields = {m[1]: m[2] for m in map(_KEY_VALUE.fullmatch, lines) if m}
        try:
            command_id, action, path, params = validate_fields(fields, self.extensions)
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


def _fold(items: list[Command | ScanError | _ErrorRun]) -> list[Command | ScanError]:
    """Apply the fold rule (module docstring) and expand the runs found as runs."""
    merged: list[Command | ScanError | _ErrorRun] = []
    for item in items:
        last = merged[-1] if merged else None
        if (
            isinstance(item, (ScanError, _ErrorRun))
            and isinstance(last, (ScanError, _ErrorRun))
            and _run_key(last) == _run_key(item)
            and _run_end(last) == item.line
        ):
            count = _run_count(last) + _run_count(item)
            merged[-1] = _ErrorRun(last.code, last.message, last.id, last.line, count)
        else:
            merged.append(item)
    out: list[Command | ScanError] = []
    for item in merged:
        if not isinstance(item, _ErrorRun):
            out.append(item)
        elif item.count >= FOLD_MIN:
            last_line = item.line + item.count - 1
            message = (
                f"{item.message} The same error is on each of the next {item.count - 1} lines "
                f"(to line {last_line}): {item.count} errors folded into this result."
            )
            out.append(ScanError(item.code, message, item.id, item.line))
        else:
            out.extend(
                ScanError(item.code, item.message, item.id, item.line + k)
                for k in range(item.count)
            )
    return out


def _run_key(item: ScanError | _ErrorRun) -> tuple[str, str, str | None]:
    return item.code, item.message, item.id


def _run_count(item: ScanError | _ErrorRun) -> int:
    return item.count if isinstance(item, _ErrorRun) else 1


def _run_end(item: ScanError | _ErrorRun) -> int:
    return item.line + _run_count(item)


_CURLY = {0x2018, 0x2019, 0x201C, 0x201D}


def _non_ascii_fix(chunk: str) -> str:
    """Where the first non-ASCII character is, and the fix (curly quotes: none are needed)."""
    for number, line in enumerate(chunk.split("\n"), 1):
        for char in line:
            if ord(char) > 127:
                fix = ("values are never quoted: remove the quotes" if ord(char) in _CURLY
                       else "put text in content_b64 (base64 of UTF-8)")  # fmt: skip
                return f" (line {number + 1} of the block: U+{ord(char):04X}; {fix})"
    return ""


def scan(
    text: str, *, seen: dict[str, str] | None = None, max_chars: int = MAX_SCAN_CHARS,
    extensions: Iterable[str] = (),
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
    state = _Scan({} if seen is None else seen, check_extensions(extensions))
    line_no, counted_to, content_from, pos = 1, 0, 0, 0
    repeats = _REPEATS.match
    while (marker := _next_marker(text, pos)) is not None:
        line_start, line_end, kind, alone = marker
        line_no += text.count("\n", counted_to, line_start)
        counted_to = line_start
        if state.state == INSIDE:
            if line_start > content_from:
                state.feed(text[content_from : line_start - 1])
        elif kind == START and alone and (whole := _whole_block(text, line_end)):
            state.finish_whole(line_no, whole[0], whole[1])
            pos = content_from = whole[2] + 1
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
    return ScanResult(tuple(_fold(state.items)), tuple(state.skipped), truncated, unread)


def unread_markers(text: str, cut: int) -> int:
    """How many ``OPERATOR_CMD`` begin markers start in ``text[:cut]`` (the part not scanned).

    Every mention of the token that is not part of ``END_OPERATOR_CMD``, counted with two
    ``str.count`` calls on the cut part only (a marker cut in half counts): the scan itself is
    untouched. A mention in prose counts too, so the number is an upper bound.
    """
    span = cut + len(_TOKEN) - 1  # tokens that start before the cut
    return text.count(_TOKEN, 0, span) - text.count("END_" + _TOKEN, 0, span)
