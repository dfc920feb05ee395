"""nb.runCell in a kernel the session owns: outputs, errors, timeouts, caps, and the stale guard."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cell_runs import cmd, details, insert_cell, joined, saved_cell

from jupyter_operator.engine import Operator, Policy
from jupyter_operator.execution.report import DETAILS_KEEP
from jupyter_operator.protocol import parse_results
from jupyter_operator.workspace.ledger import executions


def _result(run, id: str):
    return next(r for r in parse_results(run.results_text) if r.id == id)


def test_an_ok_run_returns_its_output_and_saves_it_in_the_notebook(op: Operator, ws: Path) -> None:
    run = op.run(cmd("r1", "nb.runCell", cell_id="c1"))
    (item,) = run.items
    assert (item.kind, item.status) == ("run", "pending")
    assert item.execution.request.source == "x = 41\nprint('set x')"
    assert item.execution.kernel.state == "not_started"
    assert (ws / "nb.ipynb").read_text().count("set x") == 1  # nothing ran before approval
    run.approve("r1")
    result = _result(run, "r1")
    assert result.ok and result.summary.startswith("Ran cell 1 (id c1) (In [1], ")
    assert "[stdout]\nset x" in details(run, "r1")
    cell = saved_cell(ws / "nb.ipynb", "c1")
    assert cell["execution_count"] == 1
    assert joined(cell["outputs"][0]["text"]) == "set x\n"
    entry = op.history()[-1]
    assert (entry.action, entry.command_id, entry.decided_by) == ("nb.runCell", "r1", "person")


def test_an_error_comes_back_with_its_traceback_without_colour_codes(op: Operator) -> None:
    run = op.run(cmd("r1", "nb.runCell", cell_id="c3"))
    run.approve("r1")
    result = _result(run, "r1")
    assert not result.ok and result.code == "ERR_CELL_ERROR"
    assert result.summary.startswith("Cell failed (ERR_CELL_ERROR): Ran cell 3 (id c3)")
    assert "ZeroDivisionError: division by zero" in result.summary
    text = details(run, "r1")
    assert "[error] ZeroDivisionError: division by zero" in text
    assert "----> 1 1/0" in text
    assert "\x1b[" not in text


def test_the_kernel_keeps_state_between_runs_and_reports_it_to_readcells(op: Operator) -> None:
    run = op.run(cmd("r1", "nb.runCell", cell_id="c1") + cmd("r2", "nb.runCell", cell_id="c2"))
    run.approve_all()
    assert "[stdout]\n42" in details(run, "r2")
    read = op.run(cmd("r3", "nb.readCells"))
    view = json.loads(details(read, "r3"))
    assert view["kernel"] == {"name": "python3", "state": "idle", "execution_count": 2,
                              "where": "headless"}  # fmt: skip
    assert view["cells"][2]["outputs"][0]["text"] == "42\n"


def test_a_timeout_interrupts_the_kernel_and_keeps_it(op: Operator, ws: Path) -> None:
    slow = "import time\nfor i in range(100):\n    print(i, flush=True)\n    time.sleep(0.1)"
    cell_id = insert_cell(op, ws, slow)
    run = op.run(cmd("r0", "nb.runCell", cell_id="c1") +
                 cmd("r1", "nb.runCell", cell_id=cell_id, timeout_s="1.5"))  # fmt: skip
    run.approve_all()
    result = _result(run, "r1")
    assert result.code == "ERR_CELL_TIMEOUT"
    assert "timeout after 1.5 s; the kernel was interrupted" in result.summary
    text = details(run, "r1")
    assert "KeyboardInterrupt" in text and "[stdout]\n0\n1\n" in text
    again = op.run(cmd("r2", "nb.runCell", cell_id="c2"))  # the same kernel, x still set
    again.approve_all()
    assert "[stdout]\n42" in details(again, "r2")


def test_an_endless_printer_is_capped_for_the_model_and_the_notebook(
    op: Operator, ws: Path
) -> None:
    endless = "while True:\n    print('y' * 200)"
    cell_id = insert_cell(op, ws, endless)
    run = op.run(cmd("r1", "nb.runCell", cell_id=cell_id, timeout_s="2"))
    run.approve_all()
    text = details(run, "r1")
    assert _result(run, "r1").code == "ERR_CELL_TIMEOUT"
    assert len(text) <= DETAILS_KEEP + 200
    assert "characters cut" in text
    saved = joined(saved_cell(ws / "nb.ipynb", cell_id)["outputs"][0]["text"])
    assert "characters dropped" in saved and len(saved) < 250_000


def test_an_image_is_described_never_pasted(op: Operator, ws: Path) -> None:
    source = (
        "import base64, struct, zlib\n"
        "from IPython.display import Image, display\n"
        "def chunk(t, d):\n"
        "    c = struct.pack('>I', len(d)) + t + d\n"
        "    return c + struct.pack('>I', zlib.crc32(t + d))\n"
        "raw = b''.join(b'\\x00' + b'\\xff\\x00\\x00' * 30 for _ in range(20))\n"
        "head = struct.pack('>IIBBBBB', 30, 20, 8, 2, 0, 0, 0)\n"
        "png = (b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', head)"
        " + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))\n"
        "display(Image(data=png))\n"
    )
    cell_id = insert_cell(op, ws, source)
    run = op.run(cmd("r1", "nb.runCell", cell_id=cell_id))
    run.approve_all()
    text = details(run, "r1")
    assert _result(run, "r1").ok, text
    assert "[image/png image 30x20, " in text
    assert "iVBOR" not in text  # no base64 for the model
    assert joined(
        saved_cell(ws / "nb.ipynb", cell_id)["outputs"][0]["data"]["image/png"]
    ).startswith("iVBOR")


def test_a_failed_pip_install_is_flagged_although_the_cell_succeeded(
    op: Operator, ws: Path
) -> None:
    source = "%pip install --no-index --quiet no-such-package-jupyter-operator-test"
    cell_id = insert_cell(op, ws, source)
    run = op.run(cmd("r1", "nb.runCell", cell_id=cell_id, timeout_s="120"))
    run.approve_all()
    assert _result(run, "r1").ok
    text = details(run, "r1")
    assert "note: the cell did not raise, but its output says: ERROR:" in text


def test_a_cell_edited_since_the_preview_is_refused_as_stale(op: Operator, ws: Path) -> None:
    run = op.run(cmd("r1", "nb.runCell", cell_id="c1"))
    edit = op.run(cmd("e1", "nb.replaceCell", cell_id="c1", content="x = 0"))
    edit.approve_all()
    run.approve("r1")
    result = _result(run, "r1")
    assert (result.code, run.items[0].status) == ("ERR_STALE_PREVIEW", "stale")
    assert "edited since the preview; nothing ran" in result.summary
    assert executions(op.journal) == []


def test_outputs_and_metadata_changes_are_not_edits(op: Operator, ws: Path) -> None:
    run = op.run(cmd("r1", "nb.runCell", cell_id="c2") + cmd("e1", "nb.replaceCell", cell_id="c1",
                                                              content="x = 1"))  # fmt: skip
    doc = json.loads((ws / "nb.ipynb").read_text())
    doc["cells"][2]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "old\n"}]
    doc["cells"][2]["metadata"] = {"collapsed": True}
    doc["metadata"]["language_info"] = {"name": "python"}
    (ws / "nb.ipynb").write_text(json.dumps(doc, indent=1))
    run.approve("r1")  # the run saves its outputs: the pending replace is not stale for it
    assert _result(run, "r1").code == "ERR_CELL_ERROR"  # NameError: x is not set yet
    run.approve("e1")
    assert _result(run, "e1").ok
    assert joined(saved_cell(ws / "nb.ipynb", "c1")["source"]) == "x = 1"


def test_a_restart_since_the_preview_is_detected(op: Operator) -> None:
    op.run(cmd("r0", "nb.runCell", cell_id="c1")).approve_all()
    run = op.run(cmd("r1", "nb.runCell", cell_id="c2"))
    assert run.items[0].execution.kernel.state == "idle"
    restart = op.run(cmd("k1", "nb.restartKernel"))
    assert "will be lost" in restart.items[0].execution.what
    restart.approve_all()
    assert _result(restart, "k1").summary.startswith("Restarted the kernel")
    run.approve("r1")
    result = _result(run, "r1")
    assert result.code == "ERR_STALE_PREVIEW" and "kernel restarted" in result.summary


def test_a_run_after_a_replace_in_the_same_reply_runs_the_approved_source(op: Operator) -> None:
    reply = cmd("e1", "nb.replaceCell", cell_id="c1", content="x = 1") + cmd(
        "r1", "nb.runCell", cell_id="c1") + cmd("r2", "nb.runCell", cell_id="c2")  # fmt: skip
    run = op.run(reply)
    _e1, r1, _r2 = run.items
    assert r1.builds_on == "e1" and r1.execution.request.source == "x = 1"
    edited = run.approve("e1", content=_with_cell(op, "c1", "x = 99"))
    assert edited.status == "applied"
    assert r1.execution.request.source == "x = 99"  # planned again from what was written
    run.approve("r1")
    run.approve("r2")
    assert "[stdout]\n100" in details(run, "r2")


def test_a_run_after_a_rejected_replace_does_not_run(op: Operator) -> None:
    run = op.run(cmd("e1", "nb.replaceCell", cell_id="c1", content="x = 1") +
                 cmd("r1", "nb.runCell", cell_id="c1"))  # fmt: skip
    run.reject("e1")
    assert _result(run, "r1").code == "ERR_BASE_REJECTED"
    assert executions(op.journal) == []


def test_approve_and_run_applies_the_change_and_returns_the_outputs(op: Operator, ws: Path) -> None:
    run = op.run(cmd("e1", "nb.replaceCell", cell_id="c3", content="print(6 * 7)"))
    assert run.items[0].to_dict()["can_run"] is True
    run.approve("e1", and_run=True)
    result = _result(run, "e1")
    assert result.ok and result.summary.startswith("Replaced cell c3, then ran it: Ran cell 3")
    assert "[stdout]\n42" in details(run, "e1")
    assert joined(saved_cell(ws / "nb.ipynb", "c3")["outputs"][0]["text"]) == "42\n"


def test_rebuild_state_restarts_and_runs_the_recorded_cells_again(op: Operator) -> None:
    op.run(
        cmd("r1", "nb.runCell", cell_id="c1") + cmd("r2", "nb.runCell", cell_id="c2")
    ).approve_all()
    op.run(cmd("k1", "nb.restartKernel")).approve_all()
    lost = op.run(cmd("r3", "nb.runCell", cell_id="c2"))
    lost.approve_all()
    assert "NameError" in _result(lost, "r3").summary
    # The ledger since the restart holds only the failed r3; rebuild from before the restart:
    op.run(cmd("r4", "nb.runCell", cell_id="c1")).approve_all()
    rebuild = op.run(cmd("b1", "nb.rebuildState"))
    assert rebuild.items[0].execution.what.startswith("the kernel's state: restart, then 2 cells")
    rebuild.approve_all()
    result = _result(rebuild, "b1")
    assert result.ok and "ran 2 cells; all ok" in result.summary
    after = op.run(cmd("r5", "nb.runCell", cell_id="c2"))
    after.approve_all()
    assert "[stdout]\n42" in details(after, "r5")


def test_every_run_is_in_the_ledger_in_order(op: Operator) -> None:
    op.run(
        cmd("r1", "nb.runCell", cell_id="c1") + cmd("r2", "nb.runCell", cell_id="c3")
    ).approve_all()
    found = executions(op.journal)
    assert [(r.command_id, r.cell_id, r.execution_count, r.status, r.where) for r in found] == [
        ("r1", "c1", 1, "ok", "headless"), ("r2", "c3", 2, "error", "headless")]  # fmt: skip
    assert found[0].kernel_identity == found[1].kernel_identity
    assert len(found[0].source_sha256 or "") == 64


def test_rebuild_right_after_a_restart_repeats_what_the_lost_kernel_ran(op: Operator) -> None:
    op.run(cmd("r1", "nb.runCell", cell_id="c2") + cmd("r2", "nb.runCell", cell_id="c1") +
           cmd("r3", "nb.runCell", cell_id="c2")).approve_all()  # fmt: skip
    op.run(cmd("k1", "nb.restartKernel")).approve_all()
    rebuild = op.run(cmd("b1", "nb.rebuildState"))
    request = rebuild.items[0].execution.request
    assert [cell[0] for cell in request.cells] == ["c1", "c2"]  # once each, notebook order
    rebuild.approve_all()
    assert _result(rebuild, "b1").ok
    assert "== Ran cell c2 (In [2], " in details(rebuild, "b1") and "[stdout]\n42" in details(
        rebuild, "b1"
    )


def test_runs_ask_by_default_and_follow_rules(ws: Path, tmp_path: Path) -> None:
    rules = Policy.parse("auto nb.runCell scratch/**\ndeny nb.restartKernel **")
    (ws / "scratch").mkdir()
    (ws / "scratch" / "s.ipynb").write_text((ws / "nb.ipynb").read_text())
    with Operator(ws, extensions=("nb",), journal_dir=tmp_path / "j", policy=rules) as op:
        run = op.run(cmd("r1", "nb.runCell", cell_id="c1") +
                     cmd("r2", "nb.runCell", notebook="scratch/s.ipynb", cell_id="c1") +
                     cmd("k1", "nb.restartKernel"))  # fmt: skip
        r1, r2, k1 = run.items
        assert r1.status == "pending" and r1.rule == "default: ask"
        assert r2.status == "done" and r2.decided_by == "rule"
        assert k1.status == "denied" and k1.error_code == "ERR_POLICY_DENIED"
    with Operator(ws, extensions=("nb",), journal_dir=tmp_path / "j",
                  policy=Policy.parse("auto writes")) as op:  # fmt: skip
        assert op.run(cmd("r1", "nb.runCell", cell_id="c1")).items[0].status == "pending"


def _with_cell(op: Operator, cell_id: str, source: str) -> bytes:
    doc = json.loads((op.root / "nb.ipynb").read_text())
    for cell in doc["cells"]:
        if cell.get("id") == cell_id:
            cell["source"] = source
    return (json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()


def test_a_run_shares_the_reply_output_budget_with_reads(op: Operator) -> None:
    run = op.run(cmd("r1", "nb.runCell", cell_id="c3"))
    run.budget.used = run.budget.limit - 120  # the reads of the reply took nearly all of it
    run.approve("r1")
    text = details(run, "r1")
    assert len(text.encode()) <= 120 and "characters cut" in text
    assert run.budget.used <= run.budget.limit
    assert _result(run, "r1").code == "ERR_CELL_ERROR"  # the run happened; only its text is cut


def test_a_saved_pending_run_comes_back_and_runs(op: Operator, ws: Path, tmp_path: Path) -> None:
    """A server restarted while a run card waited: the card comes back, and runs."""
    from jupyter_operator.engine.persist import dump_run, load_data, load_run

    reply = cmd("r1", "nb.runCell", cell_id="c1")
    saved = dump_run(op.run(reply), reply)
    fresh = Operator(ws, extensions=("nb",), journal_dir=tmp_path / "journal")
    again = load_run(fresh, load_data(saved))
    (item,) = again.items
    assert item.status == "pending" and item.execution.request.source.startswith("x = 41")
    again.approve("r1")
    assert _result(again, "r1").ok and "[stdout]\nset x" in details(again, "r1")
    fresh.close()


@pytest.mark.parametrize("rule", ["deny runs", "deny nb.runCell **", "deny nb.runCell nb.ipynb",
                                  "deny runs nb.ipynb"])  # fmt: skip
def test_approve_and_run_applies_the_change_but_a_deny_rule_keeps_the_cell_from_running(
    ws: Path, tmp_path: Path, rule: str
) -> None:
    """A person's Approve & Run approves the change; it does not lift a rule refusing runs."""
    with Operator(ws, extensions=("nb",), journal_dir=tmp_path / "j",
                  policy=Policy.parse(rule)) as op:  # fmt: skip
        run = op.run(cmd("e1", "nb.replaceCell", cell_id="c3", content="print(6 * 7)"))
        item = run.items[0]
        assert item.status == "pending" and item.to_dict()["can_run"] is False  # not offered
        run.approve("e1", and_run=True)  # asked for anyway (an old card, a script)
        result = _result(run, "e1")
        assert item.status == "applied" and item.execution is None
        assert (result.ok, result.code) == (False, "ERR_POLICY_DENIED")
        assert result.summary == (
            "Denied (ERR_POLICY_DENIED): Replaced cell c3; the cell did not run: nb.runCell is "
            f"not allowed in this workspace (rule 1: {rule})."
        )
        assert joined(saved_cell(ws / "nb.ipynb", "c3")["source"]) == "print(6 * 7)"
        assert saved_cell(ws / "nb.ipynb", "c3")["outputs"] == []
        assert executions(op.journal) == []


