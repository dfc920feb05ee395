"""The cell edits an open page applies: smallest, by id, guarded by the source they replace."""

from __future__ import annotations

import json

from support.cell_notebooks import code, markdown, notebook

from jupyter_operator.notebooks.cell_edits import cell_edits, source_hash


def nb(*cells) -> bytes:
    return notebook(*cells).encode()


def test_a_source_change_is_one_set_guarded_by_the_old_source() -> None:
    edits = cell_edits(nb(code("a", "x"), code("b", "y")), nb(code("a", "x"), code("c", "y")))
    assert edits["ops"] == [{"op": "set", "id": "y", "fields": {"source": "c"}}]
    assert edits["guards"] == {"y": source_hash("b")}


def test_insert_delete_and_move_touch_only_those_cells() -> None:
    before = nb(code("a", "x"), code("b", "y"), code("c", "z"), code("d", "w"))
    after = nb(code("c", "z"), code("a", "x"), code("new", "n"), code("d", "w"))
    edits = cell_edits(before, after)
    kinds = [(op["op"], op.get("id") or op["cell"]["id"]) for op in edits["ops"]]
    assert kinds == [("delete", "y"), ("move", "z"), ("insert", "n")]
    insert = edits["ops"][2]
    assert insert["after"] == "x" and insert["cell"]["source"] == "new"
    assert set(edits["guards"]) == {"y"}  # a moved cell keeps whatever the person typed


def test_outputs_metadata_and_type_changes_are_fields_of_the_set() -> None:
    out = [{"output_type": "stream", "name": "stdout", "text": "1\n"}]
    edits = cell_edits(nb(code("a", "x")), nb(code("a", "x", outputs=out, execution_count=3)))
    [op] = edits["ops"]
    assert set(op["fields"]) == {"outputs", "execution_count"}
    assert op["fields"]["outputs"][0]["text"] == ["1\n"]  # as nbformat wrote it
    edits = cell_edits(nb(code("a", "x")), nb(markdown("a", "x")))
    assert edits["ops"][0]["fields"]["cell_type"] == "markdown"


def test_cells_without_unique_ids_have_no_edits() -> None:
    assert cell_edits(notebook(code("a"), minor=4).encode(), nb(code("b", "x"))) is None
    assert cell_edits(notebook(code("a", "x"), minor=5).encode(), b"not json") is None
    doubled = json.loads(nb(code("a", "x"), code("b", "y")))
    doubled["cells"][1]["id"] = "x"
    assert cell_edits(json.dumps(doubled).encode(), nb(code("a", "x"))) is None
