"""What an open copy of a notebook must take after a cell change (notebooks/cell_sync.py)."""

from __future__ import annotations

from support.cell_notebooks import code, markdown, notebook

from jupyter_operator.notebooks.cell_sync import cell_changes


def test_changed_added_moved_and_deleted_cells() -> None:
    before = notebook(code("a = 1", id="a"), code("b = 2", id="b"), markdown("# c", id="c"))
    after = notebook(markdown("# c", id="c"), code("a = 10", id="a"), code("new", id="n"))
    found = cell_changes(before.encode(), after.encode())
    assert found == [
        {"id": "c", "index": 0, "cell_type": "markdown", "source": "# c"},
        {"id": "a", "index": 1, "cell_type": "code", "source": "a = 10"},
        {"id": "n", "index": 2, "cell_type": "code", "source": "new"},
        {"id": "b", "index": 1, "cell_type": "code", "source": None},
    ]


def test_outputs_alone_are_no_change_and_bad_text_is_none() -> None:
    before = notebook(code("x = 1", id="x"))
    after = notebook(code("x = 1", id="x", outputs=[{"output_type": "stream", "name": "stdout",
                                                     "text": "1\n"}], execution_count=3))
    assert cell_changes(before.encode(), after.encode()) == []
    assert cell_changes(b"not json", after.encode()) == []
