"""Cell runs from the panel in a real JupyterLab: Run puts the output in the open cell and the
model receives it; Approve & Run changes and runs a cell in one click; History shows the ledger;
Rebuild state brings the kernel back after a restart."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from browserkit import screenshot
from support.cell_notebooks import code, notebook
from support.cell_runs import FIXED, b64
from test_lab_panel import PANEL, card, open_lab, results_text, run_reply, wait_status
from test_lab_panel_state import open_history

from jupyter_operator.protocol import parse_results

pytestmark = pytest.mark.timeout(300)


def block(cmd_id: str, action: str, **fields: str) -> str:
    lines = ["OPERATOR_CMD", "version: 1", f"id: {cmd_id}", f"action: {action}"]
    lines += [f"{key}: {value}" for key, value in fields.items()]
    return "\n".join([*lines, "END_OPERATOR_CMD"])


def output_of(page, index: int) -> str:
    return page.locator(".jp-NotebookPanel:visible .jp-Cell").nth(index).locator(
        ".jp-OutputArea").inner_text()  # fmt: skip


def wait_output(page, index: int, text: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while text not in output_of(page, index):
        assert time.monotonic() < deadline, f"cell {index} shows {output_of(page, index)!r}"
        time.sleep(0.2)


def result_of(page, cmd_id: str):
    return next(r for r in parse_results(results_text(page)) if r.id == cmd_id)


def restart_kernel(page) -> None:
    """Restart the open notebook's kernel the way a person does (menu command, dialog)."""
    page.locator(".jp-NotebookPanel:visible .jp-Cell").first.click()
    page.keyboard.press("Escape")
    page.keyboard.press("0")
    page.keyboard.press("0")
    page.locator(".jp-Dialog .jp-Dialog-button.jp-mod-accept").click()
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=60_000)


def test_run_approve_and_run_history_and_rebuild(lab_server, page) -> None:
    root: Path = lab_server.root
    (root / "fix.ipynb").write_text(notebook(code("values = [3, 4, 5]", id="load"),
                                             code("print('mean', totl / len(values))",
                                                  id="mean")))  # fmt: skip
    open_lab(page, lab_server, "fix.ipynb")
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=60_000)

    run_reply(page, block("r1", "nb.runCell", notebook="fix.ipynb", cell_id="load") + "\n" +
              block("r2", "nb.runCell", notebook="fix.ipynb", cell_id="mean"))  # fmt: skip
    wait_status(page, "r1", "pending")
    run_card = card(page, "r2")
    assert "print('mean', totl / len(values))" in run_card.locator(
        ".jp-Operator-run-source").inner_text()
    assert "NOT sandboxed" in run_card.locator(".jp-Operator-run-reach").inner_text()
    assert output_of(page, 1).strip() == ""  # nothing ran before the click
    screenshot(page, "lab-cell-run-pending")
    started = time.monotonic()
    card(page, "r1").locator(".jp-Operator-approve", has_text="Run").click()
    wait_status(page, "r1", "done")
    click_to_done = time.monotonic() - started
    run_card.locator(".jp-Operator-approve").click()
    wait_status(page, "r2", "failed")
    wait_output(page, 1, "NameError")  # the error is in the open cell, as if the person ran it
    failed = result_of(page, "r2")
    assert failed.code == "ERR_CELL_ERROR" and "NameError" in failed.summary
    assert "name 'totl' is not defined" in (failed.details or "")
    screenshot(page, "lab-cell-run-error")

    # Approve & Run: the fixed source is applied to the open cell (the notebook is open here,
    # so the change goes to the page, not the file) and run there.
    run_reply(page, block("e1", "nb.replaceCell", notebook="fix.ipynb", cell_id="mean",
                          content_b64=b64(FIXED)))  # fmt: skip
    wait_status(page, "e1", "pending")
    card(page, "e1").locator(".jp-Operator-approve-run").click()
    wait_status(page, "e1", "applied")
    wait_output(page, 1, "mean 4.0")
    fixed = result_of(page, "e1")
    assert fixed.ok and "then ran it" in fixed.summary and "mean 4.0" in (fixed.details or "")
    screenshot(page, "lab-cell-approve-and-run")
    # The person saves the notebook the change was applied to, as after any edit of theirs.
    page.locator(".jp-NotebookPanel:visible .jp-Cell").first.click()
    page.keyboard.press("Control+s")
    page.wait_for_function("() => !document.querySelector('.lm-DockPanel-tabBar "
                           ".lm-mod-current.jp-mod-dirty')")  # fmt: skip
    saved = json.loads((root / "fix.ipynb").read_text())
    assert FIXED in ["".join(c["source"]) for c in saved["cells"]]

    # History: the ledger of runs, and the plain word that undo does not roll a kernel back.
    open_history(page)
    ledger = page.locator(f'{PANEL} .jp-Operator-ledger-notebook[data-notebook="fix.ipynb"]')
    ledger.wait_for(timeout=30_000)
    rows = ledger.locator(".jp-Operator-ledger-row").all_inner_texts()
    assert any("cell mean" in row and "error" in row for row in rows)
    assert any("cell load" in row and ": ok" in row for row in rows)
    assert "not the kernel" in ledger.inner_text()
    screenshot(page, "lab-cell-run-history")

    # A restart loses the state; Rebuild state (one card) runs the recorded cells again.
    restart_kernel(page)
    ledger.locator(".jp-Operator-rebuild").click()
    rebuild = page.locator(f"{PANEL} .jp-Operator-card[data-kind='run']").first
    rebuild.wait_for(timeout=30_000)
    assert "The kernel restarts" in rebuild.inner_text()
    rebuild.locator(".jp-Operator-approve").click()
    page.locator(f"{PANEL} .jp-Operator-card[data-kind='run'][data-status='done']").wait_for(
        timeout=60_000)
    wait_output(page, 1, "mean 4.0")
    assert "all ok" in rebuild.inner_text()
    screenshot(page, "lab-cell-rebuild-state")
    print(f"click to done (trivial cell, first run): {click_to_done * 1000:.0f} ms")
    assert page.console_errors == []