def test_approve_and_run_in_a_no_run_notebook_applies_the_change_only(
    op: Operator, ws: Path
) -> None:
    doc = json.loads((ws / "nb.ipynb").read_text())
    doc["metadata"]["jupyter_operator"] = {"policy": "no-run"}
    (ws / "nb.ipynb").write_text(json.dumps(doc, indent=1))
    run = op.run(cmd("e1", "nb.replaceCell", cell_id="c3", content="print(6 * 7)"))
    run.approve("e1", and_run=True)
    result = _result(run, "e1")
    assert run.items[0].status == "applied" and result.code == "ERR_NOTEBOOK_POLICY"
    assert "Replaced cell c3; the cell did not run: " in result.summary
    assert "then ran it" not in result.summary
    assert executions(op.journal) == []


def test_a_timeout_above_the_maximum_runs_with_the_maximum_and_says_so(op: Operator) -> None:
    run = op.run(cmd("r1", "nb.runCell", cell_id="c1", timeout_s="1000"))
    assert run.items[0].status == "pending", run.items[0].summary
    assert run.items[0].execution.request.timeout_s == 600
    run.approve_all()
    result = _result(run, "r1")
    assert result.ok, result.summary
    assert result.summary.endswith("(timeout_s 1000 is above the maximum: the run had 600 s)")


