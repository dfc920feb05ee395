"""A unified diff as HTML rows: old and new line numbers, a sign, syntax-coloured content.

The same look as the JupyterLab panel: no ``---``/``+++`` headers, each hunk header becomes a
fold row ("12 unchanged lines"), added and removed lines are tinted, and the code is coloured
by pygments' lexer for the file's name. Every piece of content is escaped, and invisible or
control characters become visible ``<U+XXXX>`` marks.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from typing import Any

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
#: One private-use character stands for each invisible character while lexing; the originals
#: are put back, as marks, in order (one character cannot be split between two tokens).
_SLOT = "\ue000"
#: Above this many characters the text is shown uncoloured: some lexers' patterns slow down badly
#: on long lines (minified files, data), and a card must stay quick to draw.
COLOUR_LIMIT = 100_000
LINE_COLOUR_LIMIT = 2_000


@lru_cache(maxsize=64)
def _lexer(suffix: str) -> Any:
    from pygments.lexers import TextLexer, get_lexer_for_filename
    from pygments.util import ClassNotFound

    try:
        return get_lexer_for_filename(f"x{suffix}", stripnl=False, ensurenl=False)
    except ClassNotFound:
        return TextLexer(stripnl=False, ensurenl=False)


@lru_cache(maxsize=1)
def _token_classes() -> list[tuple[Any, str]]:
    from pygments.token import Comment, Keyword, Name, Number, Operator, String

    return [
        (Comment, "jpo-tc"), (Keyword, "jpo-tk"), (String, "jpo-ts"), (Number, "jpo-tm"),
        (Name.Function, "jpo-tf"), (Name.Class, "jpo-tf"), (Name.Builtin, "jpo-tb"),
        (Name.Decorator, "jpo-tb"), (Name.Tag, "jpo-tk"), (Name.Attribute, "jpo-tf"),
        (Operator.Word, "jpo-tk"),
    ]  # fmt: skip


@lru_cache(maxsize=1024)
def _css(token_type: Any) -> str | None:
    # Cached per token type (a lexer has a few dozen): the subtype tests took a third of the
    # time of colouring a diff.
    for base, css in _token_classes():
        if token_type in base:
            return css
    return None


def _suffix(path: str | None) -> str:
    name = (path or "").replace("\\", "/").rsplit("/", 1)[-1]
    return name[name.rfind(".") :].lower() if "." in name else ""


def highlight_lines(lines: list[str], path: str | None) -> list[str]:
    """Escaped, coloured HTML for each line (lexed together so strings and comments that span
    lines colour right)."""
    from .render import INVISIBLE, mark_code

    if not lines:
        return []
    originals: list[str] = []

    def to_slot(match: re.Match[str]) -> str:
        originals.append(match.group())
        return _SLOT

    text = INVISIBLE.sub(to_slot, "\n".join(lines)) + "\n"
    pending = iter(originals)
    plain = len(text) > COLOUR_LIMIT or max(map(len, lines)) > LINE_COLOUR_LIMIT
    lexer = _lexer("") if plain else _lexer(_suffix(path))
    # Per line, runs of (css class, escaped text); neighbouring tokens of one class share a span.
    runs: list[list[tuple[str | None, str]]] = [[]]
    for token_type, value in lexer.get_tokens(text):
        css = _css(token_type)
        for n, piece in enumerate(value.split("\n")):
            if n:
                runs.append([])
            if not piece:
                continue
            escaped = html.escape(piece, quote=True)
            if _SLOT in escaped:
                escaped = re.sub(_SLOT, lambda _m: mark_code(next(pending, "\ufffd")), escaped)
            line = runs[-1]
            if line and line[-1][0] == css:
                line[-1] = (css, line[-1][1] + escaped)
            else:
                line.append((css, escaped))
    out = [
        "".join(f'<span class="{css}">{text}</span>' if css else text for css, text in line)
        for line in runs
    ]
    return (out + [""] * len(lines))[: len(lines)]


def _row(kind: str, old: int | str, new: int | str, sign: str, code: str) -> str:
    return (
        f'<div class="jpo-row jpo-{kind}"><span class="jpo-ln">{old}</span>'
        f'<span class="jpo-ln">{new}</span><span class="jpo-sign">{sign}</span>'
        f'<span class="jpo-code">{code}</span></div>'
    )


def _fold(count: int) -> str:
    label = f"{count} unchanged line{'s' * (count != 1)}"
    return f'<div class="jpo-row jpo-fold"><span class="jpo-foldtext">&#8943; {label}</span></div>'


def diff_rows(lines: list[str], path: str | None) -> str:
    """The rows of the diff lines given (already cut to what is shown)."""
    body = [line for line in lines if not line.startswith(("--- ", "+++ "))]
    # Colour each side of the diff as one text: context and added lines (the new file), and
    # removed lines (the old one).
    new_side = [i for i, line in enumerate(body) if line[:1] in (" ", "+")]
    old_side = [i for i, line in enumerate(body) if line[:1] == "-"]
    coloured: dict[int, str] = {}
    for side in (new_side, old_side):
        for i, code in zip(side, highlight_lines([body[i][1:] for i in side], path), strict=True):
            coloured[i] = code
    rows: list[str] = []
    old_no = new_no = 0
    seen_old = 0  # last old line number shown, to count what a fold hides
    for i, line in enumerate(body):
        match = _HUNK.match(line)
        if match:
            old_no, new_no = int(match.group(1)), int(match.group(3))
            hidden = (old_no - 1 if match.group(2) != "0" else old_no) - seen_old
            if hidden > 0:
                rows.append(_fold(hidden))
            continue
        sign = line[:1]
        if sign == "+":
            rows.append(_row("add", "", new_no or "", "+", coloured.get(i, "")))
            new_no += 1
        elif sign == "-":
            rows.append(_row("del", old_no or "", "", "-", coloured.get(i, "")))
            seen_old = old_no
            old_no += 1
        elif sign == " ":
            rows.append(_row("ctx", old_no or "", new_no or "", " ", coloured.get(i, "")))
            seen_old = old_no
            old_no += 1
            new_no += 1
        else:  # "\ No newline at end of file" and anything unexpected, shown as a note
            from .render import escape

            rows.append(f'<div class="jpo-row jpo-meta">{escape(line)}</div>')
    return "".join(rows)
