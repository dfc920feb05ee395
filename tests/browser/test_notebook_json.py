"""The shell card in a real JupyterLab notebook: the exact command before approval, its output
after the click, markup shown as text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from browserkit import screenshot
from magic_notebooks import magic_notebook, run_cell, run_quick_cell
from notebook_cards import cards, results_box
from test_notebook_widgets import _approve_button

pytestmark = pytest.mark.timeout(240)

COMMAND = 'for i in 1 2 3; do echo "line $i <b>bold</b>"; sleep 0.3; done'


def _notebook(journal: Path) -> dict:
    reply = (
        "```json\n" + json.dumps({"type": "shell", "command": COMMAND, "env": {"A": "1"}}) + "\n```"
    )
    return magic_notebook(journal, "%%operator\n" + reply)


def test_shell_card_in_a_notebook(lab_server: Any, page: Any, tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    journal.mkdir()
    (lab_server.root / "operator-shell.ipynb").write_text(json.dumps(_notebook(journal)))
    page.goto(lab_server.page_url("lab/workspaces/operator-shell/tree/operator-shell.ipynb"))
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=60_000)
    run_quick_cell(page)
    run_cell(page, 1)
    card = cards(page, kind="shell")
    card.wait_for(timeout=60_000)
    command = card.locator(".jp-Operator-shell-command")
    assert command.inner_text() == COMMAND
    assert "A=1" in card.inner_text() and "Working folder" in card.inner_text()
    assert card.locator("b").count() == 0
    screenshot(page, "notebook-shell-pending")
    _approve_button(card).click()
    card.get_by_text("Exit code 0").wait_for(timeout=30_000)
    text = card.inner_text()
    assert "line 1 <b>bold</b>" in text and "line 3 <b>bold</b>" in text
    assert card.locator("b").count() == 0
    results = results_box(page)
    results.wait_for(timeout=30_000)
    assert '"type": "shell"' in results.input_value()
    screenshot(page, "notebook-shell-done")
