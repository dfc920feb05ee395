"""Edit before approve in a real browser: the notebook card and the JupyterLab panel.

Each test edits a proposal as a person would (typing in the card's editor), watches the diff
follow, approves, and checks that the disk holds exactly the edited bytes and that the results
copied for the model say the person edited the change.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from ask_views import ASK, open_ask
from browserkit import LabServer, screenshot
from magic_notebooks import magic_notebook
from notebook_cards import ADDED, results_box, status_is
from support.fake_openai import FakeOpenAI, Script
from support.replies import b64, block
from test_lab_panel import (
    PANEL,
    card,
    command,
    copy_results,
    open_lab,
    results_text,
    run_reply,
    wait_status,
)
from test_notebook_widgets import _run_both_cells, _wait_for_file

from jupyter_operator.protocol import parse_results

pytestmark = pytest.mark.timeout(240)


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _notebook(journal: Path, reply: str) -> dict[str, Any]:
    return magic_notebook(journal, "%%operator\n" + reply)


def test_edit_in_the_notebook_card(lab_server: LabServer, page: Any, tmp_path: Path) -> None:
    """The notebook card edits with the panel's CodeMirror editor and its live diff."""
    journal = tmp_path / "journal"
    journal.mkdir()
    root = lab_server.root
    target = root / "edit-me.txt"
    target.write_text("one\ntwo\n")
    reply = command("nb-e1", "fs.write", "edit-me.txt", content_b64=_b64("one\nTWO\n"))
    (root / "edit-card.ipynb").write_text(json.dumps(_notebook(journal, reply)))
    page.goto(lab_server.page_url("lab/workspaces/operator-edit/tree/edit-card.ipynb"))
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=60_000)
    card_node = _run_both_cells(page)
    card_node.locator(ADDED, has_text="TWO").wait_for()
    card_node.locator(".jp-Operator-edit-button").click()
    editor = card_node.locator(".jp-Operator-edit-editor .cm-content")
    editor.wait_for(timeout=30_000)
    assert editor.text_content() == "oneTWO"  # two CodeMirror lines
    # The plain Approve would drop the edit: it is off while the editor is open.
    assert card_node.locator(".jp-Operator-approve").is_disabled()
    editor.press("Control+End")
    editor.press_sequentially("three")
    # The diff beside the editor follows the typing (file before -> edited text).
    live = card_node.locator(".jp-Operator-edit-diff .jp-Operator-line-add", has_text="three")
    live.wait_for(timeout=30_000)
    status = card_node.locator(".jp-Operator-edit-status")
    assert status.text_content() == "Your edit: +1 −0 lines compared with the proposal."
    assert target.read_text() == "one\ntwo\n", "nothing is written while editing"
    screenshot(page, "notebook-card-editing")
    card_node.locator(".jp-Operator-approve-edited").click()
    status_is(card_node, "applied")
    assert _wait_for_file(target) == "one\nTWO\nthree"
    assert card_node.locator(".jp-Operator-edit").count() == 0  # the editor is gone
    card_node.locator(ADDED, has_text="three").wait_for()  # the diff of what was written
    results = results_box(page)
    results.wait_for(timeout=30_000)
    [result] = parse_results(results.input_value())
    assert result.ok and "the person edited the change" in result.summary
    assert result.details.startswith("--- proposed/edit-me.txt") and "+three" in result.details
    screenshot(page, "notebook-card-edited")


def test_a_refused_edit_in_the_notebook_keeps_the_card_pending(
    lab_server: LabServer, page: Any, tmp_path: Path
) -> None:
    journal = tmp_path / "journal"
    journal.mkdir()
    root = lab_server.root
    nb = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    reply = command("nb-n1", "fs.write", "fresh-nb.ipynb", content_b64=_b64(json.dumps(nb)))
    (root / "edit-refused.ipynb").write_text(json.dumps(_notebook(journal, reply)))
    page.goto(lab_server.page_url("lab/workspaces/operator-edit-refused/tree/edit-refused.ipynb"))
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=60_000)
    card_node = _run_both_cells(page)
    card_node.locator(".jp-Operator-edit-button").click()
    editor = card_node.locator(".jp-Operator-edit-editor .cm-content")
    editor.wait_for(timeout=30_000)
    editor.press("Control+Home")
    editor.press_sequentially("oops ")
    card_node.locator(".jp-Operator-approve-edited").click()
    page.locator(".jp-Operator-run-widget .jp-Operator-message", has_text="notebook").wait_for()
    assert card_node.get_attribute("data-status") == "pending"
    assert card_node.locator(".jp-Operator-edit-editor").count() == 1  # the edit is still there
    assert not (root / "fresh-nb.ipynb").exists()


