"""A string-commands script pasted into the Operator panel: its change as a card, its responses
as the results text."""

from __future__ import annotations

import pytest
from browserkit import LabServer, screenshot
from test_lab_panel import card, open_lab, results_text, run_reply, wait_status

pytestmark = pytest.mark.timeout(240)


def test_commands_script_in_the_panel(lab_server: LabServer, page) -> None:
    root = lab_server.root
    open_lab(page, lab_server)
    (root / "panel-notes.md").write_text("# Notes\n\n## Setup\n\nInstall.\n", encoding="utf-8")
    run_reply(page, "/open panel-notes.md#setup\n[w1] /append panel-notes.md\nMore.\n/end\n/ls")
    wait_status(page, "w1", "pending")
    assert "More." in card(page, "w1").locator(".jp-Operator-diff").text_content()
    screenshot(page, "commands-panel-pending")
    card(page, "w1").locator(".jp-Operator-approve").click()
    wait_status(page, "w1", "applied")
    assert (root / "panel-notes.md").read_text(encoding="utf-8").endswith("Install.\nMore.\n")
    page.wait_for_function(
        "() => document.querySelector('#jupyter-operator-panel .jp-Operator-results-text')"
        ".value.includes('Listing ./')"
    )
    text = results_text(page)
    assert "Opened panel-notes.md#setup\n---\n## Setup" in text
    assert "re: [w1] /append panel-notes.md\nAppended to: panel-notes.md" in text
    screenshot(page, "commands-panel-applied")