def test_a_run_whose_outcome_cannot_be_reported_still_ends(
    ws: Path, tmp_path: Path, monkeypatch
) -> None:
    """Whatever goes wrong while its result is made, a finished run does not stay running."""
    from jupyter_operator.engine import executions
    from jupyter_operator.execution import DeferredRunner, Outcome

    op = Operator(ws, extensions=("nb",), journal_dir=tmp_path / "j2", runner=DeferredRunner())
    run = op.run(cmd("r1", "nb.runCell", cell_id="c1"))
    run.approve("r1")
    assert run.items[0].status == "running"
    monkeypatch.setattr(executions, "result_of", lambda *args: 1 / 0)
    run.finish_execution("r1", Outcome("ok", 1, 5))
    item = run.items[0]
    assert (item.status, item.result.code) == ("failed", "ERR_IO")
    assert "the run ended (ok), but its outputs could not be read" in item.result.summary


def test_a_rebuild_whose_cell_was_edited_since_the_preview_is_refused_naming_it(
    op: Operator, ws: Path
) -> None:
    op.run(cmd("r1", "nb.runCell", cell_id="c1") + cmd("r2", "nb.runCell", cell_id="c2")
           ).approve_all()  # fmt: skip
    rebuild = op.run(cmd("b1", "nb.rebuildState"))
    assert [cell[0] for cell in rebuild.items[0].execution.request.cells] == ["c1", "c2"]
    op.run(cmd("e1", "nb.replaceCell", cell_id="c2", content="print('edited')")).approve_all()
    before = (ws / "nb.ipynb").read_bytes()
    identity = rebuild.items[0].execution.kernel.identity
    rebuild.approve_all()
    result = _result(rebuild, "b1")
    assert (result.code, rebuild.items[0].status) == ("ERR_STALE_PREVIEW", "stale")
    assert "cell c2 was edited since the preview; nothing ran" in result.summary
    assert (ws / "nb.ipynb").read_bytes() == before  # no outputs saved under the edited cell
    assert op.runner.kernel("nb.ipynb", "python3").identity == identity  # not restarted
    deleted = op.run(cmd("b2", "nb.rebuildState"))
    op.run(cmd("d1", "nb.deleteCell", cell_id="c1")).approve_all()
    deleted.approve_all()
    assert "cell c1 is no longer there" in _result(deleted, "b2").summary


