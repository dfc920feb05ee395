"""The pure notebook transforms of the cell actions: nbformat's bytes, no surprises."""

from __future__ import annotations

import json

import nbformat
from cell_notebooks import code, markdown, notebook

from jupyter_operator.workspace.cells import dump_notebook, load_notebook, source_of


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
