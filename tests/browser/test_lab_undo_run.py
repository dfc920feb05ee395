"""Undo this run: the History groups changes by run, previews what undoing one restores,
then undoes every file and cell it changed in one click, or refuses it as a whole."""

from __future__ import annotations

import pytest
from support.cell_notebooks import cells_of, standard
from test_lab_panel import PANEL, b64, command, open_lab, run_reply, screenshot, wait_status
from test_lab_panel_state import open_history

pytestmark = pytest.mark.timeout(300)


def _apply_run(page, prefix: str) -> None:
    reply = "\n".join([
        command(f"{prefix}w1", "fs.write", f"{prefix}keep.txt", content_b64=b64("two\n")),
        command(f"{prefix}w2", "fs.write", f"{prefix}made/new.txt", content_b64=b64("new\n")),
        command(f"{prefix}d1", "fs.delete", f"{prefix}gone.txt"),
        command(f"{prefix}c1", "nb.replaceCell", f"{prefix}nb.ipynb", cell_id="calc",
                content_b64=b64("y = x * 10")),
    ])  # fmt: skip
    run_reply(page, reply.replace(f"path: {prefix}nb.ipynb", f"notebook: {prefix}nb.ipynb"))
    wait_status(page, f"{prefix}w1", "pending")
    page.locator(f"{PANEL} .jp-Operator-approve-all").click()
    for suffix in ("w1", "w2", "d1", "c1"):
        wait_status(page, f"{prefix}{suffix}", "applied")


def _seed(root, prefix: str) -> None:
    (root / f"{prefix}keep.txt").write_text("one\n")
    (root / f"{prefix}gone.txt").write_text("bye\n")
    (root / f"{prefix}nb.ipynb").write_text(standard())


def _run_group(page, command_id: str):
    return page.locator(f"{PANEL} .jp-Operator-history-run").filter(
        has=page.locator(".jp-Operator-history-row", has_text=f"{command_id} ("))


def test_undo_this_run_restores_three_files_and_a_cell_in_one_click(lab_server, page) -> None:
    root = lab_server.root
    _seed(root, "ur-")
    open_lab(page, lab_server)
    _apply_run(page, "ur-")
    assert (root / "ur-keep.txt").read_text() == "two\n" and not (root / "ur-gone.txt").exists()
    open_history(page)
    group = _run_group(page, "ur-w1")
    group.wait_for()
    assert group.locator(".jp-Operator-history-row").count() == 4
    group.locator(".jp-Operator-history-undo-run").click()
    preview = group.locator(".jp-Operator-run-preview")
    preview.locator(".jp-Operator-run-preview-entry").first.wait_for()
    shown = preview.locator(".jp-Operator-run-preview-entry").all_text_contents()
    assert shown == [
        "the cells of ur-nb.ipynb as they were before ur-c1",
        "ur-gone.txt put back (ur-d1 deleted it)",
        "ur-made/new.txt removed again (ur-w2 created it)",
        "ur-keep.txt as it was before ur-w1",
    ]
    assert (root / "ur-keep.txt").read_text() == "two\n"  # the preview changes nothing
    screenshot(page, "history-undo-run-preview")
    preview.locator(".jp-Operator-run-undo-confirm").click()
    page.locator(f"{PANEL} .jp-Operator-note", has_text="Undid 4 changes").wait_for()
    assert (root / "ur-keep.txt").read_text() == "one\n"
    assert not (root / "ur-made").exists()
    assert (root / "ur-gone.txt").read_text() == "bye\n"
    assert ("calc", "code", "y = x + 1") in cells_of(root / "ur-nb.ipynb")
    for suffix in ("w1", "w2", "d1", "c1"):
        wait_status(page, f"ur-{suffix}", "undone")
    undone = _run_group(page, "ur-w1").locator(".jp-Operator-history-row[data-undone='true']")
    undone.nth(3).wait_for()
    screenshot(page, "history-undo-run-done")
    assert not [e for e in page.console_errors if "operator" in e.lower()]