def test_a_kernel_that_died_after_the_preview_is_not_restarted_silently(op: Operator) -> None:
    op.run(cmd("r1", "nb.runCell", cell_id="c1")).approve_all()
    run = op.run(cmd("r2", "nb.runCell", cell_id="c2"))
    assert run.items[0].execution.kernel.state == "idle"
    kernel = op.runner._kernels["nb.ipynb"]
    kernel.proc.kill()  # out of memory, say
    kernel.proc.wait()
    run.approve("r2")
    result = _result(run, "r2")
    assert (result.code, run.items[0].status) == ("ERR_STALE_PREVIEW", "stale")
    assert "the kernel died since the preview" in result.summary
    assert op.runner._kernels["nb.ipynb"] is kernel  # no new kernel was started for it
    # Previewed on the dead kernel, a run says so on its card and starts a new one.
    again = op.run(cmd("r3", "nb.runCell", cell_id="c2"))
    assert again.items[0].execution.kernel.state == "dead"
    again.approve_all()
    assert "NameError" in _result(again, "r3").summary  # a new, empty kernel


def test_the_summary_shows_the_first_lines_of_the_output(op: Operator, ws: Path) -> None:
    """A small model sees what printed without decoding details_b64."""
    run = op.run(cmd("r1", "nb.runCell", cell_id="c1") + cmd("r2", "nb.runCell", cell_id="c2"))
    run.approve_all()
    assert _result(run, "r1").summary.endswith("s): ok; output: set x")
    assert _result(run, "r2").summary.endswith("s): ok; output: 42")
    cell_id = insert_cell(op, ws, "for i in range(50):\n    print(i)\n21.0", index=4)
    many = op.run(cmd("r3", "nb.runCell", cell_id=cell_id))
    many.approve_all()
    assert _result(many, "r3").summary.endswith("s): ok; output: 0\\n1\\n2...")
    wide = op.run(cmd("e1", "nb.replaceCell", cell_id=cell_id, content="print('w' * 5000)") +
                  cmd("r4", "nb.runCell", cell_id=cell_id))  # fmt: skip
    wide.approve_all()
    summary = _result(wide, "r4").summary
    assert summary.endswith("w" * 200 + "...") and len(summary) < 300
    result = op.run(cmd("e2", "nb.replaceCell", cell_id=cell_id, content="x / 2") +
                    cmd("r5", "nb.runCell", cell_id=cell_id))  # fmt: skip
    result.approve_all()
    assert _result(result, "r5").summary.endswith("s): ok; output: 20.5")
    failed = op.run(cmd("r6", "nb.runCell", cell_id="c3"))
    failed.approve_all()
    assert _result(failed, "r6").summary.endswith("error ZeroDivisionError: division by zero")


