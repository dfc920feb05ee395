"""The notebook cell actions (nb.*): each action, each error, undo of each, and the off switch."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import nbformat
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.cell_notebooks import cells_of, code, markdown, notebook, standard
from support.replies import b64, block

from jupyter_operator.protocol import codes, interface_spec


@pytest.fixture
def op(make_operator):
    return make_operator(extensions=("nb",))


_ids = itertools.count(1)


def one(op, action: str, **fields: str):
    """The one item of a reply with one command (a fresh id each time: one session)."""
    [item] = op.run(block(f"c{next(_ids)}", action, **fields)).items
    return item


def approve(op, action: str, **fields: str):
    run = op.run(block(f"c{next(_ids)}", action, **fields))
    [item] = run.items
    assert item.status == "pending", item.summary
    decision = run.approve(item.id)
    return decision.item


# --- each action -----------------------------------------------------------------------------
def test_read_cells_lists_index_id_type_source_and_summarised_outputs(op, nb_path: Path) -> None:
    item = one(op, "nb.readCells", notebook="nb.ipynb")
    assert (item.status, item.result.summary) == ("done", "Read cells 0-2 of 3")
    view = json.loads(item.result.details)
    assert (view["notebook"], view["nbformat"], view["cell_count"]) == ("nb.ipynb", "4.5", 3)
    first, second, _ = view["cells"]
    assert first == {"index": 0, "id": "intro", "type": "markdown", "source": "# Title"}
    assert second["source"] == "x = 1\nprint(x)" and second["execution_count"] == 1
    assert second["outputs"] == [{"type": "stream", "name": "stdout", "text": "1\n"}]


def test_read_cells_takes_a_range_and_cuts_long_output_text(op, root: Path) -> None:
    long = {"output_type": "execute_result", "execution_count": 1, "metadata": {},
            "data": {"text/plain": "z" * 500, "image/png": "iVBORw0KGgo="}}  # fmt: skip
    cells = [code(f"c{i}", f"id{i}") for i in range(5)]
    cells[3] = code("big", "id3", outputs=[long], execution_count=1)
    (root / "n.ipynb").write_text(notebook(*cells))
    item = one(op, "nb.readCells", notebook="n.ipynb", start_index="2", count="2")
    view = json.loads(item.result.details)
    assert [c["index"] for c in view["cells"]] == [2, 3]
    assert item.result.summary == "Read cells 2-3 of 5"
    [out] = view["cells"][1]["outputs"]
    assert out["mime"] == ["image/png", "text/plain"]
    assert out["text"] == "z" * 200 and out["text_cut"] == 300
    past = one(op, "nb.readCells", notebook="n.ipynb", start_index="9")
    assert past.result.summary == "Read cells (past the end: the notebook has 5 cells)"


def test_insert_cell_plans_the_whole_notebook_and_applies_it(op, nb_path: Path) -> None:
    before = nb_path.read_bytes()
    run = op.run(block("c1", "nb.insertCell", notebook="nb.ipynb", index="1",
                       cell_type="markdown", content_b64=b64("## Load\nthe data")))  # fmt: skip
    [item] = run.items
    assert item.status == "pending" and item.path == "nb.ipynb"
    assert item.summary.startswith("insert markdown cell at 1, +")
    assert nb_path.read_bytes() == before  # planned only
    nbformat.validate(nbformat.reads(item.proposal.new_bytes.decode(), as_version=4))
    decided = run.approve("c1").item
    assert decided.status == "applied"
    cells = cells_of(nb_path)
    assert [c[2] for c in cells] == ["# Title", "## Load\nthe data", "x = 1\nprint(x)", "y = x + 1"]
    new_id = cells[1][0]
    assert decided.result.summary == f"Inserted markdown cell at index 1 (id {new_id})"
    assert new_id not in ("intro", "load", "calc") and len(new_id) == 8


def test_insert_cell_appends_at_the_cell_count_with_one_line_content(op, nb_path: Path) -> None:
    item = approve(op, "nb.insertCell", notebook="nb.ipynb", index="3", content="print(y)")
    assert item.status == "applied"
    assert cells_of(nb_path)[3][1:] == ("code", "print(y)")
    doc = json.loads(nb_path.read_text())
    assert doc["cells"][3]["outputs"] == [] and doc["cells"][3]["execution_count"] is None


def test_replace_cell_changes_the_source_and_keeps_outputs_marked_stale(op, nb_path) -> None:
    item = approve(op, "nb.replaceCell", notebook="nb.ipynb", cell_id="load", index="1",
                   content_b64=b64("x = 2\nprint(x)"))  # fmt: skip
    # The outputs were printed by the old source: the model is told they are stale.
    assert item.result.summary == ("Replaced cell load; outputs stale: cell load still shows "
                                   "the outputs of its old source until it runs again")
    [changed] = [c for c in item.proposal.cells["cells"] if c["status"] == "changed"]
    assert changed["stale_outputs"] == 1
    doc = json.loads(nb_path.read_text())
    assert "".join(doc["cells"][1]["source"]) == "x = 2\nprint(x)"
    assert doc["cells"][1]["outputs"][0]["text"] == ["1\n"]


def test_replace_cell_can_change_the_type(op, nb_path: Path) -> None:
    item = approve(op, "nb.replaceCell", notebook="nb.ipynb", cell_id="calc",
                   cell_type="markdown", content="Now *markdown*")  # fmt: skip
    assert item.result.summary == "Replaced cell calc (now markdown)"
    cell = json.loads(nb_path.read_text())["cells"][2]
    assert cell["cell_type"] == "markdown" and "outputs" not in cell
    assert "execution_count" not in cell


def test_delete_cell(op, nb_path: Path) -> None:
    item = approve(op, "nb.deleteCell", notebook="nb.ipynb", cell_id="intro")
    assert item.result.summary == "Deleted cell intro"
    assert [c[0] for c in cells_of(nb_path)] == ["load", "calc"]


def test_move_cell(op, nb_path: Path) -> None:
    item = approve(op, "nb.moveCell", notebook="nb.ipynb", cell_id="calc", index="2",
                   to_index="0")  # fmt: skip
    assert item.result.summary == "Moved cell calc to index 0"
    assert [c[0] for c in cells_of(nb_path)] == ["calc", "intro", "load"]


def test_changes_in_one_reply_build_on_each_other(op, nb_path: Path) -> None:
    reply = "\n".join([
        block("m1", "nb.moveCell", notebook="nb.ipynb", cell_id="calc", to_index="0"),
        block("d1", "nb.deleteCell", notebook="nb.ipynb", cell_id="intro", index="1"),
    ])  # fmt: skip
    run = op.run(reply)
    assert [i.status for i in run.items] == ["pending", "pending"]
    assert run.items[1].builds_on == "m1"
    run.approve_all()
    assert [c[0] for c in cells_of(nb_path)] == ["calc", "load"]


def test_the_same_source_again_changes_nothing(op, nb_path: Path) -> None:
    before = nb_path.read_bytes()
    item = one(op, "nb.replaceCell", notebook="nb.ipynb", cell_id="calc", content="y = x + 1")
    assert (item.status, item.result.ok) == ("done", True)
    assert item.result.summary.startswith("No change: nb.ipynb")
    assert nb_path.read_bytes() == before


# --- a notebook without cell ids (nbformat 4.4) --------------------------------------------------
def test_a_notebook_without_ids_is_addressed_by_index(op, root: Path) -> None:
    path = root / "old.ipynb"
    path.write_text(standard(minor=4))
    view = json.loads(one(op, "nb.readCells", notebook="old.ipynb").result.details)
    assert view["nbformat"] == "4.4" and [c["id"] for c in view["cells"]] == [None] * 3
    item = approve(op, "nb.insertCell", notebook="old.ipynb", index="0", content="import os")
    assert item.result.summary == "Inserted code cell at index 0"
    item = approve(op, "nb.replaceCell", notebook="old.ipynb", index="3", content="y = 2")
    assert item.result.summary == "Replaced cell at index 3"
    doc = json.loads(path.read_text())
    assert doc["nbformat_minor"] == 4 and not any("id" in c for c in doc["cells"])
    assert [c[2] for c in cells_of(path)] == ["import os", "# Title", "x = 1\nprint(x)", "y = 2"]
    nbformat.validate(nbformat.reads(path.read_text(), as_version=4))


def test_a_cell_id_in_a_notebook_without_ids_is_not_found(op, root: Path) -> None:
    (root / "old.ipynb").write_text(standard(minor=4))
    item = one(op, "nb.deleteCell", notebook="old.ipynb", cell_id="intro")
    assert (item.status, item.error_code) == ("failed", codes.ERR_CELL_NOT_FOUND)
    assert "address the cell by index" in item.result.summary


# --- errors ----------------------------------------------------------------------------------
def test_an_unknown_cell_id(op, nb_path: Path) -> None:
    item = one(op, "nb.deleteCell", notebook="nb.ipynb", cell_id="nope")
    assert (item.status, item.error_code) == ("failed", codes.ERR_CELL_NOT_FOUND)
    assert item.result.summary == (
        "Invalid OPERATOR_CMD (ERR_CELL_NOT_FOUND): no cell has id nope; read the cells again "
        "with nb.readCells."
    )


def test_an_index_that_does_not_match_the_id(op, nb_path: Path) -> None:
    before = nb_path.read_bytes()
    item = one(op, "nb.replaceCell", notebook="nb.ipynb", cell_id="calc", index="0", content="z")
    assert (item.status, item.error_code) == ("failed", codes.ERR_CELL_INDEX_MISMATCH)
    assert "cell calc is at index 2, not 0" in item.result.summary
    assert nb_path.read_bytes() == before


def test_an_index_alone_in_a_notebook_with_ids_is_refused(op, nb_path: Path) -> None:
    item = one(op, "nb.deleteCell", notebook="nb.ipynb", index="0")
    assert (item.status, item.error_code) == ("failed", codes.ERR_INVALID_CELL_PARAMS)
    assert "cell_id is required" in item.result.summary


@pytest.mark.parametrize(("action", "fields"), [
    ("nb.insertCell", {"index": "4", "content": "x"}),
    ("nb.moveCell", {"cell_id": "intro", "to_index": "3"}),
])  # fmt: skip
def test_positions_past_the_end(op, nb_path: Path, action: str, fields: dict[str, str]) -> None:
    item = one(op, action, notebook="nb.ipynb", **fields)
    assert (item.status, item.error_code) == ("failed", codes.ERR_INVALID_CELL_PARAMS)
    assert "past the end" in item.result.summary


def test_a_change_that_leaves_an_invalid_notebook_is_refused(op, root: Path) -> None:
    # A notebook that nbformat cannot validate already (a cell without metadata): the cell
    # action works on its JSON, but the result is checked before anyone is asked.
    doc = json.loads(standard())
    del doc["cells"][2]["metadata"]
    path = root / "bad.ipynb"
    path.write_text(json.dumps(doc))
    item = one(op, "nb.insertCell", notebook="bad.ipynb", index="0", content="x")
    assert (item.status, item.error_code) == ("failed", codes.ERR_INVALID_NOTEBOOK)
    assert path.read_text() == json.dumps(doc)


@pytest.mark.parametrize(("name", "text", "why"), [
    ("notes.txt", "hello", "is not a .ipynb file"),
    ("plain.ipynb", "not json", "is not notebook JSON"),
    ("v3.ipynb", json.dumps({"nbformat": 3, "nbformat_minor": 0, "cells": []}), "nbformat 4"),
    ("list.ipynb", "[]", "has no list of cells"),
])  # fmt: skip
def test_not_a_notebook(op, root: Path, name: str, text: str, why: str) -> None:
    (root / name).write_text(text)
    for action, fields in (("nb.readCells", {}), ("nb.insertCell", {"index": "0", "content": "x"})):
        item = one(op, action, notebook=name, **fields)
        assert (item.status, item.error_code) == ("failed", codes.ERR_NOT_A_NOTEBOOK)
        assert why in item.result.summary
        assert (root / name).read_text() == text


def test_a_missing_notebook(op) -> None:
    item = one(op, "nb.insertCell", notebook="none.ipynb", index="0", content="x")
    assert (item.status, item.error_code) == ("failed", codes.ERR_NOT_FOUND)
    item = one(op, "nb.readCells", notebook="none.ipynb")
    assert (item.status, item.error_code) == ("failed", codes.ERR_NOT_FOUND)


def test_a_protected_notebook_is_refused(op, root: Path) -> None:
    (root / ".ipynb_checkpoints").mkdir()
    (root / ".ipynb_checkpoints" / "nb-checkpoint.ipynb").write_text(standard())
    for action, fields in (("nb.readCells", {}), ("nb.deleteCell", {"cell_id": "calc"})):
        item = one(op, action, notebook=".ipynb_checkpoints/nb-checkpoint.ipynb", **fields)
        assert item.error_code == codes.ERR_PROTECTED_PATH


def test_a_notebook_changed_after_the_preview_is_stale(op, nb_path: Path) -> None:
    run = op.run(block("c1", "nb.deleteCell", notebook="nb.ipynb", cell_id="calc"))
    nb_path.write_text(standard().replace("y = x + 1", "y = x + 2"))
    changed = nb_path.read_bytes()
    item = run.approve("c1").item
    assert (item.status, item.error_code) == ("stale", codes.ERR_STALE_PREVIEW)
    assert nb_path.read_bytes() == changed


def test_a_path_field_names_the_notebook_field_instead(op, nb_path: Path) -> None:
    item = one(op, "nb.readCells", path="nb.ipynb")
    assert item.error_code == codes.ERR_ACTION_FORBIDS_PATH
    assert "notebook:" in item.result.summary


def test_a_notebook_outside_the_workspace_is_refused(op, root: Path) -> None:
    item = one(op, "nb.readCells", notebook="../outside.ipynb")
    assert item.error_code == codes.ERR_PATH_ESCAPE
    assert str(root) not in item.result.summary


# --- undo of each ----------------------------------------------------------------------------
@pytest.mark.parametrize(("action", "fields"), [
    ("nb.insertCell", {"index": "0", "content": "import os"}),
    ("nb.replaceCell", {"cell_id": "load", "content": "x = 3"}),
    ("nb.deleteCell", {"cell_id": "intro"}),
    ("nb.moveCell", {"cell_id": "intro", "to_index": "2"}),
])  # fmt: skip
def test_undo_and_redo_of_each_change(op, nb_path: Path, action: str,
                                      fields: dict[str, str]) -> None:  # fmt: skip
    before = nb_path.read_bytes()
    run = op.run(block(f"c{next(_ids)}", action, notebook="nb.ipynb", **fields))
    item = run.approve(run.items[0].id).item  # the run is kept: its cards follow undo
    after = nb_path.read_bytes()
    assert after != before and item.entry_id
    [entry] = op.history()
    assert (entry.action, entry.path) == (action, "nb.ipynb")
    op.undo(item.entry_id)
    assert nb_path.read_bytes() == before and item.status == "undone"
    op.redo(item.entry_id)
    assert nb_path.read_bytes() == after and item.status == "applied"


# --- rules and the off switch ----------------------------------------------------------------
def test_reads_run_at_once_and_changes_ask_by_default(op, nb_path: Path) -> None:
    reply = "\n".join([
        block("r1", "nb.readCells", notebook="nb.ipynb"),
        block("w1", "nb.deleteCell", notebook="nb.ipynb", cell_id="calc"),
    ])  # fmt: skip
    assert [i.status for i in op.run(reply).items] == ["done", "pending"]


def test_a_policy_names_cell_actions(make_operator, nb_path: Path) -> None:
    from jupyter_operator.engine import Policy

    op = make_operator(extensions=("nb",), policy=Policy(auto={"reads", "nb.insertCell"},
                                                         deny={"nb.deleteCell"}))  # fmt: skip
    reply = "\n".join([
        block("i1", "nb.insertCell", notebook="nb.ipynb", index="0", content="x"),
        block("d1", "nb.deleteCell", notebook="nb.ipynb", cell_id="calc"),
    ])  # fmt: skip
    first, second = op.run(reply).items
    assert (first.status, first.decided_by) == ("applied", "rule")
    assert (second.status, second.error_code) == ("denied", codes.ERR_POLICY_DENIED)


def test_exact_rules_match_cell_actions_on_the_notebook_path(make_operator, nb_path: Path) -> None:
    from jupyter_operator.engine import Policy

    policy = Policy.parse("auto nb.insertCell *.ipynb\ndeny nb.deleteCell\nask writes")
    op = make_operator(extensions=("nb",), policy=policy)
    reply = "\n".join([
        block("i1", "nb.insertCell", notebook="nb.ipynb", index="0", content="x"),
        block("d1", "nb.deleteCell", notebook="nb.ipynb", cell_id="calc"),
        block("m1", "nb.moveCell", notebook="nb.ipynb", cell_id="calc", to_index="0"),
    ])  # fmt: skip
    first, second, third = op.run(reply).items
    assert (first.status, first.rule) == ("applied", "rule 1: auto nb.insertCell *.ipynb")
    assert (second.status, second.rule) == ("denied", "rule 2: deny nb.deleteCell")
    assert third.status == "pending"


@pytest.mark.parametrize("action", ["nb.readCells", "nb.insertCell", "nb.replaceCell",
                                    "nb.deleteCell", "nb.moveCell"])  # fmt: skip
def test_off_by_default_every_cell_action_is_an_unknown_action(
    make_operator, nb_path: Path, action: str
) -> None:
    before = nb_path.read_bytes()
    item = one(make_operator(), action, notebook="nb.ipynb", cell_id="calc", index="0",
               to_index="1", content="x")  # fmt: skip
    assert (item.kind, item.error_code) == ("error", codes.ERR_UNKNOWN_ACTION)
    assert item.result.summary == (
        f"Invalid OPERATOR_CMD (ERR_UNKNOWN_ACTION): Unknown action: {action}. "
        "Use one of the spec's actions."
    )
    assert nb_path.read_bytes() == before


def test_the_spec_a_session_gives_lists_the_actions_only_when_enabled(make_operator) -> None:
    on, off = make_operator(extensions=("nb",)), make_operator()
    assert "nb.insertCell" in on.interface_spec() and "nb.insertCell" not in off.interface_spec()
    assert off.interface_spec() == interface_spec()
    [item] = on.run(block("s1", "operator.getInterfaceSpec")).items
    assert item.result.details == on.interface_spec()
    for name in codes.CELL_CODES:
        assert f"- {name}: " in on.interface_spec()
        assert name not in off.interface_spec()


def test_an_unknown_extension_is_refused(make_operator) -> None:
    with pytest.raises(ValueError, match="unknown extension 'cells'"):
        make_operator(extensions=("cells",))


def test_saved_runs_come_back_with_their_cell_actions(op, make_operator, nb_path: Path) -> None:
    from jupyter_operator.engine import persist

    text = block("c1", "nb.deleteCell", notebook="nb.ipynb", cell_id="calc")
    raw = persist.dump_run(op.run(text), text)
    again = make_operator(extensions=("nb",))  # a restarted server's session
    restored = persist.load_run(again, persist.load_data(raw))
    assert restored.approve("c1").item.status == "applied"
    assert [c[0] for c in cells_of(nb_path)] == ["intro", "load"]


def test_the_test_notebooks_are_valid() -> None:
    nbformat.validate(nbformat.reads(notebook(markdown("a", "m1"), code("b", "c1")), 4))


def test_a_cell_change_counts_the_lines_a_person_sees(op, nb_path: Path) -> None:
    """The card's +N -M counts cell source lines, as its cell view shows them: inserting a
    one-line cell said +8 -0 (the lines of notebook JSON behind it)."""
    item = one(op, "nb.insertCell", notebook="nb.ipynb", index="1", content="print(42)")
    assert (item.proposal.added, item.proposal.removed) == (1, 0)
    assert item.summary.endswith(", +1 -0 lines")
    assert "print(42)" in item.proposal.diff  # the raw JSON diff is still there


# --- any field on any action: a coded result, never an exception -----------------------------
def test_every_action_with_every_field_gets_a_coded_result(make_operator, nb_path: Path) -> None:
    """A field an action does not take (``content_b64`` on ``nb.readCells``, ``nb.runCell`` or
    ``nb.restartKernel``) is ignored like any other; no block ends the reply with an
    exception. Every pending one is then approved and also ends with a code."""
    from support.cell_runs import assert_coded, every_action, every_field_reply, spec_fields

    from jupyter_operator.execution import NoRunner

    op = make_operator(extensions=("nb",), runner=NoRunner())
    read = one(op, "nb.readCells", notebook="nb.ipynb", content_b64=b64("x = 1"))
    assert (read.status, read.result.summary) == ("done", "Read cells 0-2 of 3")
    for action in ("nb.runCell", "nb.restartKernel", "nb.rebuildState"):
        item = one(op, action, notebook="nb.ipynb", cell_id="load", content_b64="eA==")
        assert item.status == "pending", item.result
    run = op.run(every_field_reply())
    assert len(run.items) == len(every_action()) * (len(spec_fields()) + 1)
    assert_coded(run.items)
    run.approve_all()
    assert_coded(run.items)
    assert not [item.id for item in run.items if item.status in ("pending", "running")]


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(data=st.data())
def test_any_fields_with_any_values_get_a_coded_result(make_operator, nb_path: Path,
                                                       data: st.DataObject) -> None:  # fmt: skip
    """Every field of the spec on a random action, some left out, some malformed."""
    from support.cell_runs import assert_coded, cmd, every_action, field_value, spec_fields

    from jupyter_operator.execution import NoRunner

    action = data.draw(st.sampled_from(every_action()))
    where = "path" if action.startswith("fs.") else "notebook"  # the other is refused first
    names = [name for name in spec_fields() if name != "path" or where == "path"]
    # Every field, well formed; then some left out and some given other values.
    fields: dict[str, str | None] = {name: field_value(name) for name in names}
    for name in data.draw(st.sets(st.sampled_from(names))):
        fields[name] = None
    odd = st.sampled_from(["", "0", "601", "-1", "1.5", "eA==", "x y", "../x.ipynb", "nb.ipynb"])
    text = st.text(alphabet=st.characters(blacklist_categories=["Cs", "Zl", "Zp"],
                                          blacklist_characters="\r\n\x0b\x0c\x1c\x1d\x1e\x85"),
                   max_size=12)  # fmt: skip
    for name in data.draw(st.sets(st.sampled_from(names))):
        fields[name] = data.draw(odd | text)
    op = make_operator(extensions=("nb",), runner=NoRunner())
    run = op.run(cmd("h1", action, **fields))
    assert_coded(run.items)
    run.approve_all()
    assert_coded(run.items)
