"""Edit before approve: the person's bytes are written, and the model is told what changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.replies import b64, block, edits, write

from jupyter_operator.engine import BadEdit, EngineError
from jupyter_operator.engine.edited_proposals import edit_diff, keep_line_endings
from jupyter_operator.engine.persist import dump_run, load_data, load_run
from jupyter_operator.protocol import codes, format_results, parse_results
from jupyter_operator.workspace import MAX_PLANNED_BYTES


def test_an_edited_approval_writes_the_edit_and_tells_the_model(root: Path, make_operator) -> None:
    (root / "a.py").write_text("x = 1\n")
    run = make_operator().run(write("w1", "a.py", "x = 2\ny = 3\n"))
    item = run.item("w1")
    assert item.editable and item.proposed_text() == "x = 2\ny = 3\n"
    assert item.to_dict()["editable"] is True and item.to_dict()["edited"] is False
    decision = run.approve("w1", content=b"x = 2\ny = 4\nz = 5\n")
    assert decision.outcome == "applied" and item.status == "applied"
    assert (root / "a.py").read_bytes() == b"x = 2\ny = 4\nz = 5\n"
    assert item.edited and item.to_dict()["edited"] is True and not item.editable
    result = item.result
    assert result.ok and result.code is None
    assert result.summary == (
        "Wrote file: the person edited the change before approving it; details show what they "
        "changed from your proposal."
    )
    assert result.details == (
        "--- proposed/a.py\n+++ written/a.py\n@@ -1,2 +1,3 @@\n x = 2\n-y = 3\n+y = 4\n+z = 5\n"
    )
    # The card's diff is what was written (file before -> edited bytes).
    assert "+z = 5" in item.diff and "-x = 1" in item.diff and item.added == 3
    # The text the model gets carries all of it, exactly.
    assert parse_results(run.results_text) == [result]
    assert "ok: true" in format_results([result])


def test_approving_the_proposal_unchanged_is_a_plain_approval(root: Path, make_operator) -> None:
    run = make_operator().run(write("w1", "a.txt", "A\n"))
    run.approve("w1", content=b"A\n")
    item = run.item("w1")
    assert not item.edited and item.result.summary == "Wrote file" and item.result.details is None
    assert (root / "a.txt").read_bytes() == b"A\n"


def test_an_edit_of_a_stale_preview_writes_nothing(root: Path, make_operator) -> None:
    (root / "a.txt").write_text("one\n")
    run = make_operator().run(write("w1", "a.txt", "two\n"))
    (root / "a.txt").write_text("someone else\n")
    decision = run.approve("w1", content=b"mine\n")
    assert decision.outcome == "stale" and run.item("w1").result.code == codes.ERR_STALE_PREVIEW
    assert (root / "a.txt").read_text() == "someone else\n"


def test_too_large_an_edit_is_refused_and_the_item_stays_pending(root: Path, make_operator) -> None:
    run = make_operator().run(write("w1", "a.txt", "A\n"))
    with pytest.raises(BadEdit) as info:
        run.approve("w1", content=b"x" * (MAX_PLANNED_BYTES + 1))
    assert info.value.reason == codes.ERR_RESULT_TOO_LARGE and info.value.status_hint == 400
    assert isinstance(info.value, EngineError) and info.value.code == "bad_edit"
    assert run.item("w1").status == "pending" and not (root / "a.txt").exists()
    run.approve("w1", content=b"B\n")  # fixed, then approved
    assert (root / "a.txt").read_bytes() == b"B\n"


def _notebook(source: str) -> str:
    cell = {"cell_type": "code", "id": "c1", "metadata": {}, "source": source,
            "outputs": [], "execution_count": None}  # fmt: skip
    nb = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(nb, indent=1) + "\n"


def test_an_edited_notebook_must_stay_a_valid_notebook(root: Path, make_operator) -> None:
    run = make_operator().run(write("w1", "n.ipynb", _notebook("print(1)")))
    for bad in (b"{not json", json.dumps({"cells": "nope"}).encode()):
        with pytest.raises(BadEdit) as info:
            run.approve("w1", content=bad)
        assert info.value.reason == codes.ERR_INVALID_NOTEBOOK
    assert run.item("w1").status == "pending" and not (root / "n.ipynb").exists()
    fixed = _notebook("print(2)").encode()
    run.approve("w1", content=fixed)
    assert (root / "n.ipynb").read_bytes() == fixed and run.item("w1").edited
    details = run.item("w1").result.details
    assert '-   "source": "print(1)",\n+   "source": "print(2)",' in details


def test_only_new_content_can_be_edited(root: Path, make_operator) -> None:
    (root / "gone.txt").write_text("bye\n")
    (root / "same.txt").write_text("same\n")
    reply = "\n".join([
        block("d1", "fs.delete", path="gone.txt"),
        block("r1", "fs.read", path="same.txt"),
        write("w1", "same.txt", "other\n"),
    ])  # fmt: skip
    run = make_operator().run(reply)
    delete = run.item("d1")
    assert delete.proposed_text() is None and not delete.editable
    with pytest.raises(BadEdit) as info:
        run.approve("d1", content=b"x")
    assert info.value.reason == "not_editable" and delete.status == "pending"
    assert run.item("r1").proposed_text() is None
    # Editing back to what the file has is no change at all: reject it instead.
    with pytest.raises(BadEdit) as same:
        run.approve("w1", content=b"same\n")
    assert same.value.reason == "edit_unchanged" and run.item("w1").status == "pending"
    with pytest.raises(TypeError):
        run.approve("w1", content="text")  # type: ignore[arg-type]
    assert (root / "gone.txt").exists() and (root / "same.txt").read_text() == "same\n"


CHAIN = "\n".join([
    write("w1", "plan.txt", "Alpha\nBeta\n"),
    block("e1", "fs.applyEdits", path="plan.txt",
          edits_b64=edits({"op": "insertAfter", "anchor": "Beta", "text": "Gamma"})),
])  # fmt: skip


def test_a_change_built_on_an_edited_one_is_replanned_on_it(root: Path, make_operator) -> None:
    run = make_operator().run(CHAIN)
    run.approve("w1", content=b"Alpha\nBeta\nDelta\n")
    dependent = run.item("e1")
    assert dependent.status == "pending" and dependent.builds_on is None
    assert dependent.proposed_text() == "Alpha\nBeta\nGamma\nDelta\n"
    run.approve("e1")
    assert (root / "plan.txt").read_text() == "Alpha\nBeta\nGamma\nDelta\n"


def test_a_dependent_that_no_longer_fits_the_edit_says_why(root: Path, make_operator) -> None:
    run = make_operator().run(CHAIN)
    run.approve("w1", content=b"Alpha only\n")
    dependent = run.item("e1")
    assert dependent.status == "failed" and dependent.result.code == codes.ERR_ANCHOR_NOT_FOUND
    assert "it builds on w1, which the person edited before approving" in dependent.result.summary
    assert (root / "plan.txt").read_text() == "Alpha only\n"


def test_undo_and_redo_of_an_edited_change(root: Path, make_operator) -> None:
    (root / "a.txt").write_text("old\n")
    op = make_operator()
    run = op.run(write("w1", "a.txt", "model\n"))
    run.approve("w1", content=b"person\n")
    edited_result = run.item("w1").result
    entry = op.history()[-1]
    assert entry.decided_by == "person" and "+person" in entry.diff
    op.undo()
    assert (root / "a.txt").read_text() == "old\n"
    assert run.item("w1").status == "undone"
    op.redo()
    assert (root / "a.txt").read_text() == "person\n"
    assert run.item("w1").status == "applied" and run.item("w1").result == edited_result


def test_a_saved_run_keeps_the_edit(root: Path, make_operator) -> None:
    op = make_operator()
    text = write("w1", "a.txt", "model\n")
    run = op.run(text)
    run.approve("w1", content=b"person\n")
    loaded = load_run(make_operator(), load_data(dump_run(run, text)))
    item = loaded.item("w1")
    assert item.edited and item.result == run.item("w1").result
    assert item.proposal.new_bytes == b"person\n"


def test_crlf_line_ends_survive_a_browser_editor() -> None:
    assert keep_line_endings("a\r\nb\r\n", "a\nB\nc\n") == "a\r\nB\r\nc\r\n"
    assert keep_line_endings("a\nb\n", "a\nB\n") == "a\nB\n"
    assert keep_line_endings("a\r\nb\n", "a\nB\n") == "a\nB\n"  # mixed: left alone
    assert keep_line_endings("a\r\nb\r\n", "a\r\nB\n") == "a\r\nB\n"  # already has CRs


def test_an_edited_bom_and_crlf_file_keeps_them(root: Path, make_operator) -> None:
    (root / "w.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\n")
    reply = block("e1", "fs.applyEdits", path="w.txt",
                  edits_b64=edits({"op": "replaceFirst", "find": "two", "text": "2"}))  # fmt: skip
    run = make_operator().run(reply)
    proposed = run.item("e1").proposed_text()
    assert proposed == "\ufeffone\r\n2\r\n"
    edited = keep_line_endings(proposed, "\ufeffone\n2\nthree\n")
    run.approve("e1", content=edited.encode("utf-8"))
    assert (root / "w.txt").read_bytes() == b"\xef\xbb\xbfone\r\n2\r\nthree\r\n"


def test_edit_diff_headers_name_both_sides() -> None:
    assert edit_diff(b"a\n", b"b\n", "./d/x.txt").splitlines()[:2] == [
        "--- proposed/d/x.txt",
        "+++ written/d/x.txt",
    ]
    assert edit_diff(b"same", b"same", "x") == ""
    assert b64("x")  # the helper module imports cleanly


def test_json_operations_take_an_edit_and_the_event_says_so(root: Path, make_operator) -> None:
    from jupyter_operator.dialects.json_ops import parse_events
    from jupyter_operator.engine import run_json

    (root / "b.txt").write_text("one\n")
    ops = [
        {"type": "createFile", "path": "a.txt", "content": "A\n"},
        {"type": "editFile", "path": "b.txt", "edits": [{"oldContent": "one", "newContent": "1"}]},
        {"type": "deleteFile", "path": "b.txt"},
    ]
    run = run_json(make_operator(), json.dumps(ops))
    create = run.pending[0]
    assert create.editable and create.proposed_text() == "A\n"
    run.approve(create.id, content=b"A\nB\n")
    assert (root / "a.txt").read_bytes() == b"A\nB\n" and create.edited
    assert create.event == {
        "type": "createFile", "path": "a.txt", "success": True, "bytesWritten": 4,
        "editedByPerson": True,
        "editDiff": "--- proposed/a.txt\n+++ written/a.txt\n@@ -1 +1,2 @@\n A\n+B\n",
    }  # fmt: skip
    assert "as the person edited it" in create.summary
    edit = run.pending[0]
    run.approve(edit.id)  # not edited: the seed's event, unchanged
    assert "editedByPerson" not in edit.event and (root / "b.txt").read_text() == "1\n"
    delete = run.pending[0]
    assert not delete.editable
    with pytest.raises(BadEdit):
        run.approve(delete.id, content=b"x")
    told = [e for e in parse_events(run.results_text) if e["type"] == "createFile"]
    assert told == [create.event]


def test_the_spec_appendix_tells_a_model_about_edited_results() -> None:
    from jupyter_operator.protocol import interface_spec

    appendix = interface_spec().split("APPENDIX: HOST EXTENSIONS", 1)[1]
    assert "The person may edit a change before approving it" in appendix
    assert "--- proposed/" in appendix and "+++ written/" in appendix


def test_a_cell_action_is_edited_like_any_change(root: Path, make_operator) -> None:
    (root / "n.ipynb").write_text(_notebook("print(1)"))
    op = make_operator(extensions=("nb",))
    reply = block("c1", "nb.replaceCell", notebook="n.ipynb", cell_id="c1", content="print(2)")
    run = op.run(reply)
    item = run.item("c1")
    assert item.editable and '"print(2)"' in item.proposed_text()
    edited = item.proposed_text().replace('"print(2)"', '"print(3)"')
    run.approve("c1", content=edited.encode())
    source = json.loads((root / "n.ipynb").read_text())["cells"][0]["source"]
    assert "".join(source) == "print(3)"
    added = [line for line in item.result.details.splitlines() if line.startswith("+")]
    assert item.edited and item.result.ok and any("print(3)" in line for line in added)