def test_a_rebuild_that_stops_says_where_and_why_in_its_summary(op: Operator) -> None:
    op.run(cmd("r1", "nb.runCell", cell_id="c1") + cmd("r2", "nb.runCell", cell_id="c3")
           ).approve_all()  # fmt: skip
    rebuild = op.run(cmd("b1", "nb.rebuildState"))
    rebuild.approve_all()
    assert _result(rebuild, "b1").summary.endswith(
        "ran 2 cells; stopped at cell c3: error ZeroDivisionError: division by zero")


def test_huge_rich_outputs_are_capped_in_the_notebook_and_the_results(
    op: Operator, ws: Path
) -> None:
    """One approved cell must not make a notebook no nb.* action can read again."""
    from jupyter_operator.execution.streams import (
        MAX_OUTPUTS,
        OUTPUT_MAX_CHARS,
        RUN_OUTPUT_MAX_CHARS,
    )

    source = ("from IPython.display import display\n"
              "display({'image/png': 'A' * 12_000_000, 'text/plain': '<Figure>'}, raw=True)\n"
              "for i in range(80):\n"
              "    display({'text/html': 'h' * 200_000}, raw=True)\n"
              "21.0")  # fmt: skip
    cell_id = insert_cell(op, ws, source)
    run = op.run(cmd("r1", "nb.runCell", cell_id=cell_id))
    run.approve_all()
    result = _result(run, "r1")
    assert result.ok, result.summary
    size = (ws / "nb.ipynb").stat().st_size
    assert size < RUN_OUTPUT_MAX_CHARS + 500_000
    outputs = saved_cell(ws / "nb.ipynb", cell_id)["outputs"]
    first = joined(outputs[0]["data"]["text/plain"])
    assert first.startswith("[output not kept: a display_data of 12,000,008 characters "
                            "(image/png, text/plain); a cell run keeps at most 1,000,000")
    assert first.endswith("\n<Figure>") and "image/png" not in outputs[0]["data"]
    assert joined(outputs[-2]["data"]["text/plain"]) == "21.0"  # the value is always kept
    dropped = joined(outputs[-1]["text"])
    assert dropped.startswith("[") and "more outputs (" in dropped
    assert f"at most {MAX_OUTPUTS} outputs and {RUN_OUTPUT_MAX_CHARS:,} characters" in dropped
    assert all(len(json.dumps(output)) < OUTPUT_MAX_CHARS + 1000 for output in outputs)
    text = details(run, "r1")  # the model is told what was cut, too
    assert "[output not kept: a display_data of 12,000,008 characters" in text
    assert "more outputs (" in text and "not kept" in text
    assert "ok; output: [output not kept: a display_data of 12,000,008 " in result.summary
    read = op.run(cmd("r2", "nb.readCells"))  # every nb.* action still works on it
    assert _result(read, "r2").ok


