"""The byte-exact text model (security rule D8) and the per-file line search.

``decode_text`` is strict UTF-8: no replacement characters ever reach the write path. A UTF-8
BOM is kept aside in :class:`TextFile` and put back by ``encode_text``. Line endings stay inside
the text exactly as they were; lines are split on ``\\n`` only (a ``\\r`` before it belongs to the
ending), never with ``str.splitlines`` (which also splits on VT, FF, U+2028 ...), so line numbers
agree with editors, diffs and ``fs.readSlice``.
"""

from __future__ import annotations

from dataclasses import dataclass

from jupyter_operator.protocol import OperatorError, codes

BOM = "\ufeff"
_BOM_BYTES = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class TextFile:
    """Decoded file text (line endings kept) and whether a UTF-8 BOM preceded it."""

    text: str
    bom: bool = False


def decode_text(data: bytes, path: str = "the file") -> TextFile:
    """Decode file bytes strictly as UTF-8.

    Raises ``OperatorError(ERR_NOT_UTF8)`` for invalid UTF-8 or a NUL byte (binary).
    """
    if b"\0" in data:
        raise OperatorError(codes.ERR_NOT_UTF8, f"{path} is a binary file (it contains NUL bytes)")
    bom = data.startswith(_BOM_BYTES)
    try:
        text = data[3:].decode("utf-8") if bom else data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise OperatorError(
            codes.ERR_NOT_UTF8, f"{path} is not valid UTF-8 (byte offset {exc.start})"
        ) from None
    return TextFile(text, bom)


def encode_text(tf: TextFile) -> bytes:
    """The exact bytes of ``tf`` (BOM first when it had one)."""
    data = tf.text.encode("utf-8")
    return _BOM_BYTES + data if tf.bom else data


def split_lines(text: str) -> list[tuple[str, str]]:
    """``(content, ending)`` per line; ending is ``"\\r\\n"``, ``"\\n"`` or ``""`` (last line only).

    A final newline does not create an empty phantom line: ``"a\\n"`` is one line.
    """
    out: list[tuple[str, str]] = []
    if not text:
        return out
    parts = text.split("\n")
    last = parts.pop()
    for part in parts:
        if part.endswith("\r"):
            out.append((part[:-1], "\r\n"))
        else:
            out.append((part, "\n"))
    if last:
        out.append((last, ""))
    return out


def join_lines(lines: list[tuple[str, str]]) -> str:
    """Inverse of :func:`split_lines`."""
    return "".join(c + e for c, e in lines)


def newline_of(text: str) -> str:
    """The file's own newline: the ending of its first line (``\\n`` for a one-line file)."""
    i = text.find("\n")
    return "\r\n" if i > 0 and text[i - 1] == "\r" else "\n"


def search_lines(text: str, query: str, limit: int = 50) -> tuple[list[tuple[int, str]], bool]:
    """Lines containing ``query`` (case-sensitive substring) as ``(1-based line, text)``.

    At most ``limit`` matches; ``truncated`` is true only when a further match exists.
    Text is returned without its line ending. The search runs over the whole buffer and line
    numbers are counted only up to each hit.
    """
    matches: list[tuple[int, str]] = []
    if not query:
        return matches, False
    find, count, rfind = text.find, text.count, text.rfind
    pos = find(query)
    line_no = 1
    counted_to = 0
    while pos >= 0:
        if len(matches) >= limit:
            return matches, True
        line_no += count("\n", counted_to, pos)
        start = rfind("\n", 0, pos) + 1
        end = find("\n", pos)
        if end < 0:
            end = len(text)
        line = text[start:end]
        matches.append((line_no, line[:-1] if line.endswith("\r") else line))
        counted_to = end
        pos = find(query, end)
    return matches, False
