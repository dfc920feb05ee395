"""A change to a notebook that is open in JupyterLab: approved from the panel, it is applied to
the open notebook itself (the page's model, beside the person's unsaved edits), never written
beneath it, so saving asks nothing and keeps both; a cell it touches that the person edited
since the preview refuses it. A text file open in an editor is reloaded from disk as before."""

from __future__ import annotations

import json
import time
from pathlib import Path

import nbformat
import pytest
from test_lab_panel import b64, card, command, open_lab, run_reply, screenshot, wait_status
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


def edited_cell(text: str, index: int, source: str) -> str:
    """The notebook ``text`` with one cell's source replaced (ids and metadata kept)."""
    nb = nbformat.reads(text, as_version=4)
    nb.cells[index].source = source
    return nbformat.writes(nb) + "\n"


def type_in_cell(page, index: int, text: str) -> None:
    """The person types at the end of a cell and does not save."""
    page.locator(".jp-NotebookPanel:visible .jp-Cell .jp-InputArea-editor").nth(index).click()
    page.keyboard.press("Control+End")
    page.keyboard.type(text)
    page.wait_for_function(
        "() => !!document.querySelector('.lm-DockPanel-tabBar .lm-mod-current.jp-mod-dirty')"
    )


def saved_sources(path: Path) -> list[str]:
    return [cell.source for cell in nbformat.read(path, as_version=4).cells]


def test_an_approved_change_lands_in_the_open_notebook_beside_unsaved_edits(
    lab_server, page
) -> None:
    """The commonest case: the model changes a notebook the person works in. The change is
    applied to the open notebook (not the file beneath it); the person's unsaved edit in
    another cell stays; saving writes both and asks nothing."""
    root: Path = lab_server.root
    path = root / "working.ipynb"
    path.write_text(notebook("a = 1", "b = 2"))
    open_lab(page, lab_server, "working.ipynb")
    wait_cells(page, ["a = 1", "b = 2"])
    type_in_cell(page, 0, "  # mine")
    on_disk = path.read_text()

    new = edited_cell(on_disk, 1, "b = 3")
    run_reply(page, command("live-1", "fs.write", "working.ipynb", content_b64=b64(new)))
    wait_status(page, "live-1", "pending")
    card(page, "live-1").locator(".jp-Operator-approve").click()
    wait_status(page, "live-1", "applied")
    assert "in the open notebook" in card(page, "live-1").text_content()
    wait_cells(page, ["a = 1  # mine", "b = 3"])
    no_dialog(page)
    assert is_dirty(page)  # the person saves, as after any edit of theirs
    assert path.read_text() == on_disk  # nothing was written beneath the open notebook
    assert card(page, "live-1").locator(".jp-Operator-opendoc-note").count() == 0
    screenshot(page, "lab-open-notebook-live-approved")

    save(page, path)
    no_dialog(page)
    assert saved_sources(path) == ["a = 1  # mine", "b = 3"]


def test_a_touched_cell_edited_after_the_preview_is_refused_an_untouched_one_is_not(
    lab_server, page
) -> None:
    root: Path = lab_server.root
    path = root / "guarded.ipynb"
    path.write_text(notebook("a = 1", "b = 2"))
    open_lab(page, lab_server, "guarded.ipynb")
    wait_cells(page, ["a = 1", "b = 2"])
    on_disk = path.read_text()

    run_reply(page, command("g-1", "fs.write", "guarded.ipynb",
                            content_b64=b64(edited_cell(on_disk, 1, "b = 20"))))  # fmt: skip
    wait_status(page, "g-1", "pending")
    type_in_cell(page, 1, "  # typed after the preview")
    card(page, "g-1").locator(".jp-Operator-approve").click()
    wait_status(page, "g-1", "stale")
    assert "cell cell-1 of guarded.ipynb was edited in the open notebook" in card(
        page, "g-1").text_content()  # fmt: skip
    wait_cells(page, ["a = 1", "b = 2  # typed after the preview"])
    assert path.read_text() == on_disk
    screenshot(page, "lab-open-notebook-live-stale")

    # A change to the other cell goes through; the edited cell keeps the person's text.
    run_reply(page, command("g-2", "fs.write", "guarded.ipynb",
                            content_b64=b64(edited_cell(on_disk, 0, "a = 10"))))  # fmt: skip
    wait_status(page, "g-2", "pending")
    card(page, "g-2").locator(".jp-Operator-approve").click()
    wait_status(page, "g-2", "applied")
    wait_cells(page, ["a = 10", "b = 2  # typed after the preview"])
    no_dialog(page)
    assert path.read_text() == on_disk


