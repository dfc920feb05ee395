"""notebooks/08-experiments.ipynb runs unattended: the grid, the bar, the table, the plots,
the comparison, a second run that resumes with nothing left to do, and the results viewer."""

from __future__ import annotations

import json
from pathlib import Path

from notebook_runs import WIDGET_MIME, execute, text


def test_the_experiments_notebook_unattended(tmp_path: Path) -> None:
    _nb, out = execute("08-experiments.ipynb", tmp_path)
    assert "16 runs in the grid, 16 still to run" in text(out["grid"], streams=("stdout",))
    assert any(WIDGET_MIME in o.get("data", {}) for o in out["run"])  # the progress bar
    assert "<Results 16 runs, 12 passed>" in text(out["run"])
    table = text(out["table"])
    assert "careful" in table and "hasty" in table and "stop_reason" in table
    cost = text(out["cost"])
    assert "pass_rate" in cost and "cost" in cost
    for plot in ("plot-pass", "plot-tokens"):
        assert any("image/png" in o.get("data", {}) for o in out[plot]), plot
    assert text(out["compare"]).count("fixed") == 2
    assert "0 runs left to do; 16 rows in" in text(out["resume"], streams=("stdout",))
    assert any(WIDGET_MIME in o.get("data", {}) for o in out["show"])  # the results viewer
    rows = [json.loads(line) for line in
            (tmp_path / "experiment-results" / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 16 and all((tmp_path / "experiment-results" / r["transcript"]).is_file()
                                   for r in rows)  # fmt: skip
