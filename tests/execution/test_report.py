"""What a model reads of a run: statuses, outputs summarised, caps, notes."""

from __future__ import annotations

import base64
import json
import struct

from jupyter_operator.execution import Outcome, report
from jupyter_operator.execution.report import TEXT_KEEP, describe_rich, head_tail, outputs_text
from jupyter_operator.execution.streams import STREAM_KEEP, OutputCollector, process_message


def test_head_and_tail_are_kept_and_the_cut_is_said() -> None:
    text = "".join(f"line {n}\n" for n in range(5000))
    shown = head_tail(text)
    assert shown.startswith("line 0\n") and shown.endswith("line 4999\n")
    assert "characters cut] ..." in shown and len(shown) < TEXT_KEEP + 100
    assert head_tail("short") == "short"


def test_images_are_described_with_their_pixel_size() -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + struct.pack(">II", 640, 480) + b"\x08"
    gif = b"GIF89a" + struct.pack("<HH", 12, 34) + b"\x00" * 8
    jpeg = (b"\xff\xd8" + b"\xff\xe0" + struct.pack(">H", 4) + b"\x00\x00" +
            b"\xff\xc0" + struct.pack(">HBHH", 11, 8, 200, 300) + b"\x00" * 8)  # fmt: skip
    for mime, raw, size in [("image/png", png, "640x480"), ("image/gif", gif, "12x34"),
                            ("image/jpeg", jpeg, "300x200")]:  # fmt: skip
        line = describe_rich(mime, base64.b64encode(raw).decode())
        assert line == f"[{mime} image {size}, {len(raw)} bytes]"
    assert describe_rich("text/html", "<b>hi</b>") == "[text/html, 9 characters]"


def test_outputs_read_as_text_and_colour_codes_go() -> None:
    outputs = [
        {"output_type": "stream", "name": "stdout", "text": "a\n"},
        {"output_type": "stream", "name": "stdout", "text": "b\n"},
        {
            "output_type": "execute_result",
            "data": {"text/plain": "\x1b[31m42\x1b[0m", "text/html": "<b>42</b>"},
        },
        {
            "output_type": "error",
            "ename": "ValueError",
            "evalue": "bad",
            "traceback": ["\x1b[31mValueError\x1b[0m: bad"],
        },
    ]
    text, note = outputs_text(outputs)
    assert text == ("[stdout]\na\nb\n[result]\n[text/html, 9 characters]\n42\n"
                    "[error] ValueError: bad\nValueError: bad")  # fmt: skip
    assert note == ""


def test_a_traceback_printed_by_a_cell_that_did_not_raise_is_noted() -> None:
    outputs = [{"output_type": "stream", "name": "stderr",
                "text": "Traceback (most recent call last):\n  File x\nKeyError: 1\n"}]  # fmt: skip
    result = report("r1", Outcome("ok", 3, 12, outputs), "cell c1")
    assert result.ok and "note: the cell did not raise, but its output says: Traceback" in (
        result.details or ""
    )


def test_statuses_map_to_codes() -> None:
    assert report("r", Outcome("kernel_died", None, 5), "cell c").code == "ERR_KERNEL_DIED"
    assert report("r", Outcome("interrupted", 2, 5), "cell c").code == "ERR_CELL_INTERRUPTED"
    stale = report("r", Outcome("stale", message="the cell was edited"), "cell c")
    assert stale.summary == "Not applied (ERR_STALE_PREVIEW): the cell was edited"
    gone = report("r", Outcome("unavailable", message="no front end"), "cell c")
    assert gone.summary == "Not run (ERR_KERNEL_UNAVAILABLE): no front end"


def _add(collector: OutputCollector, kind: str, content: dict) -> None:
    process_message({"msg_type": kind, "content": content}, collector)


def test_an_endless_stream_keeps_its_head_and_tail() -> None:
    collector = OutputCollector()
    _add(collector, "execute_input", {"execution_count": 7})
    for n in range(30_000):
        _add(collector, "stream", {"name": "stdout", "text": f"{n:08d}\n"})
    (output,) = collector.outputs()
    assert output["text"].startswith("00000000\n") and output["text"].endswith("00029999\n")
    assert "characters dropped" in output["text"]
    assert len(output["text"]) < STREAM_KEEP + 100
    assert collector.execution_count == 7


def test_the_collector_keeps_nothing_over_its_caps_while_it_reads() -> None:
    """What iopub brings past the caps is counted, never kept: memory stays bounded."""
    from jupyter_operator.execution.streams import (
        MAX_OUTPUTS,
        OUTPUT_MAX_CHARS,
        RUN_OUTPUT_MAX_CHARS,
    )

    collector = OutputCollector()
    _add(collector, "display_data", {"data": {"image/png": "A" * (OUTPUT_MAX_CHARS + 1)}})
    assert collector.used < 1_000  # the note, not the image
    for _ in range(200):
        _add(collector, "display_data", {"data": {"text/plain": "y" * 400_000}, "metadata": {}})
        assert collector.used <= RUN_OUTPUT_MAX_CHARS
    for n in range(20_000):  # stdout and stderr in turn: a progress bar between prints
        _add(collector, "stream", {"name": "stderr" if n % 2 else "stdout", "text": f"{n}\n" * 20})
        assert collector.used <= RUN_OUTPUT_MAX_CHARS
    _add(collector, "error", {"ename": "RecursionError", "evalue": "deep",
                            "traceback": [f"frame {n} " + "z" * 5_000 for n in range(3_000)]})
    outputs = collector.outputs()
    assert len(outputs) <= MAX_OUTPUTS + 4
    assert len(json.dumps(outputs)) < RUN_OUTPUT_MAX_CHARS + OUTPUT_MAX_CHARS
    error = next(output for output in outputs if output["output_type"] == "error")
    assert error["traceback"][0].startswith("frame 0 ") and error["traceback"][-1].startswith(
        "frame 2999 ") and "frames cut" in error["traceback"][10]
    assert outputs[-1]["text"].startswith("[") and "not kept" in outputs[-1]["text"]
    # The latest stream text is kept (its tail), not pushed out by the count.
    assert "19999\n" in "".join(o.get("text", "") for o in outputs if o["output_type"] == "stream")
