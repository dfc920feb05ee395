"""The JupyterLab panel runs the notebook cell actions (the server enables them) and copies a
spec that describes them."""

from __future__ import annotations

import pytest
from browserkit import LabServer, screenshot
from support.cell_notebooks import cells_of, standard
from support.replies import block
from test_lab_panel import PANEL, card, open_lab, results_text, run_reply, wait_status

from jupyter_operator.protocol import parse_results

pytestmark = pytest.mark.timeout(240)


def test_a_cell_action_in_the_panel(lab_server: LabServer, page) -> None:
    root = lab_server.root
    (root / "cells.ipynb").write_text(standard())
    reply = "\n".join([
        "Reading the notebook, then moving the last cell first.",
        block("r1", "nb.readCells", notebook="cells.ipynb"),
        block("m1", "nb.moveCell", notebook="cells.ipynb", cell_id="calc", index="2",
              to_index="0"),
    ])  # fmt: skip
    open_lab(page, lab_server)
    # What no workspace may reach is listed under the workspace selector.
    page.locator(f"{PANEL} .jp-Operator-out-of-reach summary").click()
    listed = page.locator(f"{PANEL} .jp-Operator-out-of-reach-list")
    listed.wait_for(timeout=30_000)
    assert "~/.ssh" in listed.text_content() and "runtime" in listed.text_content()
    screenshot(page, "lab-panel-out-of-reach")
    run_reply(page, reply)
    wait_status(page, "r1", "done")
    # The person reads cells, not the model's line of JSON (that is in the results box).
    cells = card(page, "r1").locator(".jp-Operator-read-cell")
    assert cells.count() == 3
    assert cells.nth(0).locator(".jp-Operator-read-cell-index").text_content() == "[0]"
    screenshot(page, "lab-cell-action-read-cells")
    wait_status(page, "m1", "pending")
    assert "cells.ipynb" in card(page, "m1").text_content()
    screenshot(page, "lab-cell-action-pending")
    card(page, "m1").locator(".jp-Operator-approve").click()
    wait_status(page, "m1", "applied")
    assert [c[0] for c in cells_of(root / "cells.ipynb")] == ["calc", "intro", "load"]
    results = {r.id: r for r in parse_results(results_text(page))}
    assert results["m1"].summary == "Moved cell calc to index 0"
    assert '"cell_count":3' in results["r1"].details
    screenshot(page, "lab-cell-action-applied")


def test_the_copied_spec_describes_the_cell_actions(lab_server: LabServer, page) -> None:
    open_lab(page, lab_server)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.locator(f"{PANEL} .jp-Operator-copy-spec").click()
    page.locator(f"{PANEL} .jp-Operator-note", has_text="specification copied").wait_for()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert "NOTEBOOK CELL ACTIONS" in copied and "nb.moveCell" in copied
