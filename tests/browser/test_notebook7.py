"""Smoke test: the Operator panel and its commands load and work in Notebook 7."""

from __future__ import annotations

import json

import pytest
from browserkit import run_palette_command, screenshot

pytestmark = pytest.mark.timeout(180)

PANEL = "#jupyter-operator-panel"


def test_panel_and_cell_command_in_notebook7(notebook_server, page) -> None:
    root = notebook_server.root
    (root / "hello.txt").write_text("hello from notebook 7\n")
    source = "\n".join(
        [
            "%%operator",
            "OPERATOR_CMD",
            "version: 1",
            "id: nb7-read",
            "action: fs.read",
            "path: hello.txt",
            "END_OPERATOR_CMD",
        ]
    )
    notebook = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "id": "c1",
                "metadata": {},
                "source": source,
                "outputs": [],
            }
        ],
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (root / "nb7.ipynb").write_text(json.dumps(notebook))
    # The file browser page loads the plugin too; it must not fail there.
    page.goto(notebook_server.page_url("tree"))
    page.locator(".jp-DirListing-item", has_text="nb7.ipynb").wait_for(timeout=60_000)
    assert not [e for e in page.console_errors if "operator" in e.lower()]
    # The workspace files view needs JupyterLab's main area; Notebook 7 does not offer it.
    page.keyboard.press("Control+Shift+C")
    page.locator(".lm-CommandPalette-input").fill("Operator: Open")
    page.locator(".lm-CommandPalette-item", has_text="Operator: Open panel").wait_for()
    assert page.locator(".lm-CommandPalette-item", has_text="Open workspace files").count() == 0
    page.keyboard.press("Escape")

    page.goto(notebook_server.page_url("notebooks/nb7.ipynb"))
    page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=60_000)

    # The palette command opens the panel in Notebook 7's right side area.
    run_palette_command(page, "Operator: Open panel", "Operator: Open panel")
    page.locator(f"{PANEL} .jp-Operator-input").wait_for(state="visible")

    # The cell toolbar button sends the cell's commands to the server behind the base_url.
    page.locator(".jp-Notebook .jp-Cell .jp-InputArea-editor").first.click()
    page.locator('.jp-cell-toolbar [data-command="jupyter-operator:run-cell"]').first.click()
    card = page.locator(f'{PANEL} .jp-Operator-card[data-id="nb7-read"][data-status="done"]')
    card.wait_for()
    assert "hello from notebook 7" in card.text_content()
    assert "source" in page.locator(f"{PANEL} .jp-Operator-source").text_content()
    screenshot(page, "notebook7-panel")
    assert not [e for e in page.console_errors if "operator" in e.lower()]


def test_approve_and_run_in_notebook7(notebook_server, page) -> None:
    """Notebook 7: Run and Approve & Run put the outputs in the open cells, and the model
    receives them."""
    from support.cell_notebooks import code
    from support.cell_notebooks import notebook as notebook_text
    from support.cell_runs import FIXED, b64
    from test_lab_cell_runs import block, result_of, wait_output

    root = notebook_server.root
    (root / "fix7.ipynb").write_text(notebook_text(code("values = [3, 4, 5]", id="load"),
                                                   code("print(totl)", id="mean")))  # fmt: skip
    page.goto(notebook_server.page_url("notebooks/fix7.ipynb"))
    page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=60_000)
    page.get_by_text("Kernel status: Idle").first.wait_for(state="attached", timeout=60_000)
    run_palette_command(page, "Operator: Open panel", "Operator: Open panel")
    page.locator(f"{PANEL} .jp-Operator-input").wait_for(state="visible")
    reply = block("r1", "nb.runCell", notebook="fix7.ipynb", cell_id="load") + "\n" + block(
        "e1", "nb.replaceCell", notebook="fix7.ipynb", cell_id="mean", content_b64=b64(FIXED))
    page.locator(f"{PANEL} .jp-Operator-input").fill(reply)
    page.locator(f"{PANEL} .jp-Operator-run").click()
    run = page.locator(f'{PANEL} .jp-Operator-card[data-id="r1"][data-status="pending"]')
    run.wait_for(timeout=30_000)
    run.locator(".jp-Operator-approve").click()
    page.locator(f'{PANEL} .jp-Operator-card[data-id="r1"][data-status="done"]').wait_for(
        timeout=60_000)
    fix = page.locator(f'{PANEL} .jp-Operator-card[data-id="e1"][data-status="pending"]')
    fix.locator(".jp-Operator-approve-run").click()
    page.locator(f'{PANEL} .jp-Operator-card[data-id="e1"][data-status="applied"]').wait_for(
        timeout=60_000)
    wait_output(page, 1, "mean 4.0")
    result = result_of(page, "e1")
    assert result.ok and "mean 4.0" in (result.details or "")
    screenshot(page, "notebook7-approve-and-run")
    assert not [e for e in page.console_errors if "operator" in e.lower()]
