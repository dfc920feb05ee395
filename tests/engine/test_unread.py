"""Commands cut off by the scan window: the run counts them and its results tell the model."""

from __future__ import annotations

from collections.abc import Callable

from support.replies import block

from jupyter_operator.engine import Operator
from jupyter_operator.engine.persist import dump_run, load_data, load_run
from jupyter_operator.protocol import parse_results


def test_results_start_with_the_note_and_a_saved_run_keeps_it(
    make_operator: Callable[..., Operator],
) -> None:
    lost = block("e1", "fs.list", path=".") + "\n"
    text = lost + "filler\n" * 30_000 + block("r1", "fs.list", path=".")
    with make_operator() as op:
        run = op.run(text)
        assert (run.truncated_chars, run.unread_markers) == (len(text) - 200_000, 1)
        assert run.results_text.startswith("Note: only the last 200,000 characters")
        assert [r.id for r in parse_results(run.results_text)] == ["r1"]
    with make_operator() as again:
        loaded = load_run(again, load_data(dump_run(run, text)))
        assert loaded.unread_markers == 1 and loaded.results_text == run.results_text
