"""notebooks/03-agent-loop.ipynb runs unattended in a real kernel (nbclient)."""

from __future__ import annotations

from pathlib import Path

import pytest
from notebook_runs import WIDGET_MIME, execute, text


def test_agent_loop_notebook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPERATOR_DEMO_UNATTENDED", "1")  # the decision cells decide
    _nb, out = execute("03-agent-loop.ipynb", tmp_path)
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
    assert list(tmp_path.iterdir()) == []  # nothing beside the notebook


def test_the_decision_cells_only_report_when_nobody_clicked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run All without clicks and without the unattended switch: the cells say the run waits
    for a decision instead of failing (they used to raise on a run that was over)."""
    monkeypatch.delenv("OPERATOR_DEMO_UNATTENDED", raising=False)
    _nb, out = execute("03-agent-loop.ipynb", tmp_path)
    assert text(out["cell-05"]) == "2 [('write-1', 'pending'), ('edit-1', 'pending')]\n"
    assert "Traceback" not in text(out["cell-06"])
    assert text(out["cell-07"]).startswith("The run still waits for your decision")
