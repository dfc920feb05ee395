"""``fs.applyEdits``: literal edits applied in order to the text in memory.

All edits run against the result of the previous one; the first that fails aborts the whole
command (nothing is written) and its 0-based index is named in the message. Error codes:

- ``ERR_ANCHOR_NOT_FOUND``: an ``insertAfter``/``insertBefore`` anchor (or its requested
  occurrence), or a ``replaceFirst``/``replaceAll`` find text, is not in the file.
- ``ERR_INVALID_EDITS_JSON``: a ``replaceRange`` outside the file's lines, an empty anchor or
  find text, an unknown op or a missing field.
- ``ERR_RESULT_TOO_LARGE``: an edit would make the text larger than the limit (16 MiB of UTF-8
  by default). Each edit checks the size it would reach before building the larger text, so a
  chain of ``replaceAll`` edits never allocates past the limit.

Semantics (byte-exact; untouched lines stay byte-identical):

- ``insertAfter``: text goes right after the occurrence-th non-overlapping match. When the
  anchor ends a line (or the file) and the text does not start with a newline, the file's own
  newline is put first, so ``Alpha`` + ``X`` gives ``Alpha\\nX`` (``\\r\\n`` in a CRLF file).
- ``insertBefore``: text goes right before the match.
- ``replaceFirst``: replaces the first occurrence only (more occurrences are fine).
- ``replaceAll``: replaces every occurrence; zero occurrences fail.
- ``replaceRange``: replaces lines ``start_line``..``end_line`` (1-based, inclusive; the empty
  phantom line after a final newline does not count). The new lines use the replaced lines'
  ending, one trailing newline of ``text`` just ends its last line, and the last replaced line's
  ending (none at end of file without a final newline) is kept. Empty text deletes the lines
  (the line before keeps its own ending).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from jupyter_operator.protocol import OperatorError, codes

from .budget import MAX_PLANNED_BYTES, SizeBudget, utf8_len
from .near import closest_line
from .text import newline_of, split_lines


def _get(edit: Any, name: str, alt: str | None = None) -> Any:
    """A field of an edit given as a protocol model or as a plain dict."""
    if isinstance(edit, dict):
        if name in edit:
            return edit[name]
        return edit.get(alt) if alt else None
    value = getattr(edit, name, None)
    if value is None and alt:
        value = getattr(edit, alt, None)
    return value


def _find_nth(text: str, needle: str, occurrence: int) -> int:
    """Start of the occurrence-th non-overlapping match, or -1."""
    pos = -1
    start = 0
    for _ in range(max(occurrence, 1)):
        pos = text.find(needle, start)
        if pos < 0:
            return -1
        start = pos + len(needle)
    return pos


def _bad(i: int, message: str) -> OperatorError:
    return OperatorError(codes.ERR_INVALID_EDITS_JSON, f"edit {i}: {message}")


def _missing(i: int, message: str) -> OperatorError:
    return OperatorError(codes.ERR_ANCHOR_NOT_FOUND, f"edit {i}: {message}")


def _text_field(edit: Any, i: int, name: str) -> str:
    value = _get(edit, name)
    if not isinstance(value, str):
        raise _bad(i, f"'{name}' must be a string")
    return value


def _insert(text: str, edit: Any, i: int, after: bool, budget: SizeBudget) -> str:
    anchor = _text_field(edit, i, "anchor")
    new = _text_field(edit, i, "text")
    if not anchor:
        raise _bad(i, "empty anchor")
    occurrence = _get(edit, "occurrence") or 1
    if not isinstance(occurrence, int) or occurrence < 1:
        raise _bad(i, "occurrence must be an integer >= 1")
    pos = _find_nth(text, anchor, occurrence)
    if pos < 0:
        what = "anchor" if occurrence == 1 else f"occurrence {occurrence} of the anchor"
        hint = closest_line(text, anchor) if occurrence == 1 else ""
        raise _missing(i, f"{what} not found{hint}")
    if not after:
        budget.grow(utf8_len(new))
        return text[:pos] + new + text[pos:]
    end = pos + len(anchor)
    if "\n" not in anchor and not new.startswith(("\n", "\r\n")):
        if text.startswith("\r\n", end):
            new = "\r\n" + new
        elif text.startswith("\n", end) or end == len(text):
            new = (newline_of(text) if end == len(text) else "\n") + new
    budget.grow(utf8_len(new))
    return text[:end] + new + text[end:]


def _replace(text: str, edit: Any, i: int, every: bool, budget: SizeBudget) -> str:
    find = _text_field(edit, i, "find")
    new = _text_field(edit, i, "text")
    if not find:
        raise _bad(i, "empty find text")
    pos = text.find(find)
    if pos < 0:
        raise _missing(i, f"find text not found{closest_line(text, find)}")
    # The size is checked before the new text exists: replaceAll multiplies.
    delta = utf8_len(new) - utf8_len(find)
    if every:
        budget.grow(text.count(find) * delta)
        return text.replace(find, new)
    budget.grow(delta)
    return text[:pos] + new + text[pos + len(find) :]


def _replace_range(text: str, edit: Any, i: int, budget: SizeBudget) -> str:
    start = _get(edit, "start_line", "startLine")
    end = _get(edit, "end_line", "endLine")
    new = _text_field(edit, i, "text")
    if not isinstance(start, int) or not isinstance(end, int) or isinstance(start, bool):
        raise _bad(i, "start_line and end_line must be integers")
    lines = split_lines(text)
    if start < 1 or end < start:
        raise _bad(i, f"invalid range {start}-{end}")
    if end > len(lines):
        raise _bad(i, f"range {start}-{end} is past the end of the file ({len(lines)} lines)")
    nl = lines[start - 1][1] or newline_of(text)
    last_ending = lines[end - 1][1]
    if new.endswith("\r\n"):
        new = new[:-2]
    elif new.endswith("\n"):
        new = new[:-1]
    repl: list[tuple[str, str]] = []
    if new or new_is_one_empty_line(edit):
        parts = [p[:-1] if p.endswith("\r") else p for p in new.split("\n")]
        repl = [(p, nl) for p in parts]
        repl[-1] = (repl[-1][0], last_ending)
    removed = sum(utf8_len(c) + len(e) for c, e in lines[start - 1 : end])
    budget.grow(sum(utf8_len(c) + len(e) for c, e in repl) - removed)
    out = lines[: start - 1] + repl + lines[end:]
    return "".join(c + e for c, e in out)


def new_is_one_empty_line(edit: Any) -> bool:
    """``text`` of exactly one newline means "one empty line", not "delete the lines"."""
    value = _get(edit, "text")
    return value in ("\n", "\r\n")


def apply_edits(text: str, edits: Iterable[Any], *, limit: int = MAX_PLANNED_BYTES) -> str:
    """Apply edits (protocol edit models, or dicts with the same field names) in order.

    Raises ``OperatorError`` naming the 0-based index of the first edit that fails, or
    ``ERR_RESULT_TOO_LARGE`` before an edit would make the text larger than ``limit`` bytes.
    """
    budget = SizeBudget(text, limit)
    for i, edit in enumerate(edits):
        op = _get(edit, "op")
        try:
            if op == "insertAfter":
                text = _insert(text, edit, i, True, budget)
            elif op == "insertBefore":
                text = _insert(text, edit, i, False, budget)
            elif op == "replaceFirst":
                text = _replace(text, edit, i, False, budget)
            elif op == "replaceAll":
                text = _replace(text, edit, i, True, budget)
            elif op == "replaceRange":
                text = _replace_range(text, edit, i, budget)
            else:
                raise _bad(i, f"unknown op {op!r}")
        except OperatorError as exc:
            if exc.code != codes.ERR_RESULT_TOO_LARGE:
                raise
            raise OperatorError(exc.code, f"edit {i}: {exc.message}") from None
    return text
