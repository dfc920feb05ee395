"""A one-line change to a notebook cell, in a real browser: shown as a changed cell in the
JupyterLab panel and in a notebook's %%operator card, never as raw JSON by default; the JSON diff
is one click away; light and dark themes."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from browserkit import LabServer, run_palette_command, screenshot
from magic_notebooks import magic_notebook
from support.notebook_samples import notebook, with_source
from test_lab_panel import b64, card, command, open_lab, run_reply, wait_status

pytestmark = pytest.mark.timeout(240)

SOURCES = (
    "# Orbit",
    "import math",
    "radius = 2\narea = math.pi * radius**2\nprint(area)",
    "print('done')",
)


def _change() -> tuple[str, str]:
    old = notebook(*SOURCES)
    return old, with_source(old, 2, SOURCES[2].replace("radius = 2", "radius = 3"))


def test_the_panel_shows_a_notebook_change_as_a_cell(lab_server: LabServer, page: Any) -> None:
    root = lab_server.root
    old, new = _change()
    (root / "orbit.ipynb").write_text(old)
    open_lab(page, lab_server)
    run_reply(page, command("nb1", "fs.write", "orbit.ipynb", content_b64=b64(new)))
    wait_status(page, "nb1", "pending")
    item = card(page, "nb1")
    cells = item.locator(".jp-Operator-cells")
    cells.wait_for()
    assert "1 changed" in cells.locator(".jp-Operator-cells-counts").inner_text()
    changed = item.locator(".jp-Operator-cell-changed")
    assert changed.count() == 1
    changed.locator(".cm-editor").wait_for()  # plain rows first, then the editor view
    assert changed.locator(".jp-Operator-cell-rows").count() == 0
    head = changed.locator(".jp-Operator-cell-head").inner_text()
    assert "index 2" in head and "id cell-2" in head and "code" in head
    assert changed.locator(".jp-Operator-line-del").inner_text() == "radius = 2"
    assert changed.locator(".jp-Operator-line-add").inner_text() == "radius = 3"
    # Numbered from the cell's first line, not the file's.
    assert changed.locator(".jp-Operator-gutter-old .jp-Operator-lineno").first.inner_text() == "1"
    assert item.locator(".jp-Operator-cell-fold").count() == 2  # unchanged cells, folded
    # No JSON anywhere by default.
    assert '"source"' not in item.inner_text() and "\\n" not in item.inner_text()
    assert item.locator(".jp-Operator-cells-json").is_hidden()
    screenshot(page, "celldiff-panel")

    toggle = item.locator(".jp-Operator-cells-toggle")
    toggle.click()
    json_view = item.locator(".jp-Operator-cells-json .cm-content")
    json_view.wait_for()
    assert '"radius = 3\\n",' in json_view.inner_text()
    assert item.locator(".jp-Operator-cells-list").is_hidden()
    assert toggle.inner_text() == "Show cells"
    toggle.click()
    assert item.locator(".jp-Operator-cells-list").is_visible()

    run_palette_command(page, "Use Theme: JupyterLab Dark", "JupyterLab Dark")
    page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'", timeout=30_000)
    page.locator("#jupyterlab-splash").wait_for(state="detached", timeout=30_000)
    block = changed.evaluate("e => getComputedStyle(e).backgroundColor")
    assert block not in ("rgb(255, 255, 255)", "rgba(0, 0, 0, 0)")
    screenshot(page, "celldiff-panel-dark")
    run_palette_command(page, "Use Theme: JupyterLab Light", "JupyterLab Light")
    page.wait_for_function("() => document.body.dataset.jpThemeLight === 'true'")

    item.locator(".jp-Operator-approve").click()
    wait_status(page, "nb1", "applied")
    assert (root / "orbit.ipynb").read_text() == new


def _card_notebook(journal: Path, new: str) -> dict:
    payload = base64.b64encode(new.encode()).decode()
    reply = (
        "I will change the radius.\n\nOPERATOR_CMD\nversion: 1\nid: nbcell-1\n"
        f"action: fs.write\npath: orbit-card.ipynb\ncontent_b64: {payload}\nEND_OPERATOR_CMD"
    )
    return magic_notebook(journal, "%%operator\n" + reply)


def test_a_notebook_card_shows_the_change_as_a_cell(
    lab_server: LabServer, page: Any, tmp_path: Path
) -> None:
    from notebook_cards import status_is
    from test_notebook_widgets import _approve_button, _run_both_cells

    root, journal = lab_server.root, tmp_path / "journal"
    journal.mkdir()
    old, new = _change()
    (root / "orbit-card.ipynb").write_text(old)
    (root / "celldiff-card.ipynb").write_text(json.dumps(_card_notebook(journal, new)))
    page.goto(lab_server.page_url("lab/workspaces/celldiff-card/tree/celldiff-card.ipynb"))
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=60_000)
    item = _run_both_cells(page)
    # The panel's cell diff, in the notebook: the same components.
    changed = item.locator(".jp-Operator-cell-changed")
    changed.wait_for()
    assert changed.count() == 1
    changed.locator(".cm-editor").wait_for()
    head = changed.locator(".jp-Operator-cell-head").inner_text()
    assert "index 2" in head and "id cell-2" in head
    assert changed.locator(".jp-Operator-line-del").inner_text() == "radius = 2"
    assert changed.locator(".jp-Operator-line-add").inner_text() == "radius = 3"
    assert '"source"' not in item.inner_text()
    screenshot(page, "celldiff-notebook-card")

    toggle = item.locator(".jp-Operator-cells-toggle")
    toggle.click()
    json_view = item.locator(".jp-Operator-cells-json .cm-content")
    json_view.wait_for()
    assert '"radius = 3\\n",' in json_view.inner_text()
    assert item.locator(".jp-Operator-cells-list").is_hidden()
    toggle.click()
    assert item.locator(".jp-Operator-cells-list").is_visible()
    _approve_button(item).click()
    status_is(item, "applied")
    assert (root / "orbit-card.ipynb").read_text() == new
    screenshot(page, "celldiff-notebook-card-applied")


def test_moved_split_added_and_outputs_in_the_panel(lab_server: LabServer, page: Any) -> None:
    import nbformat

    root = lab_server.root
    whole = "import numpy as np\ndata = np.arange(10)\n\ntotal = data.sum()\nprint(total)"
    old_nb = nbformat.reads(notebook("# Data", whole, "x = 1", "print('end')"), as_version=4)
    old_nb.cells[3].outputs = [nbformat.v4.new_output("stream", text="end\n")]
    new_nb = nbformat.reads(nbformat.writes(old_nb), as_version=4)
    head, tail = whole.split("\n\n")
    first, second = nbformat.v4.new_code_cell(head), nbformat.v4.new_code_cell(tail)
    first.id, second.id = "cell-1", "part-2"
    extra = nbformat.v4.new_markdown_cell("A note")
    extra.id = "note"
    new_nb.cells = [new_nb.cells[0], first, second, new_nb.cells[3], extra, new_nb.cells[2]]
    new_nb.cells[3].outputs = []
    (root / "kinds.ipynb").write_text(nbformat.writes(old_nb))
    new = nbformat.writes(new_nb)
    open_lab(page, lab_server)
    run_reply(page, command("nb2", "fs.write", "kinds.ipynb", content_b64=b64(new)))
    wait_status(page, "nb2", "pending")
    item = card(page, "nb2")
    blocks = item.locator(".jp-Operator-cell")
    blocks.first.wait_for()
    statuses = [b.get_attribute("data-status") for b in blocks.all()]
    assert statuses == ["changed", "added", "changed", "added", "moved"], statuses
    assert "split from old index 1" in blocks.nth(1).inner_text()
    assert "+0" in blocks.nth(0).inner_text() and "−3" in blocks.nth(0).inner_text()
    assert "index 2 → 5" in blocks.nth(4).inner_text()
    notes = blocks.nth(2).locator(".jp-Operator-cell-notes")
    assert notes.locator("summary").inner_text() == "outputs changed"
    assert not notes.locator("li").first.is_visible()  # folded until opened
    notes.locator("summary").click()
    assert notes.locator("li").first.inner_text() == "outputs: 1 removed"
    item.locator(".cm-editor").first.wait_for()
    item.scroll_into_view_if_needed()
    screenshot(page, "celldiff-panel-kinds")
    item.locator(".jp-Operator-reject").click()
    wait_status(page, "nb2", "rejected")
