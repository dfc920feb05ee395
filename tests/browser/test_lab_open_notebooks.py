"""A change to a notebook that is open in JupyterLab: approved (then undone and redone) from the
panel, the open notebook shows it at once with no "File changed on disk" dialog and stays saved;
an open notebook with unsaved changes is never clobbered."""

from __future__ import annotations

import json
import time
from pathlib import Path

import nbformat
import pytest
from browserkit import run_palette_command
from test_lab_panel import PANEL, b64, card, command, open_lab, run_reply, screenshot, wait_status
from test_lab_panel_state import history_row, open_history

pytestmark = pytest.mark.timeout(300)


def notebook(*sources: str) -> str:
    cells = [
        {"cell_type": "code", "id": f"cell-{i}", "metadata": {}, "source": src,
         "outputs": [], "execution_count": None}
        for i, src in enumerate(sources)
    ]  # fmt: skip
    nb = {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                    "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }  # fmt: skip
    return json.dumps(nb, indent=1) + "\n"


def with_cells(text: str, *sources: str) -> str:
    """The notebook ``text`` with other cells (its metadata kept), written as nbformat writes
    it (as JupyterLab's save does, so a later save leaves the same bytes)."""
    nb = nbformat.reads(text, as_version=4)
    nb.cells = nbformat.reads(notebook(*sources), as_version=4).cells
    return nbformat.writes(nb) + "\n"


def save(page, path: Path) -> None:
    before = path.stat().st_mtime_ns
    page.locator(".jp-NotebookPanel:visible .jp-Cell").first.click()
    page.keyboard.press("Control+s")
    deadline = time.monotonic() + 30
    while path.stat().st_mtime_ns == before or is_dirty(page):
        assert time.monotonic() < deadline, "the notebook was not saved"
        time.sleep(0.2)


def cell_texts(page) -> list[str]:
    return page.locator(".jp-NotebookPanel:visible .jp-Cell .jp-InputArea-editor").all_inner_texts()


def wait_cells(page, expected: list[str], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while [t.strip() for t in cell_texts(page)] != expected:
        assert time.monotonic() < deadline, f"open notebook shows {cell_texts(page)}"
        time.sleep(0.2)


def no_dialog(page) -> None:
    page.wait_for_timeout(1_000)  # a dialog would open right after the change
    assert page.locator(".jp-Dialog").count() == 0, page.locator(".jp-Dialog").inner_text()


def is_dirty(page) -> bool:
    tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current")
    return "jp-mod-dirty" in (tab.get_attribute("class") or "")


def test_approve_undo_redo_update_the_open_notebook(lab_server, page) -> None:
    root: Path = lab_server.root
    (root / "opened.ipynb").write_text(notebook("print('old')"))
    open_lab(page, lab_server, "opened.ipynb")
    wait_cells(page, ["print('old')"])
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=60_000)
    # The person saved it once (JupyterLab records the kernel's name and language in the
    # metadata); the model's change keeps that metadata, as a cell edit does.
    save(page, root / "opened.ipynb")
    old = (root / "opened.ipynb").read_text()
    new = with_cells(old, "print('new')", "# added by the model")

    run_reply(page, command("nb-1", "fs.write", "opened.ipynb", content_b64=b64(new)))
    wait_status(page, "nb-1", "pending")
    card(page, "nb-1").locator(".jp-Operator-approve").click()
    wait_status(page, "nb-1", "applied")
    # The open notebook shows the approved cells at once, unchanged since (not dirty), and
    # the file on disk holds exactly the approved bytes.
    wait_cells(page, ["print('new')", "# added by the model"])
    no_dialog(page)
    assert not is_dirty(page)
    assert (root / "opened.ipynb").read_text() == new
    screenshot(page, "lab-open-notebook-approved")

    # Saving now asks nothing (JupyterLab knows the file's new time) and keeps the change.
    save(page, root / "opened.ipynb")
    no_dialog(page)
    assert (root / "opened.ipynb").read_text() == new

    # Undo from the panel's history: the open notebook goes back to the old cells.
    open_history(page)
    history_row(page, "nb-1").locator(".jp-Operator-history-undo").click()
    wait_status(page, "nb-1", "undone")
    wait_cells(page, ["print('old')"])
    no_dialog(page)
    assert not is_dirty(page)
    assert (root / "opened.ipynb").read_text() == old  # the bytes from before the change
    screenshot(page, "lab-open-notebook-undone")

    # And redo brings the approved cells back.
    history_row(page, "nb-1").locator(".jp-Operator-history-redo").click()
    wait_cells(page, ["print('new')", "# added by the model"])
    no_dialog(page)
    assert not is_dirty(page)
    assert (root / "opened.ipynb").read_text() == new


def test_unsaved_changes_are_never_clobbered(lab_server, page) -> None:
    root: Path = lab_server.root
    old = notebook("x = 1")
    (root / "edited.ipynb").write_text(old)
    open_lab(page, lab_server, "edited.ipynb")
    wait_cells(page, ["x = 1"])
    # The person types in the open notebook and does not save.
    page.locator(".jp-NotebookPanel:visible .jp-Cell .jp-InputArea-editor").first.click()
    page.keyboard.press("End")
    page.keyboard.type("  # mine")
    page.wait_for_function(
        "() => !!document.querySelector('.lm-DockPanel-tabBar .lm-mod-current.jp-mod-dirty')"
    )

    new = notebook("x = 2")
    run_reply(page, command("nb-2", "fs.write", "edited.ipynb", content_b64=b64(new)))
    wait_status(page, "nb-2", "pending")
    card(page, "nb-2").locator(".jp-Operator-approve").click()
    note = card(page, "nb-2").locator(".jp-Operator-opendoc-note")
    note.wait_for()
    assert "Not approved: edited.ipynb is open with unsaved changes" in note.text_content()
    # Nothing was written, the proposal still waits, the person's edit is still on screen.
    wait_status(page, "nb-2", "pending")
    assert (root / "edited.ipynb").read_text() == old
    wait_cells(page, ["x = 1  # mine"])
    screenshot(page, "lab-open-notebook-unsaved-held")

    # Once the person reverts their edit, the same Approve goes through and the tab follows.
    run_palette_command(page, "Reload Notebook from Disk", "Reload Notebook from Disk")
    page.locator(".jp-Dialog .jp-mod-accept").click()  # JupyterLab asks before dropping edits
    wait_cells(page, ["x = 1"])
    card(page, "nb-2").locator(".jp-Operator-approve").click()
    wait_status(page, "nb-2", "applied")
    assert note.count() == 0
    wait_cells(page, ["x = 2"])
    assert (root / "edited.ipynb").read_text() == new
    assert page.locator(f"{PANEL} > .jp-Operator-error").is_hidden()


def editor_text(page) -> str:
    return page.locator(".jp-FileEditor:visible .cm-content").inner_text()


def wait_editor(page, expected: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while editor_text(page).strip() != expected:
        assert time.monotonic() < deadline, f"open file shows {editor_text(page)!r}"
        time.sleep(0.2)


def test_a_text_file_open_in_an_editor_follows_and_is_never_clobbered(lab_server, page) -> None:
    """The same for a file open in Lab's text editor: approved changes show in the open editor
    at once (no dialog, a later save keeps them); unsaved typing holds the approval."""
    root: Path = lab_server.root
    target = root / "calc.py"
    target.write_text("x = 1\n")
    open_lab(page, lab_server, "calc.py")
    wait_editor(page, "x = 1")

    run_reply(page, command("py-1", "fs.write", "calc.py", content_b64=b64("x = 2\n")))
    wait_status(page, "py-1", "pending")
    card(page, "py-1").locator(".jp-Operator-approve").click()
    wait_status(page, "py-1", "applied")
    wait_editor(page, "x = 2")
    no_dialog(page)
    assert not is_dirty(page)
    screenshot(page, "lab-open-file-approved")

    # The person types and saves: no "File changed" dialog, and the approved line is kept.
    page.locator(".jp-FileEditor:visible .cm-content").click()
    page.keyboard.press("Control+End")
    page.keyboard.type("y = 3\n")
    before = target.stat().st_mtime_ns
    page.keyboard.press("Control+s")
    deadline = time.monotonic() + 30
    while target.stat().st_mtime_ns == before or is_dirty(page):
        assert time.monotonic() < deadline, "the file was not saved"
        time.sleep(0.2)
    no_dialog(page)
    assert target.read_text() == "x = 2\ny = 3\n"

    # Unsaved typing: the next change is held, nothing written, the typing still on screen.
    page.keyboard.type("# mine")
    page.wait_for_function(
        "() => !!document.querySelector('.lm-DockPanel-tabBar .lm-mod-current.jp-mod-dirty')"
    )
    run_reply(page, command("py-2", "fs.write", "calc.py", content_b64=b64("x = 4\n")))
    wait_status(page, "py-2", "pending")
    card(page, "py-2").locator(".jp-Operator-approve").click()
    note = card(page, "py-2").locator(".jp-Operator-opendoc-note")
    note.wait_for()
    assert "Not approved: calc.py is open with unsaved changes" in note.text_content()
    assert "your saved file" in note.text_content()
    wait_status(page, "py-2", "pending")
    assert target.read_text() == "x = 2\ny = 3\n"
    assert "# mine" in editor_text(page)
    screenshot(page, "lab-open-file-unsaved-held")