def test_edit_in_the_panel(lab_server: LabServer, page: Any) -> None:
    root = lab_server.root
    (root / "calc.py").write_text("import os\n\nx = 1\nprint(x)\n")
    reply = "\n".join([
        "I will change calc.py.",
        command("p-w1", "fs.write", "calc.py", content_b64=_b64("import os\n\nx = 2\nprint(x)\n")),
    ])  # fmt: skip
    open_lab(page, lab_server)
    run_reply(page, reply)
    wait_status(page, "p-w1", "pending")
    the_card = card(page, "p-w1")
    the_card.locator(".jp-Operator-edit-button").click()
    editor = the_card.locator(".jp-Operator-edit-editor .cm-content")
    editor.wait_for()
    assert "x = 2" in editor.text_content()
    # The plain Approve would drop the edit: it is off while the editor is open.
    assert the_card.locator(".jp-Operator-approve").is_disabled()
    # Locator presses focus the editor before each key, so focus JupyterLab moves meanwhile
    # (a notebook restored by an earlier test) cannot swallow the typing.
    editor.press("Control+End")
    editor.press_sequentially("y = 5")
    editor.press("Enter")
    live = the_card.locator(".jp-Operator-edit-diff .jp-Operator-line-add", has_text="y = 5")
    live.wait_for()
    status = the_card.locator(".jp-Operator-edit-status")
    assert status.text_content() == "Your edit: +1 −0 lines compared with the proposal."
    assert (root / "calc.py").read_text() == "import os\n\nx = 1\nprint(x)\n"
    screenshot(page, "lab-panel-editing")

    the_card.locator(".jp-Operator-approve-edited").click()
    wait_status(page, "p-w1", "applied")
    assert (root / "calc.py").read_bytes() == b"import os\n\nx = 2\nprint(x)\ny = 5\n"
    # The card now shows what was written, and the editor is gone.
    the_card = card(page, "p-w1")
    the_card.locator(".jp-Operator-line-add", has_text="y = 5").wait_for()
    assert the_card.locator(".jp-Operator-edit").count() == 0
    text = results_text(page)
    [result] = parse_results(text)
    assert result.ok and "the person edited the change" in result.summary
    assert result.details == (
        "--- proposed/calc.py\n+++ written/calc.py\n@@ -2,3 +2,4 @@\n \n x = 2\n print(x)\n"
        "+y = 5\n"
    )
    copied = copy_results(page)
    assert "the person edited the change" in copied, "the copied results hide the person's edit"
    screenshot(page, "lab-panel-edited")
    assert not [e for e in page.console_errors if "operator" in e.lower()]


def test_a_refused_edit_in_the_panel_keeps_the_card_pending(lab_server: LabServer,
                                                            page: Any) -> None:  # fmt: skip
    root = lab_server.root
    nb = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    reply = command("p-n1", "fs.write", "fresh.ipynb", content_b64=_b64(json.dumps(nb)))
    open_lab(page, lab_server)
    run_reply(page, reply)
    wait_status(page, "p-n1", "pending")
    the_card = card(page, "p-n1")
    the_card.locator(".jp-Operator-edit-button").click()
    editor = the_card.locator(".jp-Operator-edit-editor .cm-content")
    editor.wait_for()
    editor.press("Control+Home")
    editor.press_sequentially("oops ")
    assert "oops" in (editor.text_content() or "")
    the_card.locator(".jp-Operator-approve-edited").click()
    page.locator(f"{PANEL} .jp-Operator-error", has_text="notebook").wait_for()
    assert the_card.get_attribute("data-status") == "pending"
    assert the_card.locator(".jp-Operator-edit-editor").count() == 1  # the edit is still there
    assert not (root / "fresh.ipynb").exists()
    screenshot(page, "lab-panel-edit-refused")


def test_edit_in_ask_mode_reaches_the_model(
    ask_server: LabServer, page: Any, fake: FakeOpenAI
) -> None:
    """The next turn of the model gets the edited result: ok, edited, and the diff."""
    root = ask_server.root
    fake.add(
        Script("The plan.\n" + block("a-w1", "fs.write", path="plan.md",
                                      content_b64=b64("# Plan\n- alpha\n")), chunk=16),
        "Done.",
    )  # fmt: skip
    open_ask(page, ask_server)
    page.locator(f"{ASK} .jp-Operator-ask-task").fill("Write a plan")
    page.locator(f"{ASK} .jp-Operator-ask-button").click()
    write = page.locator(f'{ASK} .jp-Operator-card[data-id="a-w1"][data-status="pending"]')
    write.wait_for(timeout=30_000)
    write.locator(".jp-Operator-edit-button").click()
    editor = write.locator(".jp-Operator-edit-editor .cm-content")
    editor.wait_for()
    editor.click()
    page.keyboard.press("Control+End")
    page.keyboard.type("- beta")
    write.locator(".jp-Operator-edit-diff .jp-Operator-line-add", has_text="- beta").wait_for()
    write.locator(".jp-Operator-approve-edited").click()
    status = page.locator(f"{ASK} .jp-Operator-ask-status")
    status.filter(has_text="ended").wait_for(timeout=30_000)
    assert (root / "plan.md").read_bytes() == b"# Plan\n- alpha\n- beta"
    applied = page.locator(f'{ASK} .jp-Operator-card[data-id="a-w1"][data-status="applied"]')
    applied.wait_for()
    # The card draws what was written, not the proposal.
    applied.locator(".jp-Operator-diff .jp-Operator-line-add", has_text="- beta").wait_for()
    told = fake.requests[-1]["messages"][-1]["content"]
    [result] = parse_results(told)
    assert result.ok and "the person edited the change" in result.summary
    assert "+- beta" in result.details
    screenshot(page, "ask-mode-edited")
