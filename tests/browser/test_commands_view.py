"""String commands in a real JupyterLab: the document rendered safely, the card approved."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from browserkit import screenshot
from magic_notebooks import magic_notebook, run_cell, run_quick_cell

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
