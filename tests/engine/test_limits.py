"""Planned sizes seen from the engine (read budgets are in test_reads.py)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from support.replies import block, edits

from jupyter_operator.protocol import codes


def test_an_edit_bomb_is_refused_before_it_grows(root: Path, make_operator) -> None:
    # Three chained replaceAll edits in a reply of about 3 KB would plan a 256 MiB file.
    (root / "a.txt").write_text("x" * 16)
    grow = {"op": "replaceAll", "find": "x", "text": "x" * 256}
    reply = block("e1", "fs.applyEdits", path="a.txt", edits_b64=edits(grow, grow, grow))
    assert len(reply) < 3_500
    op = make_operator()
    tracemalloc.start()
    try:
        run = op.run(reply)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    [item] = run.items
    assert (item.status, item.error_code) == ("failed", codes.ERR_RESULT_TOO_LARGE)
    assert item.result.summary.startswith("Invalid OPERATOR_CMD (ERR_RESULT_TOO_LARGE): edit 2: ")
    # The third edit (16 * 256**3 bytes) was refused before it was built: the largest text
    # that ever existed is the second one (1 MiB).
    assert peak < 8 * 1024 * 1024, peak
    assert (root / "a.txt").read_text() == "x" * 16

