"""The pure notebook transforms of the cell actions: nbformat's bytes, no surprises."""

from __future__ import annotations

import json

import nbformat
from hypothesis import given, settings
from hypothesis import strategies as st
from support.cell_notebooks import code, markdown, notebook

from jupyter_operator.workspace import validate_notebook
from jupyter_operator.workspace.cell_transforms import (
    delete_cell,
    dump_notebook,
    insert_cell,
    load_notebook,
    locate,
    move_cell,
    replace_cell,
    source_of,
)


def test_dump_writes_exactly_what_nbformat_writes() -> None:
    out = [{"output_type": "stream", "name": "stdout", "text": "a\nb\n"},
           {"output_type": "display_data", "metadata": {},
            "data": {"text/plain": "x\ny", "image/png": "iVBORw0KGgo=\n"}}]  # fmt: skip
    text = notebook(markdown("# T\n\nÜnïcode ✓", "m"), code("a = 1\nb = 2\n", "c", outputs=out))
    doc = json.loads(text)
    doc["metadata"]["orig_nbformat"] = 4  # transient: nbformat drops it
    doc["cells"][1]["metadata"]["trusted"] = True
    raw = json.dumps(doc).encode()
    nb = load_notebook(raw, "n.ipynb")
    expected = nbformat.writes(nbformat.from_dict(json.loads(raw)))
    assert dump_notebook(nb) == expected.encode("utf-8")  # the input had no final newline
    assert source_of(nb.cells[1]) == "a = 1\nb = 2\n"  # the parsed notebook is left as it was
    assert dump_notebook(load_notebook(text.encode(), "n.ipynb")) == text.encode()


# --- any sequence of changes leaves a valid notebook holding exactly the expected cells ---------

_op = st.tuples(st.sampled_from(["insert", "replace", "delete", "move"]),
                st.integers(0, 9), st.integers(0, 9),
                st.sampled_from(["code", "markdown", "raw"]),
                st.text(max_size=12))  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(minor=st.sampled_from([4, 5]), ops=st.lists(_op, max_size=8))
def test_any_sequence_of_changes_keeps_a_valid_notebook(minor: int, ops: list) -> None:
    ids = (lambda i: i) if minor >= 5 else (lambda i: None)
    nb = load_notebook(notebook(markdown("m", ids("a")), code("c", ids("b")), minor=minor).encode(),
                       "n.ipynb")  # fmt: skip
    expected = [source_of(cell) for cell in nb.cells]
    for kind, i, j, cell_type, source in ops:
        count = len(nb.cells)
        if kind == "insert":
            insert_cell(nb, min(i, count), cell_type, source)
            expected.insert(min(i, count), source)
            continue
        if not count:
            continue
        cell_id = nb.cells[i % count].get("id")
        position = locate(nb, cell_id, None if cell_id else i % count)
        assert position == i % count
        if kind == "replace":
            replace_cell(nb, position, source, cell_type)
            expected[position] = source
        elif kind == "delete":
            delete_cell(nb, position)
            del expected[position]
        else:
            move_cell(nb, position, j % count)
            expected.insert(j % count, expected.pop(position))
    data = dump_notebook(nb)
    validate_notebook(data)
    again = load_notebook(data, "n.ipynb")
    assert [source_of(cell) for cell in again.cells] == expected
    ids_now = [cell.get("id") for cell in again.cells]
    if minor >= 5:
        assert len(set(ids_now)) == len(ids_now) and None not in ids_now
    else:
        assert ids_now == [None] * len(ids_now)
