"""The shell card in a real JupyterLab notebook: the exact command before approval, its output
after the click, markup shown as text."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from browserkit import screenshot
from test_notebook_widgets import REPO, _approve_button

pytestmark = pytest.mark.timeout(240)

COMMAND = 'for i in 1 2 3; do echo "line $i <b>bold</b>"; sleep 0.3; done'


def _notebook(journal: Path) -> dict:
    reply = (
        "```json\n" + json.dumps({"type": "shell", "command": COMMAND, "env": {"A": "1"}}) + "\n```"
    )
    setup = (
        "import os, sys\n"
        f"sys.path.insert(0, {str(REPO)!r})\n"
        f"os.environ['JUPYTER_OPERATOR_JOURNAL_DIR'] = {str(journal)!r}\n"
        "%load_ext jupyter_operator"
    )
    cells = [setup, "%%operator\n" + reply]
    return {
        "cells": [
            {
                "cell_type": "code",
                "id": f"c{i}",
                "metadata": {},
                "source": src,
                "outputs": [],
                "execution_count": None,
            }
            for i, src in enumerate(cells)
        ],
        "metadata": {
            "kernelspec": {
                "name": "python3",
                "display_name": "Python 3 (ipykernel)",
                "language": "python",
            }
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def test_shell_card_in_a_notebook(lab_server: Any, page: Any, tmp_path: Path) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    journal = tmp_path / "journal"
    journal.mkdir()
    (lab_server.root / "operator-shell.ipynb").write_text(json.dumps(_notebook(journal)))
    page.goto(lab_server.page_url("lab/workspaces/operator-shell/tree/operator-shell.ipynb"))
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=60_000)
    cells = page.locator(".jp-Notebook .jp-Cell")
    ran = cells.nth(0).locator(".jp-InputPrompt", has_text=re.compile(r"\[\d+\]:"))
    for _ in range(4):  # a keystroke sent while the kernel connects can be lost
        cells.nth(0).locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        try:
            ran.wait_for(timeout=15_000)
            break
        except PlaywrightTimeout:
            continue
    cells.nth(1).locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")
    card = page.locator(".jpo-card.jpo-kind-shell")
    card.wait_for(timeout=60_000)
    command = card.locator(".jpo-command")
    assert command.inner_text() == COMMAND
    assert "A=1" in card.inner_text() and "Working folder" in card.inner_text()
    assert card.locator("b").count() == 0
    screenshot(page, "notebook-shell-pending")
    _approve_button(card).click()
    card.get_by_text("Exit code 0").wait_for(timeout=30_000)
    text = card.inner_text()
    assert "line 1 <b>bold</b>" in text and "line 3 <b>bold</b>" in text
    assert card.locator("b").count() == 0
    results = page.locator(".jpo-results textarea")
    results.wait_for(timeout=30_000)
    assert '"type": "shell"' in results.input_value()
    screenshot(page, "notebook-shell-done")
