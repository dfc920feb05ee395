"""The notebooks in notebooks/ run top to bottom with nbclient and show what they promise."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient
from notebook_runs import NOTEBOOKS, WIDGET_MIME, code_cells, execute, text

#: A person's clicks on the cards, run just before the cell that reports them.
QUICKSTART_CLICKS = {
    "cell-08": "import jupyter_operator\njupyter_operator.last_run().approve_all()"
}
TEACHING_CLICKS = {"cell-13": (
    "import jupyter_operator\n"
    "jupyter_operator.last_run().reject(\n"
    '    "write-1", reason="median is wrong for even-length lists; average the two middle values"\n'
    ")"
)}  # fmt: skip


def panel(outputs: list[dict[str, Any]]) -> dict[str, Any]:
    """The data of the approval panel's output (a widget with text and HTML fallbacks)."""
    [found] = [o["data"] for o in outputs if WIDGET_MIME in o.get("data", {})]
    return found


def final_mark(outputs: list[dict[str, Any]]) -> Any:
    """The panel output's ``final`` mark, read by the server's pre-save hook."""
    [found] = [o for o in outputs if WIDGET_MIME in o.get("data", {})]
    return found.get("metadata", {}).get("jupyter_operator", {}).get("final")


def no_errors(nb: Any) -> None:
    """No cell ended in an error or wrote to stderr."""
    for cell in code_cells(nb):
        for out in cell.outputs:
            assert out["output_type"] != "error", (cell.id, out)
            assert out.get("name") != "stderr", (cell.id, out)


