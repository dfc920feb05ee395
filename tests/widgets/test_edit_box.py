"""Edit before approve in the notebook card: Edit, type, live diff, Approve edited."""

from __future__ import annotations

import json
from pathlib import Path

from operator_replies import block, reply, write_block

from jupyter_operator.engine import Operator
from jupyter_operator.protocol import parse_results
from jupyter_operator.widgets import RunView
from jupyter_operator.widgets.edit_box import EditBox


def view_for(root: Path, text: str) -> RunView:
    return RunView(Operator(root).run(text))


def test_edit_then_approve_writes_the_edit_and_the_results_say_so(workspace: Path) -> None:
    (workspace / "app.py").write_text("x = 1\n")
    view = view_for(workspace, reply(write_block("w1", "app.py", "x = 2\n")))
    card = view.card_for("w1")
    assert card.edit_button is not None and card.editor is None
    card.edit_button.click()
    editor = card.editor
    assert isinstance(editor, EditBox) and editor in card.children
    assert editor.text.value == "x = 2\n"
    assert "Same as the proposal." in editor.status.value
    assert card.approve_button.disabled  # the plain Approve would drop the edit
    # Typing updates the diff of what will be written, and how far it is from the proposal.
    editor.text.value = "x = 2\ny = 3\n"
    added = '<span class="jpo-sign">+</span><span class="jpo-code">y = '
    assert added in editor.diff.value and "jpo-add" in editor.diff.value
    assert "+1 &minus;0 lines compared with the proposal" in editor.status.value
    assert (workspace / "app.py").read_text() == "x = 1\n"  # nothing written while typing
    editor.approve_button.click()
    assert (workspace / "app.py").read_bytes() == b"x = 2\ny = 3\n"
    item = card.item
    assert item.status == "applied" and item.edited
    assert editor not in card.children  # decided: the editor goes with the buttons
    assert "Applied with your edit" in card.header.value and added in card.header.value
    [result] = parse_results(view.results.text.value)
    assert result.ok and "the person edited the change" in result.summary
    assert "+y = 3" in result.details and result.details.startswith("--- proposed/app.py")


def test_a_refused_edit_is_shown_and_the_card_stays_pending(workspace: Path) -> None:
    nb = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    view = view_for(workspace, reply(write_block("w1", "n.ipynb", json.dumps(nb))))
    card = view.card_for("w1")
    card.edit_button.click()
    card.editor.text.value = "{broken"
    card.editor.approve_button.click()
    assert card.item.status == "pending" and not (workspace / "n.ipynb").exists()
    assert "Not approved:" in card.editor.status.value
    assert "notebook" in card.editor.status.value
    assert not card.editor.approve_button.disabled  # fix it and try again
    card.editor.text.value = json.dumps({**nb, "metadata": {"edited": True}})
    card.editor.approve_button.click()
    assert card.item.status == "applied"
    assert json.loads((workspace / "n.ipynb").read_text())["metadata"] == {"edited": True}


def test_cancel_closes_the_editor_and_approve_takes_the_proposal(workspace: Path) -> None:
    view = view_for(workspace, reply(write_block("w1", "a.txt", "A\n")))
    card = view.card_for("w1")
    card.edit_button.click()
    card.editor.text.value = "B\n"
    card.editor.cancel_button.click()
    assert card.editor is None and not card.approve_button.disabled
    card.approve_button.click()
    assert (workspace / "a.txt").read_bytes() == b"A\n" and not card.item.edited


def test_crlf_files_keep_their_line_ends(workspace: Path) -> None:
    (workspace / "w.txt").write_bytes(b"one\r\ntwo\r\n")
    view = view_for(workspace, reply(write_block("w1", "w.txt", "one\r\n2\r\n")))
    card = view.card_for("w1")
    card.edit_button.click()
    card.editor.text.value = "one\n2\nthree\n"  # what a browser textarea sends back
    card.editor.approve_button.click()
    assert (workspace / "w.txt").read_bytes() == b"one\r\n2\r\nthree\r\n"


def test_deletes_have_no_edit(workspace: Path) -> None:
    (workspace / "gone.txt").write_text("x\n")
    view = view_for(workspace, reply(block("d1", "fs.delete", path="gone.txt")))
    card = view.card_for("d1")
    assert card.edit_button is None and card.edit_button not in card.buttons


def test_a_change_built_on_an_undecided_one_is_edited_after_it(workspace: Path) -> None:
    from operator_replies import edits_block

    text = reply(
        write_block("w1", "plan.txt", "Alpha\nBeta\n"),
        edits_block("e1", "plan.txt", [{"op": "insertAfter", "anchor": "Beta", "text": "Gamma"}]),
    )
    view = view_for(workspace, text)
    first, second = view.card_for("w1"), view.card_for("e1")
    assert second.edit_button.disabled and second.approve_button.disabled
    first.edit_button.click()
    first.editor.text.value = "Alpha\nBeta\nDelta\n"
    first.editor.approve_button.click()
    # The dependent was planned again on what was written; its editor starts from that.
    assert not second.edit_button.disabled
    second.edit_button.click()
    assert second.editor.text.value == "Alpha\nBeta\nGamma\nDelta\n"
    second.editor.cancel_button.click()
    second.approve_button.click()
    assert (workspace / "plan.txt").read_text() == "Alpha\nBeta\nGamma\nDelta\n"


def test_a_json_file_change_has_edit_too(workspace: Path) -> None:
    from jupyter_operator.engine import run_json
    from jupyter_operator.widgets.json_cards import JsonRunView

    ops = json.dumps([{"type": "createFile", "path": "a.txt", "content": "A\n"}])
    view = JsonRunView(run_json(Operator(workspace), ops))
    card = view.card_for("createFile-1")
    card.edit_button.click()
    card.editor.text.value = "A\nB\n"
    card.editor.approve_button.click()
    assert (workspace / "a.txt").read_bytes() == b"A\nB\n"
    assert card.item.event["editedByPerson"] is True
    assert '"editedByPerson": true' in view.results.text.value
