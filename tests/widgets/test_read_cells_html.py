"""An nb.readCells result on the notebook card: cells shown as cells, not one line of JSON."""

from __future__ import annotations

from pathlib import Path

from notebook_samples import SAMPLE, notebook
from replies import block

from jupyter_operator.engine import Operator
from jupyter_operator.widgets import RunView
from jupyter_operator.widgets.read_cells_html import read_cells_html


def test_read_cells_show_index_type_id_and_source(workspace: Path) -> None:
    (workspace / "analysis.ipynb").write_text(notebook(*SAMPLE))
    op = Operator(workspace, extensions=("nb",))
    view = RunView(op.run(block("r1", "nb.readCells", notebook="analysis.ipynb")))
    html = view.card_for("r1").header.value
    assert '<span class="jpo-cell-index">[1]</span>' in html and ">code<" in html
    assert "id cell-1" in html and "radius = 2" in html
    assert '"cells":[' not in html  # the model's JSON is not what the person reads


def test_the_cells_are_escaped_and_other_text_is_left_alone() -> None:
    details = ('{"cell_count":1,"cells":[{"index":0,"id":"a","type":"markdown",'
               '"source":"<img src=x onerror=alert(1)>"}]}')  # fmt: skip
    html = read_cells_html(details)
    assert html is not None and "<img" not in html and "&lt;img" in html
    assert "1 of 1 cells" in html
    assert read_cells_html("not json") is None and read_cells_html('{"a": 1}') is None
