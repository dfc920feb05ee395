"""Response text: ``re: [id] /cmd``, a system message, and ``---`` plus content when there is any.

Errors are ``ERROR(CODE): message`` with no ``---``. Everything shown is made one-line-safe or
visible: a file name or a command line can never add a line of its own or hide characters.
"""

from __future__ import annotations

import unicodedata

SEPARATOR = "---"
ECHO_LIMIT = 200
PREVIEW_LINES = 8

# Characters that change how text reads without being seen (bidi controls, zero-width).
_INVISIBLE = {
    0x200B,
    0x200C,
    0x200D,
    0x2060,
    0xFEFF,
    *range(0x202A, 0x202F),
    *range(0x2066, 0x206A),
}


def visible(text: str) -> str:
    """``text`` with control and invisible characters spelled out (``\\u202e``).

    Newlines and tabs are kept.
    """
    out = []
    for c in text:
        code = ord(c)
        if c in "\n\t" or (code >= 0x20 and code != 0x7F and code not in _INVISIBLE
                            and unicodedata.category(c) not in ("Cc", "Cs")):  # fmt: skip
            out.append(c)
        else:
            out.append(f"\\u{code:04x}")
    return "".join(out)


def one_line(text: str, limit: int = ECHO_LIMIT) -> str:
    """A single visible line, cut at ``limit`` characters."""
    flat = visible(text.replace("\t", " ").replace("\n", "\\n"))
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def header(request_id: str, echo: str) -> str:
    """``re: [003qm] /open hello.md``."""
    return f"re: [{request_id}] {one_line(echo)}"


def body(system: str, content: str | None = None) -> str:
    """The system message, and ``---`` plus content when there is content."""
    if content is None:
        return system
    return f"{system}\n{SEPARATOR}\n{content.rstrip(chr(10))}"


def error_body(code: str, message: str) -> str:
    """``ERROR(CODE): message`` (no separator, no content)."""
    return f"ERROR({code}): {one_line(message, 1000)}"


def response(request_id: str, echo: str, text: str) -> str:
    """The full response: header line, then the body."""
    return f"{header(request_id, echo)}\n{text}"


def numbered(lines: list[str], first: int = 1) -> str:
    """Source lines with their numbers: ``  12 | text``."""
    width = max(4, len(str(first + len(lines) - 1)))
    return "\n".join(f"{n:>{width}} | {visible(line)}" for n, line in enumerate(lines, first))


def preview(lines: list[str], limit: int = PREVIEW_LINES) -> str:
    """The first ``limit`` lines and how many more there are."""
    shown = [visible(line) for line in lines[:limit]]
    if len(lines) > limit:
        shown.append(f"... ({len(lines) - limit} more lines)")
    return "\n".join(shown) if shown else "(empty block)"


def readable(text: str) -> str:
    """A Markdown (or any text) document as readable text for a model: the source itself,
    with CRLF made LF, invisible characters spelled out and runs of blank lines shortened."""
    out: list[str] = []
    blank = 0
    for line in text.replace("\r\n", "\n").split("\n"):
        line = visible(line.rstrip())
        blank = blank + 1 if not line else 0
        if blank <= 1:
            out.append(line)
    return "\n".join(out).strip("\n") or "(empty document)"


def count_lines(text: str) -> int:
    """Lines of a text (a final newline does not start another line)."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def plural(n: int, word: str, words: str | None = None) -> str:
    """``1 line``, ``2 lines``; ``words`` for an irregular plural."""
    return f"{n} {word if n == 1 else (words or word + 's')}"
