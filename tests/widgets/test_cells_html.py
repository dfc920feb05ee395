"""Notebook changes in the widget cards: cells by default, the JSON diff one click away."""

from __future__ import annotations

from pathlib import Path

from notebook_samples import SAMPLE, notebook, with_source
from operator_replies import reply, write_block

from jupyter_operator.engine import Operator
from jupyter_operator.notebooks.celldiff import diff_notebooks
from jupyter_operator.widgets import RunView
from jupyter_operator.widgets.cells_html import cells_html, entry_html


def notebook_card(workspace: Path, new_source: str = "radius = 3"):
    old = notebook(*SAMPLE)
    (workspace / "analysis.ipynb").write_text(old)
    new = with_source(old, 1, SAMPLE[1].replace("radius = 2", new_source))
    view = RunView(Operator(workspace).run(reply(write_block("w1", "analysis.ipynb", new))))
    return view, view.card_for("w1")


def test_a_one_line_change_is_shown_as_a_changed_cell_not_json(workspace: Path) -> None:
    _view, card = notebook_card(workspace)
    html = card.header.value
    assert "jpo-cell-changed" in html and "Notebook cells: 1 changed" in html
    assert "index 1" in html and "id cell-1" in html and ">code<" in html
    assert "2 unchanged cells" not in html and "unchanged cell" in html  # folds, one per run
    # The source diff, numbered from the cell's first line; no JSON quoting in sight.
    removed_line_2 = (
        '<span class="jpo-ln">2</span><span class="jpo-ln"></span><span class="jpo-sign">-'
    )
    assert removed_line_2 in html
    assert "&quot;source&quot;" not in html and '\\"' not in html
    assert card.json_toggle in card.children and card.json_toggle.description == "Show JSON diff"


def test_show_json_diff_swaps_in_the_file_diff_and_back(workspace: Path) -> None:
    _view, card = notebook_card(workspace)
    card.json_toggle.click()
    assert "&quot;radius = 2\\n&quot;," in card.header.value  # the JSON text of the file
    assert "jpo-cells" not in card.header.value and card.json_toggle.description == "Show cells"
    card.json_toggle.click()
    assert "jpo-cells" in card.header.value
    # Deciding keeps the view; the card still shows cells once applied.
    card.approve_button.click()
    assert card.item.status == "applied" and "jpo-cells" in card.header.value


def test_the_saved_notebook_view_shows_cells_too(workspace: Path) -> None:
    view, _card = notebook_card(workspace)
    html = view._repr_mimebundle_()["text/html"]
    assert "jpo-cell-changed" in html and "&quot;source&quot;" not in html


def test_other_files_keep_the_plain_diff_and_no_toggle(workspace: Path) -> None:
    view = RunView(Operator(workspace).run(reply(write_block("w1", "a.txt", "x\n"))))
    card = view.card_for("w1")
    assert card.json_toggle is None and "jpo-cells" not in card.header.value


def test_cell_content_is_escaped_and_notes_are_folded() -> None:
    old = notebook("x = 1", "y = 2")
    new = with_source(old, 0, "<img src=x onerror=alert(1)>")
    cells = diff_notebooks(old, new).to_dict()
    html = cells_html(cells)
    assert "<img" not in html and "&lt;img" in html
    notes = {"outputs": "1 added", "metadata": "tags <b>", "execution_count": [1, 2]}
    entry = {**cells["cells"][0], **notes}
    rendered = entry_html(entry)
    assert "<details" in rendered and "outputs, metadata, execution count changed" in rendered
    assert "tags &lt;b&gt;" in rendered and "execution count 1 &rarr; 2" in rendered


def test_moved_split_and_unchanged_runs_have_their_own_words() -> None:
    moved = {"status": "moved", "old_index": 1, "new_index": 4, "id": "a", "cell_type": "code"}
    assert "index 1 &rarr; 4" in entry_html(moved) and "jpo-cs-moved" in entry_html(moved)
    split = {"status": "added", "old_index": None, "new_index": 2, "cell_type": "code",
             "split_from": 1, "source_diff": "@@ -0,0 +1 @@\n+b\n", "added": 1}  # fmt: skip
    assert "split from old index 1" in entry_html(split)
    run = {"status": "unchanged", "old_index": 0, "new_index": 0, "count": 12, "renumbered": 3}
    label = "12 unchanged cells (index 0&ndash;11), 3 with a new execution count only"
    assert label in entry_html(run)


def test_an_empty_new_notebook_says_so() -> None:
    from jupyter_operator.notebooks.celldiff import diff_notebooks
    from jupyter_operator.widgets.cells_html import counts_line

    empty = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
    assert counts_line(diff_notebooks(None, empty).to_dict()) == "a new notebook with no cells"
    deleted = counts_line(diff_notebooks(empty, None).to_dict())
    assert deleted == "the notebook is deleted (it has no cells)"
    assert counts_line(diff_notebooks(empty, empty).to_dict()) == "no cell changed"
