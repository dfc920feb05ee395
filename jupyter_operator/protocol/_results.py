"""``OPERATOR_RESULT`` blocks: the text a model reads back.

Format (spec, "OPERATOR_RESULT FORMAT"), lines joined with ``\\n``, no trailing newline::

    OPERATOR_RESULT
    id: <id>
    ok: true|false
    summary: <one line of ASCII>
    details_b64: <standard base64 of UTF-8>      (only when there are details)
    END_OPERATOR_RESULT

Several results are separated by one blank line. ``details_b64`` is left out when there are
no details (``None``); empty details (an empty file) are written as ``details_b64: `` with
an empty value, so the model can tell the two apart and the round trip is exact.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace

from . import codes
from ._base64 import decode_b64_text, encode_b64_text
from ._errors import OperatorError, code_in_summary, fault_summary
from ._models import ScanError
from ._spec import MAX_SCAN_CHARS

_BEGIN, _END = "OPERATOR_RESULT", "END_OPERATOR_RESULT"


def sanitize_summary(text: str) -> str:
    """One line of printable ASCII: every other character becomes ``?``."""
    if text.isascii() and text.isprintable():
        return text
    return "".join(ch if ch.isascii() and ch.isprintable() else "?" for ch in text)


@dataclass(frozen=True, slots=True)
class Result:
    """The outcome of one command (or scan error), as the model will read it.

    ``summary`` is sanitised to one line of printable ASCII on construction; ``id`` must not
    contain a line break. ``code`` is the error code of a failure (``None`` when ``ok``); build
    failures with :meth:`failure` or :meth:`of_error` so summary and code always agree.
    """

    id: str
    ok: bool
    summary: str
    details: str | None = None
    code: str | None = None

    def __post_init__(self) -> None:
        if "\n" in self.id or "\r" in self.id:
            raise ValueError("a result id cannot contain a line break")
        if self.ok and self.code is not None:
            raise ValueError("a successful result has no error code")
        object.__setattr__(self, "summary", sanitize_summary(self.summary))

    @classmethod
    def failure(cls, id: str, code: str, message: str, details: str | None = None) -> Result:
        """An ``ok: false`` result whose summary is ``<Prefix> (CODE): message``."""
        return cls(id, False, fault_summary(code, message), details, code)

    @classmethod
    def of_error(cls, id: str, error: OperatorError) -> Result:
        """The ``ok: false`` result reporting a command fault."""
        return cls.failure(id, error.code, error.message)


READ_TOO_LARGE = "File too large for fs.read"


def read_too_large(id: str, size: int) -> Result:
    """The spec's own failure for an ``fs.read`` over its limit (its summary names no code)."""
    summary = f"{READ_TOO_LARGE} ({size} bytes). Use fs.readSlice."
    return Result(id, False, summary, None, codes.ERR_FILE_TOO_LARGE)


def format_result(result: Result) -> str:
    """One ``OPERATOR_RESULT`` block (no trailing newline)."""
    lines = [
        _BEGIN,
        f"id: {result.id}",
        f"ok: {'true' if result.ok else 'false'}",
        f"summary: {result.summary}",
    ]
    if result.details is not None:
        lines.append(f"details_b64: {encode_b64_text(result.details)}")
    lines.append(_END)
    return "\n".join(lines)


def format_results(results: Iterable[Result], *, note: str = "") -> str:
    """Result blocks in order, separated by one blank line; ``note`` (one line of prose, such
    as ``unread_note``) first, when given: readers of results skip lines outside blocks."""
    text = "\n\n".join(format_result(r) for r in results)
    return f"{note}\n\n{text}" if note and text else note or text


def unread_note(truncated_chars: int, unread_markers: int) -> str:
    """The line a model reads when commands were left in the part of its reply not scanned.

    Not an ``OPERATOR_RESULT`` (those answer commands that were read): one line of prose
    before the results, which every results reader skips. Empty when no marker was cut.
    """
    if unread_markers <= 0:
        return ""
    many = unread_markers != 1
    return (
        f"Note: only the last {MAX_SCAN_CHARS:,} characters of your reply were scanned; the "
        f"first {truncated_chars:,} characters hold {unread_markers} OPERATOR_CMD "
        f"marker{'s' * many} that {'were' if many else 'was'} not read, so "
        f"{'those commands' if many else 'that command'} did not run. Send "
        f"{'them' if many else 'it'} again in a shorter reply."
    )


