"""notebooks/03-agent-loop.ipynb runs unattended in a real kernel (nbclient)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = REPO / "notebooks" / "03-agent-loop.ipynb"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def text(outputs: list[dict[str, Any]]) -> str:
    parts = []
    for out in outputs:
        assert out["output_type"] != "error", out
        if out["output_type"] == "stream":
            parts.append(out["text"])
        elif "data" in out:
            parts.append(out["data"].get("text/plain", ""))
    return "".join(parts)


def test_stored_without_outputs() -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert all(cell.outputs == [] and cell.execution_count is None for cell in code)


def test_agent_loop_notebook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    )
    monkeypatch.setenv("JUPYTER_OPERATOR_JOURNAL_DIR", str(tmp_path / "journal"))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    out = {c["id"]: c.get("outputs", []) for c in nb.cells if c.cell_type == "code"}
    assert "['notes.txt']" in text(out["cell-02"])
    shown = [o for o in out["cell-04"] if "data" in o]
    assert shown and WIDGET_MIME in shown[0]["data"]  # the live run display
    assert text(out["cell-05"]) == "2 [('write-1', 'pending'), ('edit-1', 'pending')]\n"
    answered = text(out["cell-06"])
    assert answered.startswith("Understood: notes.txt stays as it is")
    assert "[('edit-2', 'pending')]" in answered
    final = text(out["cell-07"])
    assert final.startswith("done after 4 turns")
    assert "- Gamma" in final and final.rstrip().endswith("Alpha\nBeta")
    assert "done 2" in text(out["cell-08"])
    table = text(out["cell-09"]).splitlines()
    assert len(table) == 3
    assert table[1].split()[:4] == ["replay:scripted-model", "4", "5", "1.0"]
    assert table[1].split()[4:6] == ["2", "1"]  # approvals, rejections
    assert table[2].split()[:2] == ["replay:direct", "2"]
    assert list(tmp_path.iterdir()) == [tmp_path / "journal"]  # nothing beside the notebook
