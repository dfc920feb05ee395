"""Cell runs outlive the page that started them: a page reloaded while a cell ran shows the run
ended (interrupted, since its old page can no longer report it) instead of Running forever, and
the cell is not run again."""

from __future__ import annotations

import time

import pytest
from browserkit import screenshot, show_operator_panel
from support.cell_notebooks import code, notebook
from test_lab_cell_runs import block, result_of
from test_lab_panel import PANEL, card, open_lab, run_reply, wait_status

pytestmark = pytest.mark.timeout(300)

SLOW = "import time\ntime.sleep(5)\nprint('slept')"


def panel_after_reload(page) -> None:
    """After a reload with a notebook open: wait for the shell, show the panel."""
    show_operator_panel(page)


def test_a_reload_during_a_cell_run_ends_its_card_as_interrupted(lab_server, page) -> None:
    root = lab_server.root
    (root / "slow.ipynb").write_text(notebook(code(SLOW, id="slow")))
    open_lab(page, lab_server, "slow.ipynb")
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=60_000)
    run_reply(page, block("s1", "nb.runCell", notebook="slow.ipynb", cell_id="slow"))
    wait_status(page, "s1", "pending")
    card(page, "s1").locator(".jp-Operator-approve", has_text="Run").click()
    wait_status(page, "s1", "running")
    page.locator("#jp-main-statusbar").get_by_text("Busy").wait_for(timeout=30_000)
    screenshot(page, "lab-cell-run-before-reload")

    page.reload()
    reloaded = time.monotonic()
    panel_after_reload(page)
    ended = page.locator(f'{PANEL} .jp-Operator-card[data-id="s1"]:not([data-status="running"])')
    screenshot(page, "lab-cell-run-after-reload")
    ended.wait_for(timeout=30_000)
    took = time.monotonic() - reloaded
    assert ended.get_attribute("data-status") == "failed"
    result = result_of(page, "s1")
    assert result.code == "ERR_CELL_INTERRUPTED" and "went away" in result.summary
    assert "Running in the notebook" not in ended.inner_text()
    screenshot(page, "lab-cell-run-interrupted-after-reload")
    # Nothing runs twice: the reloaded page never starts the cell again.
    time.sleep(6)
    counts = page.locator(".jp-NotebookPanel:visible .jp-InputArea-prompt").all_inner_texts()
    assert not any("[2]" in c for c in counts), counts
    print(f"reload to interrupted card: {took:.1f} s")
    assert page.console_errors == []
