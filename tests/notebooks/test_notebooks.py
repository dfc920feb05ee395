"""The notebooks in notebooks/ run top to bottom with nbclient and show what they promise."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def execute(name: str, cwd: Path) -> dict[str, list[dict[str, Any]]]:
    """Run a notebook with its kernel in ``cwd``; return the outputs of each cell by id."""
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}
    ).execute()
    return {cell["id"]: cell.get("outputs", []) for cell in nb.cells if cell.cell_type == "code"}


@pytest.fixture(autouse=True)
def kernel_imports_this_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernels import the code under test, installed or not (their cwd is a temp dir)."""
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    )


def text(outputs: list[dict[str, Any]]) -> str:
    """Everything a cell printed (streams and plain-text displays)."""
    parts = []
    for out in outputs:
        assert out["output_type"] != "error", out
        if out["output_type"] == "stream":
            parts.append(out["text"])
        elif "data" in out:
            parts.append(out["data"].get("text/plain", ""))
    return "".join(parts)


def code_cells(nb: Any) -> list[Any]:
    return [cell for cell in nb.cells if cell.cell_type == "code"]


@pytest.mark.parametrize("name", ["01-quickstart.ipynb", "02-teaching-demo.ipynb"])
def test_notebooks_are_stored_without_outputs(name: str) -> None:
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(nb)
    assert all(cell.outputs == [] and cell.execution_count is None for cell in code_cells(nb))


def test_quickstart(tmp_path: Path) -> None:
    out = execute("01-quickstart.ipynb", tmp_path)
    assert "['notes.txt']" in text(out["cell-02"])
    # The %%operator cell displays the approval panel (a widget) with a text fallback.
    panel = [o for o in out["cell-06"] if "data" in o]
    assert panel and WIDGET_MIME in panel[0]["data"]
    listing = panel[0]["data"]["text/plain"]
    assert "[done] fs.read notes.txt (read-1)" in listing
    assert "[pending] fs.write plan.md (write-1)" in listing
    assert "[pending] fs.applyEdits notes.txt (edit-1)" in listing
    approved = text(out["cell-08"])
    assert "('write-1', 'pending')" in approved
    assert approved.endswith("Alpha\nBeta\nGamma\n\n")
    results = text(out["cell-10"])
    for command_id in ("read-1", "write-1", "edit-1"):
        assert f"id: {command_id}\nok: true" in results
    assert "fs.write" in text(out["cell-12"]) and "plan.md" in text(out["cell-12"])
    undone = text(out["cell-13"])
    assert "Undone: fs.applyEdits notes.txt" in undone and undone.endswith("Alpha\nBeta\n\n")
    assert list(tmp_path.iterdir()) == []  # nothing written next to the notebook


def test_teaching_demo(tmp_path: Path) -> None:
    out = execute("02-teaching-demo.ipynb", tmp_path)
    assert text(out["cell-02"]) == "['draft.txt', 'stats.py']\n"
    assert "policy: auto=reads deny=none" in text(out["cell-05"])
    assert "policy: auto=reads deny=fs.delete" in text(out["cell-06"])
    dry = text(out["cell-10"])
    assert "[('read-1', 'done'), ('write-1', 'rejected'), ('delete-1', 'denied')]" in dry
    assert "['draft.txt', 'stats.py'] - nothing changed" in dry
    real = text(out["cell-13"])
    assert "[('read-1', 'done'), ('write-1', 'rejected'), ('delete-1', 'denied')]" in real
    assert "Reason: median is wrong for even-length lists" in real
    assert "ERR_REJECTED" in real and "ERR_POLICY_DENIED" in real
    assert "policy: auto=reads deny=none" in text(out["cell-15"])
    assert list(tmp_path.iterdir()) == []