def test_undo_this_run_refuses_as_a_whole_when_a_file_changed_since(lab_server, page) -> None:
    root = lab_server.root
    _seed(root, "us-")
    open_lab(page, lab_server)
    _apply_run(page, "us-")
    open_history(page)
    group = _run_group(page, "us-w1")
    group.locator(".jp-Operator-history-undo-run").click()
    confirm = group.locator(".jp-Operator-run-undo-confirm")
    confirm.wait_for()
    # The person edits one of the run's files while the preview is on display.
    (root / "us-made" / "new.txt").write_text("the person's edit\n")
    files = [root / "us-keep.txt", root / "us-made" / "new.txt", root / "us-nb.ipynb"]
    before = {p: p.read_bytes() for p in files}
    confirm.click()
    error = page.locator(f"{PANEL} > .jp-Operator-error")
    error.wait_for(state="visible")
    assert "us-made/new.txt changed after" in (error.text_content() or "")
    assert "Nothing was changed" in (error.text_content() or "")
    assert {p: p.read_bytes() for p in files} == before
    assert not (root / "us-gone.txt").exists()
    assert group.locator(".jp-Operator-history-row[data-undone='true']").count() == 0
    beside = group.locator(".jp-Operator-run-undo-error")  # said where the person clicked
    assert "us-made/new.txt changed after" in (beside.text_content() or "")
    beside.scroll_into_view_if_needed()
    assert ("calc", "code", "y = x * 10") in cells_of(root / "us-nb.ipynb")
    screenshot(page, "history-undo-run-refused")


def test_undo_this_run_restores_files_and_the_cells_of_a_notebook_open_in_the_page(
    lab_server, page
) -> None:
    """A cell change that landed in a notebook open in the page is undone by that page, with
    the run's files, in one click: the notebook stays open with unsaved edits, never reloaded
    (no "file changed on disk" dialog)."""
    root = lab_server.root
    _seed(root, "uo-")
    open_lab(page, lab_server, "uo-nb.ipynb")
    notebook = page.locator(".jp-NotebookPanel:visible")
    notebook.locator(".jp-Cell").first.wait_for(timeout=60_000)
    _apply_run(page, "uo-")
    calc = notebook.locator(".jp-Cell").nth(2)
    calc.filter(has_text="y = x * 10").wait_for()
    disk_notebook = (root / "uo-nb.ipynb").read_bytes()  # the page holds the change, unsaved
    open_history(page)
    group = _run_group(page, "uo-w1")
    group.locator(".jp-Operator-history-undo-run").click()
    preview = group.locator(".jp-Operator-run-preview")
    preview.locator(".jp-Operator-run-preview-entry").first.wait_for()
    assert "the cells of uo-nb.ipynb as they were before uo-c1" in preview.text_content()
    preview.locator(".jp-Operator-run-undo-confirm").click()
    page.locator(f"{PANEL} .jp-Operator-note", has_text="Undid 4 changes").wait_for()
    assert (root / "uo-keep.txt").read_text() == "one\n"
    assert not (root / "uo-made").exists()
    assert (root / "uo-gone.txt").read_text() == "bye\n"
    calc.filter(has_text="y = x + 1").wait_for()  # restored in the open notebook
    assert (root / "uo-nb.ipynb").read_bytes() == disk_notebook  # the person saves the page
    tab = page.locator(".lm-TabBar-tab.jp-mod-current", has_text="uo-nb.ipynb")
    assert "jp-mod-dirty" in (tab.get_attribute("class") or "")
    for suffix in ("w1", "w2", "d1", "c1"):
        wait_status(page, f"uo-{suffix}", "undone")
    page.wait_for_timeout(1500)  # a reload would ask about the file on disk by now
    assert page.locator(".jp-Dialog").count() == 0
    assert notebook.count() == 1
    screenshot(page, "history-undo-run-open-notebook")
    assert not [e for e in page.console_errors if "operator" in e.lower()]


def test_undo_this_run_is_refused_whole_when_a_restored_cell_was_edited_in_the_page(
    lab_server, page
) -> None:
    """The page's stale guard: a cell the person edited since refuses the run's undo as a
    whole; the files stay, and so do the cells."""
    root = lab_server.root
    _seed(root, "ue-")
    open_lab(page, lab_server, "ue-nb.ipynb")
    notebook = page.locator(".jp-NotebookPanel:visible")
    notebook.locator(".jp-Cell").first.wait_for(timeout=60_000)
    _apply_run(page, "ue-")
    calc = notebook.locator(".jp-Cell").nth(2)
    calc.filter(has_text="y = x * 10").wait_for()
    calc.locator(".cm-content").click()
    page.keyboard.press("End")
    page.keyboard.type("  # mine")
    calc.filter(has_text="# mine").wait_for()
    open_history(page)
    group = _run_group(page, "ue-w1")
    group.locator(".jp-Operator-history-undo-run").click()
    group.locator(".jp-Operator-run-undo-confirm").click()
    refusal = group.locator(".jp-Operator-run-undo-error")
    refusal.wait_for()
    assert "cell calc of ue-nb.ipynb was edited" in (refusal.text_content() or "")
    assert (root / "ue-keep.txt").read_text() == "two\n" and not (root / "ue-gone.txt").exists()
    assert "y = x * 10  # mine" in (calc.text_content() or "")
    assert group.locator(".jp-Operator-history-row[data-undone='true']").count() == 0
    refusal.scroll_into_view_if_needed()
    screenshot(page, "history-undo-run-open-notebook-edited")
