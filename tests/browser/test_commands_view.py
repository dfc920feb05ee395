"""String commands in a real JupyterLab: the document rendered safely, the card approved."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from browserkit import screenshot

REPO = Path(__file__).resolve().parents[2]
NOTES = (
    "# Course notes\n\n## Setup\n\nInstall **the tools** with `pip`.\n\n"
    '<img src=x onerror="window.__operatorPwned = 1">\n\n'
    "[a link](javascript:window.__operatorPwned=2)\n\n## Later\n\nNot shown.\n"
)
SCRIPT = "%%operator --dialect commands\n/open notes.md#setup\n/write answers.md\n42\n/end\n/ls"

pytestmark = pytest.mark.timeout(240)


def _notebook(journal: Path) -> dict:
    setup = (
        "import os, sys\n"
        f"sys.path.insert(0, {str(REPO)!r})\n"
        f"os.environ['JUPYTER_OPERATOR_JOURNAL_DIR'] = {str(journal)!r}\n"
        "%load_ext jupyter_operator"
    )
    cells = [setup, SCRIPT]
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


def test_commands_in_jupyterlab(lab_server: Any, page: Any, tmp_path: Path) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    journal = tmp_path / "journal"
    journal.mkdir()
    (lab_server.root / "notes.md").write_text(NOTES, encoding="utf-8")
    (lab_server.root / "commands.ipynb").write_text(json.dumps(_notebook(journal)))
    target = lab_server.root / "answers.md"
    page.goto(lab_server.page_url("lab/workspaces/commands/tree/commands.ipynb"))
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=60_000)
    cells = page.locator(".jp-Notebook .jp-Cell")
    ran = cells.nth(0).locator(".jp-InputPrompt", has_text=re.compile(r"\[\d+\]:"))
    for _ in range(4):  # a Shift+Enter before the kernel connection is ready is lost
        cells.nth(0).locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        try:
            ran.wait_for(timeout=15_000)
            break
        except PlaywrightTimeout:
            continue
    cells.nth(1).locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")
    view = page.locator(".jpo-commands")
    card = view.locator(".jpo-card.jpo-kind-mutation")
    card.wait_for(timeout=60_000)

    doc = view.locator(".jpo-doc").first
    assert doc.locator("h2").inner_text() == "Setup"
    assert doc.locator("strong").inner_text() == "the tools"
    assert doc.locator("img").count() == 0 and doc.locator("a").count() == 0
    assert '<img src=x onerror="window.__operatorPwned = 1">' in doc.inner_text()
    assert "Not shown." not in doc.inner_text()
    assert "Proposed: write answers.md" in view.inner_text()
    screenshot(page, "commands-card")

    card.locator("button.jupyter-button", has_text=re.compile(r"^\s*Approve\s*$")).click()
    deadline = time.monotonic() + 30
    while not target.exists():
        assert time.monotonic() < deadline, "answers.md was not written"
        time.sleep(0.2)
    assert target.read_text(encoding="utf-8") == "42\n"
    view.get_by_text("Written: answers.md (3 bytes, 1 line)").wait_for(timeout=30_000)
    view.get_by_text("Listing ./").wait_for(timeout=30_000)
    assert page.evaluate("window.__operatorPwned === undefined")
    screenshot(page, "commands-applied")
