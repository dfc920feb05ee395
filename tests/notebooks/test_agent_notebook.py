"""notebooks/03-agent-loop.ipynb in a real kernel (nbclient), clicked through and not."""

from __future__ import annotations

from pathlib import Path

from notebook_runs import WIDGET_MIME, execute, text

#: A person's clicks on the cards of each turn, before the cell that reports them.
CLICKS = {
    "cell-06": (
        "run = await agent.waiting()\n"
        'run.approve("write-1")\n'
        'run.reject("edit-1", reason="keep notes.txt as it is; put new items in plan.md")'
    ),
    "cell-07": '(await agent.waiting()).approve("edit-2")',
}


def test_agent_loop_notebook(tmp_path: Path) -> None:
    _nb, out = execute("03-agent-loop.ipynb", tmp_path, CLICKS)
    assert "['notes.txt']" in text(out["cell-02"])
    shown = [o for o in out["cell-04"] if "data" in o]
    assert shown and WIDGET_MIME in shown[0]["data"]  # the live run display
    assert text(out["cell-05"]) == "Turn 2: write-1 pending, edit-1 pending\n"
    answered = text(out["cell-06"])
    assert answered.startswith("Understood: notes.txt stays as it is")
    assert "Turn 3: edit-2 pending" in answered
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


def test_the_status_cell_says_the_run_is_over_in_words(tmp_path: Path) -> None:
    """Run again once the run ended, the status cell says so (it printed ``4 []``)."""
    clicks = {**CLICKS, "cell-08": "await agent.wait()\nwhere()"}
    nb, _out = execute("03-agent-loop.ipynb", tmp_path, clicks)
    [cell] = [c for c in nb.cells if c.get("id") == "clicks-cell-08"]
    assert text(cell.outputs) == "The run is over (done). The model finished after 4 turns.\n"


def test_the_decision_cells_only_report_when_nobody_clicked(tmp_path: Path) -> None:
    """Run All without clicks: the cells say the run waits for a decision instead of failing."""
    _nb, out = execute("03-agent-loop.ipynb", tmp_path)
    assert text(out["cell-05"]) == "Turn 2: write-1 pending, edit-1 pending\n"
    assert "Traceback" not in text(out["cell-06"])
    assert text(out["cell-07"]).startswith("The run still waits for your decision")


def test_an_ended_operator_agent_run_is_saved_as_a_static_card(tmp_path: Path) -> None:
    """A ``%%operator_agent`` run that ended is saved as its static copy: reopened without its
    kernel it shows the run as it ended, never "model not found" or "turn 0, starting"."""
    import json

    import nbformat
    from nbclient import NotebookClient
    from nbformat.v4 import new_code_cell, new_notebook
    from support.replies import b64, block

    from jupyter_operator.server.savehook import strip_final_widgets

    script = tmp_path / "script.jsonl"
    lines = [block("w1", "fs.write", path="a.txt", content_b64=b64("a\n")), "All done."]
    script.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    (tmp_path / "ws").mkdir()
    nb = new_notebook(cells=[
        new_code_cell("%load_ext jupyter_operator"),
        new_code_cell(f'%%operator_agent --replay "{script}" --root ws\nwrite a.txt'),
        # Decided in a later cell (nbclient takes a display update while a cell runs).
        new_code_cell("from jupyter_operator.kernel.agent_magics import last_agent\n"
                      "(await last_agent().waiting()).approve('w1')\n"
                      "print((await last_agent().wait()).reason)"),
    ])  # fmt: skip
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()  # fmt: skip
    assert text(nb.cells[2].outputs) == "done\n"
    [shown] = [o for o in nb.cells[1].outputs if WIDGET_MIME in o.get("data", {})]
    assert shown["metadata"]["jupyter_operator"] == {"final": True}, shown["data"]
    html = shown["data"]["text/html"]
    assert "ended: done" in html and "[Applied]" in html and "a.txt" in html
    assert "starting" not in html and "turn 0" not in html
    strip_final_widgets(nb)  # what the server's pre-save hook does
    assert WIDGET_MIME not in nb.cells[1].outputs[0]["data"]
    nbformat.validate(nb)
