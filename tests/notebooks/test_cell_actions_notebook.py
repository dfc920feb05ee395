"""notebooks/06-notebook-cells.ipynb clicked through: cell actions read, change, undo a notebook."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from notebook_runs import execute as run_notebook
from notebook_runs import text


def printed(outputs: list[dict[str, Any]]) -> str:
    """What a cell printed; nothing of it on stderr."""
    assert not [out for out in outputs if out.get("name") == "stderr"], outputs
    return text(outputs)


#: A person approving every card before the cell that reports the decisions.
CLICKS = {"cell-07": "jupyter_operator.last_run().approve_all()"}


def execute(cwd: Path, clicks: dict[str, str] | None = None) -> dict[str, list[Any]]:
    """Run the notebook in ``cwd``; the outputs of each code cell by id (none an error)."""
    _nb, out = run_notebook("06-notebook-cells.ipynb", cwd, clicks)
    for outputs in out.values():
        printed(outputs)  # no errors, nothing on stderr
    return out


def test_run_all_by_a_person_changes_nothing(tmp_path: Path) -> None:
    out = execute(tmp_path)
    decided = printed(out["cell-07"])
    assert "read-cells: done: Read cells 0-2 of 3" in decided
    assert "explain: pending: insert markdown cell at 2" in decided
    assert "more-data: pending: replace cell 1 (id load)" in decided
    assert "Nothing to undo" in printed(out["cell-09"])
    assert "data = [3, 1, 2]\n" in decided and "Sort the data" not in decided


def test_cells_changed_and_undone_when_clicked_through(tmp_path: Path) -> None:
    out = execute(tmp_path, CLICKS)
    assert printed(out["cell-02"]).split() == [
        "title", "markdown", "#", "Analysis", "load", "code", "data", "=", "[3,", "1,", "2]",
        "show", "code", "print(sorted(data))",
    ]  # fmt: skip
    decided = printed(out["cell-07"])
    assert "read-cells: done: Read cells 0-2 of 3" in decided
    assert "explain: applied: Inserted markdown cell at index 2 (id " in decided
    assert "more-data: applied: Replaced cell load" in decided
    after = decided.split("\n\n", 1)[1].splitlines()
    assert [line.split()[1] for line in after] == ["markdown", "code", "markdown", "code"]
    assert "data = [3, 1, 2, 5, 4]" in after[1] and "Sort the data" in after[2]
    undone = printed(out["cell-09"])
    # The latest change (the new source of load) is undone; the inserted cell stays.
    assert undone.startswith("Undone: nb.replaceCell analysis.ipynb")
    assert "data = [3, 1, 2]\n" in undone and "Sort the data" in undone
