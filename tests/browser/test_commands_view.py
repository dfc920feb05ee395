"""String commands in a real JupyterLab: the document rendered safely, the card approved."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from browserkit import screenshot
from magic_notebooks import magic_notebook, run_cell, run_quick_cell
from notebook_cards import button, cards, results_box, status_is

NOTES = (
    "# Course notes\n\n## Setup\n\nInstall **the tools** with `pip`.\n\n"
    '<img src=x onerror="window.__operatorPwned = 1">\n\n'
    "[a link](javascript:window.__operatorPwned=2)\n\n## Later\n\nNot shown.\n"
)
SCRIPT = "%%operator --dialect commands\n/open notes.md#setup\n/write answers.md\n42\n/end\n/ls"

pytestmark = pytest.mark.timeout(240)


def test_commands_in_jupyterlab(lab_server: Any, page: Any, tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    journal.mkdir()
    (lab_server.root / "notes.md").write_text(NOTES, encoding="utf-8")
    (lab_server.root / "commands.ipynb").write_text(json.dumps(magic_notebook(journal, SCRIPT)))
    target = lab_server.root / "answers.md"
    page.goto(lab_server.page_url("lab/workspaces/commands/tree/commands.ipynb"))
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=60_000)
    run_quick_cell(page)
    run_cell(page, 1)
    view = page.locator(".jp-Operator-run-widget")
    card = cards(page, kind="mutation")
    card.wait_for(timeout=60_000)

    # The document is a read card: its text, shown as text (never as markup).
    opened = view.locator(".jp-Operator-card[data-kind='read']").first
    assert opened.get_attribute("data-status") == "done"
    assert "## Setup" in opened.inner_text() and "**the tools**" in opened.inner_text()
    assert opened.locator("img").count() == 0 and opened.locator("a").count() == 0
    assert '<img src=x onerror="window.__operatorPwned = 1">' in opened.inner_text()
    # The change waits; the /ls behind it waits for the decision.
    assert card.locator(".jp-Operator-status").inner_text() == "Waiting for you"
    assert view.locator(".jp-Operator-card[data-status='waiting']").count() == 1
    screenshot(page, "commands-card")

    button(card, "Approve").click()
    deadline = time.monotonic() + 30
    while not target.exists():
        assert time.monotonic() < deadline, "answers.md was not written"
        time.sleep(0.2)
    assert target.read_text(encoding="utf-8") == "42\n"
    status_is(card, "applied")
    listing = view.locator(".jp-Operator-card[data-kind='read']").last
    listing.locator(".jp-Operator-card-summary", has_text="Listing ./").wait_for(timeout=30_000)
    assert "Written: answers.md (3 bytes, 1 line)" in results_box(page).input_value()
    assert page.evaluate("window.__operatorPwned === undefined")
    screenshot(page, "commands-applied")
