"""String commands in the Operator panel (real JupyterLab, headless chromium): a pasted script
of slash commands and bash lines gets one card per request, diff and command cards to decide,
every response in the results box, and an explicit message when a server restart ended it."""

from __future__ import annotations

from pathlib import Path

import pytest
from browserkit import start_server, stop_server
from test_lab_panel import PANEL, card, open_lab, results_text, run_reply, screenshot, wait_status
from test_lab_panel_state import open_lab_again

from jupyter_operator.server.command_runs import ENDED

pytestmark = pytest.mark.timeout(300)

SCRIPT = """\
[o1] /open notes.md#setup
[w1] /write todo.md
- install the tools
/end
cd docs
grep -c Guide guide.md
[l1] /ls docs
"""


def nth_card(page, index: int):
    return page.locator(f"{PANEL} .jp-Operator-card").nth(index)


def test_a_commands_session_in_the_panel(lab_server, page) -> None:
    root = lab_server.root
    (root / "notes.md").write_text("# Notes\n\n## Setup\n\nInstall the tools.\n\n## Later\n")
    (root / "docs").mkdir(exist_ok=True)
    (root / "docs" / "guide.md").write_text("# Guide\n")
    open_lab(page, lab_server)
    run_reply(page, SCRIPT)  # detected: the first line is a slash command

    wait_status(page, "o1", "done")
    assert "Opened notes.md#setup" in card(page, "o1").text_content()
    wait_status(page, "w1", "pending")
    assert "+- install the tools" in card(page, "w1").locator(".jp-Operator-diff").text_content()
    assert nth_card(page, 2).get_attribute("data-status") == "waiting"
    card(page, "w1").locator(".jp-Operator-approve").click()
    wait_status(page, "w1", "applied")
    assert (root / "todo.md").read_text() == "- install the tools\n"

    # The bash line is a card with the exact command and its folder, and Approve / Reject.
    bash = nth_card(page, 3)
    bash.locator(".jp-Operator-shell-command").wait_for()
    assert bash.get_attribute("data-status") == "pending"
    assert bash.locator(".jp-Operator-shell-command").text_content() == "grep -c Guide guide.md"
    assert "docs" in bash.locator(".jp-Operator-shell").text_content()
    cd = nth_card(page, 2)
    assert "exit: 0 | cwd: docs" in cd.text_content()  # the cd line
    # A request that waited keeps the id it is answered under (no stand-in id on its card).
    assert cd.get_attribute("data-id") in cd.locator(".jp-Operator-card-id").text_content()
    bash.scroll_into_view_if_needed()
    screenshot(page, "lab-panel-commands-bash-pending")
    bash.locator(".jp-Operator-approve").click()
    wait_status(page, "l1", "done")
    assert nth_card(page, 3).get_attribute("data-status") == "done"

    text = results_text(page)
    assert "re: [o1] /open notes.md#setup\nOpened notes.md#setup\n---\n## Setup" in text
    assert "re: [w1] /write todo.md\nWritten: todo.md (20 bytes, 1 line)" in text
    assert "grep -c Guide guide.md\nexit: 0 | cwd: docs\n---\n1" in text
    assert "re: [l1] /ls docs\nListing docs/\n---\nguide.md" in text
    assert str(root) not in text
    page.locator(f"{PANEL} .jp-Operator-results-text").scroll_into_view_if_needed()
    screenshot(page, "lab-panel-commands-done")


def test_the_dialect_choice_and_a_restart(tmp_path: Path, page) -> None:
    root, settings, journal = tmp_path / "root", tmp_path / "settings", tmp_path / "journal"
    for folder in (root, settings, journal):
        folder.mkdir()
    env = {"JUPYTER_OPERATOR_JOURNAL_DIR": str(journal)}
    server = start_server(root, settings, extra_env=env)
    try:
        open_lab(page, server)
        # A script that starts with a bash line is only read as commands when chosen.
        page.locator(f"{PANEL} .jp-Operator-dialect").select_option("commands")
        run_reply(page, "cd .\n[r1] /write later.md\nlater\n/end")
        wait_status(page, "r1", "pending")
    finally:
        stop_server(server)
    server = start_server(root, settings, port=server.port, extra_env=env)
    try:
        page.reload()
        open_lab_again(page)
        note = page.locator(f"{PANEL} .jp-Operator-note", has_text="kept in the server's memory")
        note.wait_for()
        assert note.text_content() == ENDED
        assert page.locator(f"{PANEL} .jp-Operator-card").count() == 0
        assert not (root / "later.md").exists()
        screenshot(page, "lab-panel-commands-after-restart")
    finally:
        stop_server(server)
