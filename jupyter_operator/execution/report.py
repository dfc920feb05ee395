"""What a run says to a model: the status, and the outputs summarised to act on.

Kernels send nbformat outputs; a model needs their meaning in a few thousand characters:
stream text and ``text/plain`` with the head and tail kept and the middle cut visibly, images
and other rich outputs described (never base64), an exception as its name, value and a
traceback without terminal colour codes, and a note when a cell "succeeded" but printed an
error (a failed ``pip install``, a traceback on stderr).
"""

from __future__ import annotations

import base64
import re
import struct
from typing import Any

from ..protocol import Result, codes
from .outcome import Outcome

#: Characters of one text (a stream, a result, a traceback) kept for the model.
TEXT_KEEP = 4_000
#: Characters of the whole details of one run (a rebuild shares it across its cells).
DETAILS_KEEP = 24_000

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")
# Lines on stderr that mean something failed although the cell itself did not raise.
_FAILED_LINE = re.compile(
    r"^(ERROR:|error:|Traceback \(most recent call last\)|"
    r".*No matching distribution found|.*Could not find a version that satisfies)",
    re.MULTILINE,
)

CODES = {
    "error": codes.ERR_CELL_ERROR,
    "timeout": codes.ERR_CELL_TIMEOUT,
    "interrupted": codes.ERR_CELL_INTERRUPTED,
    "kernel_died": codes.ERR_KERNEL_DIED,
    "stale": codes.ERR_STALE_PREVIEW,
    "unavailable": codes.ERR_KERNEL_UNAVAILABLE,
}


def strip_ansi(text: str) -> str:
    """``text`` without terminal colour and cursor codes (IPython colours its tracebacks)."""
    return _ANSI.sub("", text)


