"""Resource limits seen from the engine: planned sizes and per-reply output budgets."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from replies import block, edits

from jupyter_operator.engine import Policy
from jupyter_operator.engine.reads import MAX_LINE_CHARS, REPLY_OUTPUT_BUDGET
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


def test_sixty_slices_of_a_one_line_file_stay_small(root: Path, make_operator) -> None:
    (root / "min.js").write_text("v" * 1_900_000)
    reply = "\n".join(block(f"s{i}", "fs.readSlice", path="min.js") for i in range(60))
    run = make_operator().run(reply)
    assert [i.status for i in run.items] == ["done"] * 60
    marker = " [line cut: 1898000 more characters]"
    for item in run.items:
        assert item.details.endswith("     1: " + "v" * MAX_LINE_CHARS + marker)
    total = sum(len(item.details.encode()) for item in run.items)
    assert total == run.budget.used < 60 * (MAX_LINE_CHARS + 100) < REPLY_OUTPUT_BUDGET


def test_search_cuts_long_lines_too(root: Path, make_operator) -> None:
    (root / "min.js").write_text("a" * 3000 + "needle" + "b" * 3000 + "\nshort needle\n")
    run = make_operator().run(block("f1", "fs.search", path="min.js", query="needle"))
    lines = run.items[0].details.splitlines()[-2:]
    assert lines == [
        "     1: " + "a" * MAX_LINE_CHARS + " [line cut: 4006 more characters]",
        "     2: short needle",
    ]


def test_reads_past_the_reply_budget_answer_with_a_code(root: Path, make_operator) -> None:
    (root / "big.txt").write_text("y" * 199_000)
    fit = REPLY_OUTPUT_BUDGET // 199_000  # 42 whole reads fit
    reply = "\n".join(block(f"r{i}", "fs.read", path="big.txt") for i in range(fit + 3))
    run = make_operator(policy=Policy(auto=frozenset())).run(reply)  # reads wait for a person
    decided = run.approve_all()
    assert [d.outcome for d in decided] == ["applied"] * fit + ["failed"] * 3
    over = run.items[fit]
    assert over.error_code == codes.ERR_OUTPUT_BUDGET and over.details is None
    assert over.summary.startswith("Invalid OPERATOR_CMD (ERR_OUTPUT_BUDGET): the reads of this")
    assert "(199000 bytes) is not shown" in over.summary
    assert run.budget.used == fit * 199_000 <= REPLY_OUTPUT_BUDGET
    # The budget belongs to the reply: the next reply starts afresh.
    (root / "small.txt").write_text("z")
    assert make_operator().run(block("r0", "fs.read", path="small.txt")).items[0].ok