def test_outputs_that_would_make_the_notebook_too_large_to_read_are_not_saved(
    op: Operator, ws: Path
) -> None:
    from jupyter_operator.workspace import MAX_PLANNED_BYTES

    doc = json.loads((ws / "nb.ipynb").read_text())
    filler = {"output_type": "stream", "name": "stdout", "text": "f" * (MAX_PLANNED_BYTES - 60_000)}
    doc["cells"][2]["outputs"] = [filler]
    (ws / "nb.ipynb").write_text(json.dumps(doc))
    before = (ws / "nb.ipynb").read_bytes()
    cell_id = insert_cell(op, ws, "print('p' * 150_000)")
    after_insert = (ws / "nb.ipynb").read_bytes()
    assert len(after_insert) < MAX_PLANNED_BYTES and after_insert != before
    run = op.run(cmd("r1", "nb.runCell", cell_id=cell_id))
    run.approve_all()
    result = _result(run, "r1")
    assert result.ok  # the run happened; only its outputs were not saved
    assert "note: the outputs were not saved: the notebook would be " in details(run, "r1")
    assert (ws / "nb.ipynb").read_bytes() == after_insert
    assert _result(op.run(cmd("r2", "nb.readCells")), "r2").ok


def test_two_spellings_of_a_notebook_share_one_kernel_and_one_history(op: Operator) -> None:
    """``nb.ipynb``, ``./nb.ipynb`` and ``.//nb.ipynb/`` are one notebook: the second run sees
    the first run's variable, and the ledger keeps one history under the canonical path."""
    run = op.run(cmd("r1", "nb.runCell", notebook="nb.ipynb", cell_id="c1"))
    run.approve("r1")
    run = op.run(cmd("r2", "nb.runCell", notebook="./nb.ipynb", cell_id="c2"))
    (item,) = run.items
    assert [r["cell_id"] for r in item.execution.ran_before] == ["c1"]
    run.approve("r2")
    assert "[stdout]\n42" in details(run, "r2"), details(run, "r2")
    run = op.run(cmd("k1", "nb.readCells", notebook=".//nb.ipynb/"))
    assert '"kernel":{"name":"python3","state":"idle","execution_count":2' in details(run, "k1")
    records = executions(op.journal)
    assert [(r.notebook, r.cell_id) for r in records] == [("nb.ipynb", "c1"), ("nb.ipynb", "c2")]
    assert len({r.kernel_identity for r in records}) == 1