def head_tail(text: str, keep: int = TEXT_KEEP) -> str:
    """``text`` whole when short, else its head and tail with the cut said in the middle."""
    if len(text) <= keep:
        return text
    head, tail = text[: keep * 3 // 5], text[-(keep * 2 // 5) :]
    cut = len(text) - len(head) - len(tail)
    return f"{head}\n... [{cut} characters cut] ...\n{tail}"


def _joined(value: Any) -> str:
    """nbformat's multi-line text (a string or a list of strings) as one string; outputs come
    from kernels and front ends, so any other shape is read as text, never raised on."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(part if isinstance(part, str) else str(part) for part in value)
    return "" if value is None else str(value)


def _traceback(value: Any) -> str:
    if isinstance(value, list):
        return "\n".join(part if isinstance(part, str) else str(part) for part in value)
    return _joined(value)


def _image_size(mime: str, data: bytes) -> str:
    """``640x480`` from a PNG, GIF or JPEG header, or ``""``."""
    try:
        if mime == "image/png" and data[:8] == b"\x89PNG\r\n\x1a\n":
            width, height = struct.unpack(">II", data[16:24])
            return f"{width}x{height}"
        if mime == "image/gif" and data[:4] == b"GIF8":
            width, height = struct.unpack("<HH", data[6:10])
            return f"{width}x{height}"
        if mime == "image/jpeg":
            at = 2
            while at + 9 < len(data):
                marker, length = data[at + 1], struct.unpack(">H", data[at + 2 : at + 4])[0]
                if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                    height, width = struct.unpack(">HH", data[at + 5 : at + 9])
                    return f"{width}x{height}"
                at += 2 + length
    except (struct.error, IndexError):
        return ""
    return ""


def describe_rich(mime: str, value: Any) -> str:
    """One line for a rich output: its type, pixel size for images, and size."""
    text = _joined(value)
    if mime.startswith("image/") and mime != "image/svg+xml":
        try:
            raw = base64.b64decode(text, validate=False)
        except (ValueError, TypeError):
            raw = b""
        size = _image_size(mime, raw)
        return f"[{mime} image{' ' + size if size else ''}, {len(raw)} bytes]"
    return f"[{mime}, {len(text)} characters]"


def _data_lines(data: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    rich = [mime for mime in data if mime != "text/plain"]
    for mime in rich:
        lines.append(describe_rich(mime, data[mime]))
    if "text/plain" in data:
        lines.append(head_tail(strip_ansi(_joined(data["text/plain"]))))
    return lines


def outputs_text(outputs: list[dict[str, Any]]) -> tuple[str, str]:
    """The outputs as text for a model, and a note when the printed text shows a failure."""
    parts: list[str] = []
    streams: list[str] = []  # stderr and stdout: `!cmd` and %pip merge a program's stderr
    for output in outputs:
        if not isinstance(output, dict):
            continue
        kind = output.get("output_type")
        if kind == "stream":
            name = _joined(output.get("name", "stdout"))
            text = strip_ansi(_joined(output.get("text")))
            streams.append(text)
            if parts and parts[-1].startswith(f"[{name}]\n"):
                parts[-1] += text  # consecutive chunks of one stream read as one text
            else:
                parts.append(f"[{name}]\n{text}")
        elif kind in ("execute_result", "display_data"):
            label = "[result]" if kind == "execute_result" else "[display]"
            data = output.get("data")
            parts.append(label + "\n" + "\n".join(_data_lines(data if isinstance(data, dict)
                                                              else {})))  # fmt: skip
        elif kind == "error":
            trace = strip_ansi(_traceback(output.get("traceback")))
            value = strip_ansi(_joined(output.get("evalue")))
            head = f"[error] {_joined(output.get('ename'))}: {value}"
            parts.append(head + ("\n" + head_tail(trace) if trace else ""))
    shown = [head_tail(part.rstrip("\n")) if not part.startswith("[error]") else part
             for part in parts]  # fmt: skip
    found = _FAILED_LINE.search("".join(streams))
    note = ""
    if found:
        note = f"note: the cell did not raise, but its output says: {found.group(0).strip()[:200]}"
    return "\n".join(shown), note


def _error_of(outputs: list[dict[str, Any]]) -> str:
    for output in outputs:
        if isinstance(output, dict) and output.get("output_type") == "error":
            value = strip_ansi(_joined(output.get("evalue")))
            return f"{_joined(output.get('ename')) or 'Error'}: {value}"[:300]
    return ""


#: What of a run's output its summary shows, so a model sees "42" without decoding details.
SUMMARY_OUTPUT_CHARS = 200
SUMMARY_OUTPUT_LINES = 3


def output_preview(outputs: list[dict[str, Any]]) -> str:
    """The first lines of a run's printed text and results, on one line (``\\n`` between
    lines), at most ``SUMMARY_OUTPUT_LINES`` lines and ``SUMMARY_OUTPUT_CHARS`` characters,
    ``...`` when cut; a rich output without text is described. ``""`` when nothing printed."""
    texts: list[str] = []
    for output in outputs:
        if not isinstance(output, dict):
            continue
        kind = output.get("output_type")
        if kind == "stream":
            texts.append(_joined(output.get("text")))
        elif kind in ("execute_result", "display_data"):
            data = output.get("data")
            data = data if isinstance(data, dict) else {}
            if "text/plain" in data:
                texts.append(_joined(data["text/plain"]) + "\n")
            elif data:
                texts.append(describe_rich(*next(iter(data.items()))) + "\n")
        if sum(len(text) for text in texts) > SUMMARY_OUTPUT_CHARS * 2:
            break  # enough to fill the preview
    lines = strip_ansi("".join(texts)).strip("\n").split("\n")
    if lines == [""]:
        return ""
    shown = "\\n".join(line.rstrip() for line in lines[:SUMMARY_OUTPUT_LINES])
    cut = len(lines) > SUMMARY_OUTPUT_LINES or len(shown) > SUMMARY_OUTPUT_CHARS
    return shown[:SUMMARY_OUTPUT_CHARS] + ("..." if cut else "")


def _status_words(outcome: Outcome, timeout_s: float | None) -> str:
    if outcome.status == "ok":
        return "ok"
    if outcome.status == "error":
        return f"error {_error_of(outcome.outputs)}".rstrip()
    if outcome.status == "timeout":
        limit = f" after {timeout_s:g} s" if timeout_s else ""
        return f"timeout{limit}; the kernel was interrupted"
    if outcome.status == "interrupted":  # the message says by what (a page that went away)
        return f"interrupted: {outcome.message}" if outcome.message else "interrupted"
    if outcome.status == "kernel_died":
        return "the kernel died; its state is lost"
    return outcome.message or outcome.status


def one_run(outcome: Outcome, what: str, timeout_s: float | None = None) -> tuple[str, str]:
    """The summary and details of one cell's run."""
    count = f"In [{outcome.execution_count}], " if outcome.execution_count else ""
    summary = f"Ran {what} ({count}{outcome.duration_ms / 1000:.2f} s): "
    summary += _status_words(outcome, timeout_s)
    if outcome.status != "error":  # an error's summary names the exception instead
        preview = output_preview(outcome.outputs)
        summary += f"; output: {preview}" if preview else ""
    text, note = outputs_text(outcome.outputs)
    lines = [f"status: {outcome.status}"]
    if outcome.execution_count:
        lines.append(f"execution_count: {outcome.execution_count}")
    lines.append(f"duration_ms: {outcome.duration_ms}")
    if note and outcome.status == "ok":
        lines.append(note)
    lines.append("outputs:" if text else "outputs: (none)")
    if text:
        lines.append(text)
    return summary, "\n".join(lines) + "\n"


def report(id: str, outcome: Outcome, what: str, *, timeout_s: float | None = None,
           keep: int = DETAILS_KEEP, steps: list[str] | None = None) -> Result:  # fmt: skip
    """The ``Result`` of a run for the model: ok only when the cell ran without an error.

    ``steps`` names the cells of a rebuild, in order.
    """
    if outcome.status in ("stale", "unavailable"):
        return Result.failure(id, CODES[outcome.status], outcome.message or "nothing ran.")
    if outcome.steps:  # a rebuild: one section per cell
        names = steps or [f"step {n}" for n in range(1, len(outcome.steps) + 1)]
        sections = [one_run(step, name) for step, name in zip(outcome.steps, names, strict=False)]
        failed = next((step for step in outcome.steps if step.status != "ok"), None)
        ran = len(outcome.steps)
        summary = f"Rebuilt the kernel's state: restarted, then ran {ran} cell{'s' * (ran != 1)}"
        if failed is not None:  # which cell, and why (an error names its exception)
            name = names[outcome.steps.index(failed)] if len(names) == ran else "a cell"
            summary += f"; stopped at {name}: {_status_words(failed, None)}"
        else:
            summary += "; all ok"
        details = "".join(f"== {s}\n{d}" for s, d in sections)
        status = failed.status if failed else "ok"
    else:
        summary, details = one_run(outcome, what, timeout_s)
        status = outcome.status
    details = head_tail(details, keep)
    if status == "ok":
        return Result(id, True, summary, details)
    return Result.failure(id, CODES.get(status, codes.ERR_CELL_ERROR), summary, details)
