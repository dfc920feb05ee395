"""The scanner's state machine: marker transitions, a block's checks, and the fold rule.

``_scanner.scan`` finds the marker lines and feeds them here; the rules are described in
``_scanner``'s docstring. Everything that turns one finished block into a ``Command`` or a
``ScanError`` lives here too.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from . import codes
from ._cells import actions_of
from ._errors import OperatorError, shown
from ._models import Command, ScanError, new_command
from ._spec import MAX_BLOCK_CHARS, MAX_BLOCK_LINES
from ._validate import check_fields

_TOKEN = "OPERATOR_CMD"
_END_PREFIX = "END_"
_WS = " \t"
_KEY_VALUE = re.compile(r"([A-Za-z0-9_.-]+)[ \t]*:[ \t]*(.*)")
# Whole-chunk forms of the per-line rules, so a well-formed block costs a few C calls. Any
# chunk they do not clear takes the exact per-line path, which finds and words the error.
# Used only on chunks without CR. The value is greedy up to its last non-blank character:
# a lazy value, or a [^\r\n] class, is 5-50 times slower on a long base64 line.
# Possessive where giving back never helps (blanks, the key, the blanks at the end).
_KV_LINES = re.compile(
    r"^[ \t]*+([A-Za-z0-9_.-]++)[ \t]*+:[ \t]*+((?:.*[^ \t])?)[ \t]*+$", re.M
)
# A block as models write it, START line to END line: both markers with nothing around them,
# then 1 to 200 lines ``key:value`` (no blank before the colon or at the end of the line).
# What it leaves to check (CR, non-ASCII, a marker token, a repeated key, the 50,000 characters)
# is cheap; anything it does not match takes the exact per-line path. Every optional blank
# the rules allow would be a repeat in the pattern for every line, and costs more than the
# pattern without them; the end of a line is checked by looking back one character, which
# costs nothing on the way, where a last-character class makes the line's run step back. The
# quantifiers are possessive: giving back never helps a match here (no key holds ':', a line
# ends only at LF, a line of fields never starts an END line), and not keeping the positions
# to give back makes the pattern a quarter faster on small blocks.
_BLOCK = re.compile(
    r"OPERATOR_CMD\n((?:[A-Za-z0-9_.-]++:.*+(?<![ \t])\n){1,200}+)END_OPERATOR_CMD(?:\n|\Z)"
)
# The fields of a block ``_BLOCK`` cleared: every line ``key:value`` from its start,
# the value never ending in a blank, so one match per line and no trimming.
_KV_CLEARED = re.compile(r"([A-Za-z0-9_.-]++):[ \t]*+(.*+)\n")

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


class _Scan:
    """One pass over one text; see the module docstring."""

    def __init__(self, seen: dict[str, dict[str, str]], extensions: tuple[str, ...] = ()) -> None:
        self.seen = seen
        self.extensions = extensions
        self.host_actions = actions_of(extensions)
        self.first_error = -1  # index in items; the items before it need no folding
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
        self.add(self._error(code, message, lines))
        self.state = OUTSIDE

    # --- transitions -----------------------------------------------------------------------
    def open_block(self, line_no: int, line: str) -> None:
        self.state = INSIDE
        self.block_line = line_no
        self.block_chunk = ""
        self.block_has_lines = False
        self.block_pairs = None

    def not_alone_outside(self, line_no: int, line: str) -> None:
        self.add(ScanError(codes.ERR_MARKER_NOT_ALONE, _not_alone(line), None, line_no))

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

    def take_blocks(self, text: str, pos: int, line_no: int) -> tuple[int, int]:
        """Well-formed blocks from the START line at ``pos`` on, while they follow each other.

        Returns where the next line starts and its number; ``pos`` when no block was taken.
        Outside a block only. ``_BLOCK`` leaves four faults to check: a marker line with the
        shape of a field (``OPERATOR_CMD: x``), which sends the block to the per-line path
        (so does any mention of the token), and a key given twice, CR or non-ASCII, which go
        to ``finalize`` to be worded exactly. One loop with its names bound once, because
        a Python call per block is a good part of the cost of a small block.
        """
        block, findall, check = _BLOCK.match, _KV_CLEARED.findall, check_fields
        seen, host_actions, append = self.seen, self.host_actions, self.items.append
        while (match := block(text, pos)) is not None:
            content = match[1]  # ends with LF
            if len(content) > MAX_BLOCK_CHARS or _TOKEN in content:
                break
            pairs = findall(content)
            fields = dict(pairs)
            if len(fields) != len(pairs) or "\r" in content or not content.isascii():
                self.block_line = line_no
                self.block_chunk, self.block_has_lines = content[:-1], True
                self.add(self.finalize(content[:-1], None if "\r" in content else pairs))
            else:
                try:
                    command_id, action, path, params = check(fields, host_actions)
                except OperatorError as exc:
                    fault = ScanError(exc.code, exc.message, _clean_id(fields.get("id")), line_no)
                    self.add(fault)
                else:
                    if command_id in seen:
                        self.add(self.claimed(command_id, fields, line_no))
                    else:
                        # A copy: dict equality ignores key order, so it is the canonical form.
                        seen[command_id] = fields.copy()
                        append(new_command(command_id, action, path, line_no, fields, params))
            line_no += len(pairs) + 2
            pos = match.end()
        return pos, line_no

    def run(self, line_no: int, line: str, kind: str, alone: bool, count: int) -> None:
        """``count`` identical marker lines from ``line_no``, applied at once.

        The first line takes its usual transition. After a START alone, every further line
        finds an empty open block: nested, then opens its own. After a marker that is not
        alone, every further line is not alone outside a block. Further END lines are stray.
        """
        _TRANSITIONS[self.state, kind, alone](self, line_no, line)
        rest = count - 1
        if kind == START and alone:
            self.add(_ErrorRun(codes.ERR_NESTED_BLOCK, _NESTED, None, line_no, rest))
            self.open_block(line_no + rest, line)
        elif not alone:
            message = _not_alone(line)
            self.add(_ErrorRun(codes.ERR_MARKER_NOT_ALONE, message, None, line_no + 1, rest))

    def add(self, item: Command | ScanError | _ErrorRun | None) -> None:
        if item is not None:
            if type(item) is not Command and self.first_error < 0:
                self.first_error = len(self.items)
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
        return self.command(fields, self.block_line)

    def command(self, fields: dict[str, str], line: int) -> Command | ScanError | None:
        """The fields of a block on ``line`` that passed the line checks: validated, id claimed."""
        try:
            command_id, action, path, params = check_fields(fields, self.host_actions)
        except OperatorError as exc:
            return ScanError(exc.code, exc.message, _clean_id(fields.get("id")), line)
        if command_id in self.seen:
            return self.claimed(command_id, fields, line)
        # A copy: dict equality ignores key order, so it is the canonical form as it is.
        self.seen[command_id] = fields.copy()
        return new_command(command_id, action, path, line, fields, params)

    def claimed(self, command_id: str, fields: dict[str, str], line: int) -> ScanError | None:
        """A block whose id an earlier command claimed: skipped when identical, else an error."""
        if self.seen[command_id] == fields:
            self.skipped.append(command_id)
            return None
        message = (
            f"duplicate id with differing content: {_quote(command_id)}; "
            "use a new id for a new command."
        )
        return ScanError(codes.ERR_DUPLICATE_ID, message, _clean_id(command_id), line)

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
