"""notebooks/07-fix-the-error.ipynb clicked through: a model runs cells, reads the traceback,
fixes the cell with Approve & Run; the ledger records each run; a teacher's no-run holds."""

from __future__ import annotations

from pathlib import Path

import pytest
from notebook_runs import execute, text

#: A person's clicks: Run on run-load and run-mean, then Approve & Run on fix-mean.
CLICKS = {"cell-08": """
for id, and_run in [("run-load", False), ("run-mean", False), ("fix-mean", True)]:
    run = await agent.waiting()
    if and_run:
        run.approve(id, and_run=True)
    else:
        run.approve(id)
"""}


def test_the_fix_the_error_loop_clicked_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPYTER_OPERATOR_JOURNAL_DIR", str(tmp_path / "journal"))
    _nb, out = execute("07-fix-the-error.ipynb", tmp_path, CLICKS)
    decided = text(out["cell-08"], streams=("stdout",))
    assert decided.startswith("done after 3 turns")
    fixed = "mean [3] \"total = sum(values)\\nprint('mean', total / len(values))\" -> 'mean 4.0'"
    assert fixed in decided
    read = text(out["cell-10"], streams=("stdout",))
    assert "run-mean: Cell failed (ERR_CELL_ERROR)" in read
    assert "NameError: name 'totl' is not defined" in read and "----> 1 print" in read
    assert "fix-mean: Replaced cell mean, then ran it: Ran cell 1 (id mean)" in read
    assert read.count("(headless, decided by person)") == 3
    teacher = text(out["cell-12"], streams=("stdout",))
    assert "again: failed: Denied (ERR_NOTEBOOK_POLICY)" in teacher
    assert "lift: denied: Denied (ERR_NOTEBOOK_POLICY)" in teacher


def test_run_all_by_a_person_runs_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run all without clicking: nothing runs, the decide cell says the run waits."""
    monkeypatch.setenv("JUPYTER_OPERATOR_JOURNAL_DIR", str(tmp_path / "journal"))
    import nbformat
    from nbclient import NotebookClient
    from notebook_runs import NOTEBOOKS

    nb = nbformat.read(NOTEBOOKS / "07-fix-the-error.ipynb", as_version=4)
    nb.cells = nb.cells[:9]  # up to the decide cell: the later ones need the finished run
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()  # fmt: skip
    decide = next(cell for cell in nb.cells if cell.get("id") == "cell-08")
    assert "waits for your decision" in text(decide.outputs, streams=("stdout",))
    assert "'values = [3, 4, 5]' -> ''" in text(nb.cells[2].outputs, streams=("stdout",))