def test_undo_and_redo_in_the_open_notebook_keep_the_persons_edits(lab_server, page) -> None:
    """Undo and redo from the panel's history go to the open notebook too, cell-exact: the
    person's unsaved edit in another cell stays, no dialog, the file is the page's to save;
    the history says where the change landed. JupyterLab's own undo takes it back in one step."""
    root: Path = lab_server.root
    path = root / "undone.ipynb"
    path.write_text(notebook("a = 1", "b = 2"))
    open_lab(page, lab_server, "undone.ipynb")
    wait_cells(page, ["a = 1", "b = 2"])
    type_in_cell(page, 0, "  # mine")
    on_disk = path.read_text()

    run_reply(page, command("u-1", "fs.write", "undone.ipynb",
                            content_b64=b64(edited_cell(on_disk, 1, "b = 3"))))  # fmt: skip
    wait_status(page, "u-1", "pending")
    card(page, "u-1").locator(".jp-Operator-approve").click()
    wait_status(page, "u-1", "applied")
    wait_cells(page, ["a = 1  # mine", "b = 3"])

    open_history(page)
    row = history_row(page, "u-1")
    assert "applied in the open notebook" in row.locator(".jp-Operator-history-meta").text_content()
    row.locator(".jp-Operator-history-undo").click()
    wait_status(page, "u-1", "undone")
    wait_cells(page, ["a = 1  # mine", "b = 2"])
    no_dialog(page)
    assert path.read_text() == on_disk
    screenshot(page, "lab-open-notebook-live-undone")

    history_row(page, "u-1").locator(".jp-Operator-history-redo").click()
    wait_status(page, "u-1", "applied")
    wait_cells(page, ["a = 1  # mine", "b = 3"])
    no_dialog(page)
    assert path.read_text() == on_disk

    save(page, path)
    no_dialog(page)
    assert saved_sources(path) == ["a = 1  # mine", "b = 3"]


def editor_text(page) -> str:
    return page.locator(".jp-FileEditor:visible .cm-content").inner_text()


def wait_editor(page, expected: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while editor_text(page).strip() != expected:
        assert time.monotonic() < deadline, f"open file shows {editor_text(page)!r}"
        time.sleep(0.2)


@pytest.mark.needs_sandbox
def test_a_shell_command_finds_the_open_notebook_read_only(lab_server, page) -> None:
    """A command the person approves runs in the sandbox, where the notebook open in the page
    is read-only: ``sed -i`` cannot write beneath the person's working copy, the card says why
    and how to change it instead, and nothing asks to overwrite at the next save."""
    root: Path = lab_server.root
    path = root / "lesson.ipynb"
    path.write_text(notebook("a = 1"))
    open_lab(page, lab_server, "lesson.ipynb")
    wait_cells(page, ["a = 1"])
    on_disk = path.read_text()
    operation = {"type": "shell", "command": "sed -i 's/a = 1/a = 9/' lesson.ipynb"}
    run_reply(page, "```json\n" + json.dumps({"operations": [operation]}) + "\n```\n")
    wait_status(page, "shell-1", "pending")
    card(page, "shell-1").locator(".jp-Operator-approve").click()
    wait_status(page, "shell-1", "failed")
    shown = card(page, "shell-1").text_content()
    assert "open in a page or a collaborative room, so read-only for this command" in shown
    assert "lesson.ipynb" in shown
    assert path.read_text() == on_disk
    screenshot(page, "lab-open-notebook-shell-read-only")
    type_in_cell(page, 0, "  # mine")
    save(page, path)
    no_dialog(page)
    assert saved_sources(path) == ["a = 1  # mine"]


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