def with_unread_note(results: Sequence[Result], truncated_chars: int,
                     unread_markers: int) -> list[Result]:  # fmt: skip
    """``results`` for a reader that takes result blocks and nothing else (the command line),
    telling the model, as ``unread_note`` does elsewhere, of commands left in the cut part.

    No result answers a command that was never read, so the note rides in the summary of the
    first result; when there is none, it is a result of its own in the shape of a scan error
    (``operator-error-1``, ``ERR_REPLY_TOO_LONG``), so the model is never left with nothing.
    """
    note = unread_note(truncated_chars, unread_markers)
    if not note:
        return list(results)
    if not results:
        err = ScanError(codes.ERR_REPLY_TOO_LONG, note.removeprefix("Note: "), None, 0)
        return [error_result(err, 1)]
    first = results[0]
    return [replace(first, summary=f"{first.summary} -- {note}"), *results[1:]]


def _value(line: str, key: str) -> str:
    # Exactly one optional space after the colon, so values round-trip byte for byte.
    value = line[len(key) + 1 :]
    return value[1:] if value.startswith(" ") else value


def parse_results(text: str) -> list[Result]:
    """Read result blocks back (the inverse of :func:`format_results`).

    Lines outside ``OPERATOR_RESULT`` ... ``END_OPERATOR_RESULT`` are ignored.

    Raises
    ------
    ValueError
        If a block is malformed (missing field, bad ``ok`` value, bad base64).
    """
    results: list[Result] = []
    block: list[str] | None = None
    for raw in text.split("\n"):
        line = raw[:-1] if raw.endswith("\r") else raw
        marker = line.strip(" \t")
        if block is None:
            if marker == _BEGIN:
                block = []
        elif marker == _END:
            results.append(_parse_block(block))
            block = None
        else:
            block.append(line)
    if block is not None:
        raise ValueError("result block without END_OPERATOR_RESULT")
    return results


def _parse_block(lines: list[str]) -> Result:
    fields: dict[str, str] = {}
    for line in lines:
        key, sep, _ = line.partition(":")
        if not sep or key not in ("id", "ok", "summary", "details_b64") or key in fields:
            raise ValueError("malformed result line")
        fields[key] = _value(line, key)
    if "ok" not in fields or fields["ok"] not in ("true", "false") or "summary" not in fields:
        raise ValueError("result block needs ok: true|false and summary")
    details = None
    if "details_b64" in fields:
        value = fields["details_b64"]
        details = decode_b64_text(value) if value else ""
        if details is None:
            raise ValueError("details_b64 is not canonical base64 of UTF-8")
    ok = fields["ok"] == "true"
    summary = fields["summary"]
    code = None if ok else code_in_summary(summary)
    if code is None and not ok and summary.startswith(READ_TOO_LARGE):
        code = codes.ERR_FILE_TOO_LARGE  # the spec's own wording carries no code
    return Result(fields.get("id", ""), ok, summary, details, code)


def error_result(err: ScanError, n: int, taken: Collection[str] = ()) -> Result:
    """The result reporting a scan or validation error to the model.

    The id is the block's id when one was read, else ``operator-error-<n>``, or
    ``operator-error-<n>-<k>`` (the smallest ``k >= 2`` that is free) when a command of the
    same reply already uses that id (``taken``: every id of the reply). Details are JSON
    ``{"code","message","related_id","line"}``.
    """
    details = json.dumps(
        {"code": err.code, "message": err.message, "related_id": err.id, "line": err.line},
        separators=(",", ":"),
    )
    rid = err.id
    if not rid:
        rid = f"operator-error-{n}"
        k = 2
        while rid in taken:
            rid, k = f"operator-error-{n}-{k}", k + 1
    return Result(rid, False, err.summary, details, err.code)