@pytest.mark.parametrize("name", sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")))
def test_notebooks_are_stored_without_outputs(name: str) -> None:
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(nb)
    assert all(cell.outputs == [] and cell.execution_count is None for cell in code_cells(nb))


@pytest.mark.parametrize("name", sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")))
def test_notebooks_hold_what_jupyterlab_writes_on_load(name: str) -> None:
    """Opened in JupyterLab, a shipped notebook is not marked unsaved: it already holds what Lab
    writes once the kernel is there (the kernelspec, the kernel's language_info, cell ids)."""
    from ipykernel.ipkernel import IPythonKernel
    from jupyter_client.kernelspec import KernelSpecManager

    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    assert (nb.nbformat, nb.nbformat_minor) == (4, 5)
    assert all(cell.get("id") for cell in nb.cells)
    spec = KernelSpecManager().get_kernel_spec("python3")
    assert nb.metadata.kernelspec == {"display_name": spec.display_name,
                                      "language": spec.language, "name": "python3"}  # fmt: skip
    reported = dict(IPythonKernel.language_info)
    # Only the Python version is the reader's own (Lab writes theirs, once, on a first save).
    assert {**nb.metadata.language_info, "version": reported["version"]} == reported


@pytest.mark.parametrize("name", sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")))
def test_notebooks_hold_the_lesson_not_test_plumbing(name: str) -> None:
    # A test drives a notebook from outside (notebook_runs.execute's clicks): no switch for it.
    text = (NOTEBOOKS / name).read_text()
    assert "UNATTENDED" not in text and "test suite" not in text


def test_quickstart_clicked_through(tmp_path: Path) -> None:
    nb, out = execute("01-quickstart.ipynb", tmp_path, QUICKSTART_CLICKS)
    no_errors(nb)
    assert "['notes.txt']" in text(out["cell-02"])
    decided = text(out["cell-08"])
    assert "write-1 (fs.write plan.md): Applied: Wrote file" in decided
    assert "edit-1 (fs.applyEdits notes.txt): Applied: Applied edits" in decided
    assert decided.endswith("Alpha\nBeta\nGamma\n\n")
    # The saved fallback of the %%operator cell was updated as the decisions were made: a
    # notebook opened without a kernel reads the final state, never "[pending]".
    data = panel(out["cell-06"])
    assert "[Applied] fs.write plan.md (write-1)" in data["text/plain"]
    assert "[Waiting for you]" not in data["text/plain"]
    assert "[Applied]" in data["text/html"]  # the static view, for a notebook read without a kernel
    assert "[Waiting for you]" not in data["text/html"]
    # Every item is decided: the card is marked final, so a save keeps only its static text.
    assert final_mark(out["cell-06"]) is True
    results = text(out["cell-10"])
    for command_id in ("read-1", "write-1", "edit-1"):
        assert f"id: {command_id}\nok: true" in results
    assert "fs.write" in text(out["cell-12"]) and "plan.md" in text(out["cell-12"])
    undone = text(out["cell-13"])
    assert "Undone: fs.applyEdits notes.txt" in undone and undone.endswith("Alpha\nBeta\n\n")
    # The undone change shows as undone in the saved output too.
    assert "[Undone] fs.applyEdits notes.txt (edit-1)" in panel(out["cell-06"])["text/plain"]
    # One fixed folder beside the notebook, reset by the notebook itself: a second Run All
    # leaves no new folder.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["quickstart-workspace"]
    execute("01-quickstart.ipynb", tmp_path, QUICKSTART_CLICKS)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["quickstart-workspace"]


def test_quickstart_run_all_by_a_person_decides_nothing(tmp_path: Path) -> None:
    nb, out = execute("01-quickstart.ipynb", tmp_path)
    no_errors(nb)
    status = text(out["cell-08"])
    assert "write-1 (fs.write plan.md): waiting for you: click Approve or Reject" in status
    assert status.endswith("Alpha\nBeta\n\n")  # nothing written behind the person's back
    assert "[Waiting for you] fs.write plan.md (write-1)" in panel(out["cell-06"])["text/plain"]
    assert final_mark(out["cell-06"]) is False  # live buttons are kept while anything waits
    assert "Still waiting for your decision: write-1, edit-1" in text(out["cell-10"])
    assert "Nothing to undo" in text(out["cell-13"])
    assert not (tmp_path / "quickstart-workspace" / "plan.md").exists()


def test_teaching_demo_clicked_through(tmp_path: Path) -> None:
    nb, out = execute("02-teaching-demo.ipynb", tmp_path, TEACHING_CLICKS)
    no_errors(nb)
    assert text(out["cell-02"]) == "['draft.txt', 'stats.py']\n"
    assert "default: auto reads, ask for every change" in text(out["cell-05"])
    assert "1  deny fs.delete **" in text(out["cell-06"])
    dry = text(out["cell-10"])
    assert "[('read-1', 'done'), ('write-1', 'rejected'), ('delete-1', 'denied')]" in dry
    assert "['draft.txt', 'stats.py'] - nothing changed" in dry
    real = text(out["cell-13"])
    assert "write-1 (fs.write stats.py): Rejected: nothing was changed." in real
    assert "Reason: median is wrong for even-length lists" in real
    assert "delete-1 (fs.delete draft.txt): Denied: fs.delete is not allowed" in real
    results = text(out["cell-15"])
    assert "ERR_REJECTED" in results and "ERR_POLICY_DENIED" in results
    assert "[Rejected] fs.write stats.py (write-1)" in panel(out["cell-12"])["text/plain"]
    assert "deny" not in text(out["cell-17"]) and "default: auto reads" in text(out["cell-17"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["teaching-workspace"]


def test_teaching_demo_run_all_by_a_person_decides_nothing(tmp_path: Path) -> None:
    nb, out = execute("02-teaching-demo.ipynb", tmp_path)
    no_errors(nb)
    assert "write-1 (fs.write stats.py): waiting for you" in text(out["cell-13"])
    assert "Still waiting for your decision: write-1" in text(out["cell-15"])


def test_quickstart_run_all_twice_in_one_kernel(tmp_path: Path) -> None:
    # Run All again without restarting: the notebook resets its folder and its session, so the
    # second pass asks (and here decides) again instead of showing stale cards.
    nb = nbformat.read(NOTEBOOKS / "01-quickstart.ipynb", as_version=4)
    clicks = nbformat.v4.new_code_cell(QUICKSTART_CLICKS["cell-08"], id="clicks")
    index = next(i for i, cell in enumerate(nb.cells) if cell.id == "cell-08")
    nb.cells.insert(index, clicks)
    again = [nbformat.from_dict({**cell, "id": f"again-{cell['id']}"}) for cell in nb.cells]
    nb.cells = nb.cells + again
    NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    no_errors(nb)
    out = {cell["id"]: cell.get("outputs", []) for cell in nb.cells if cell.cell_type == "code"}
    second = text(out["again-cell-08"])
    assert "write-1 (fs.write plan.md): Applied: Wrote file" in second
    assert "Undone: fs.applyEdits notes.txt" in text(out["again-cell-13"])
    assert sorted(p.name for p in (tmp_path / "quickstart-workspace").iterdir()) == [
        "notes.txt", "plan.md",
    ]  # fmt: skip
