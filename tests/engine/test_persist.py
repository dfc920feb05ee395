"""Saving a run and loading it into a new Operator: the exact previews, nothing planned again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.replies import b64, block, edits

from jupyter_operator.engine.persist import PersistError, dump_run, load_data, load_run

CHAIN = "\n".join([
    block("r0", "fs.read", path="keep.txt"),
    block("w1", "fs.write", path="plan.txt", content_b64=b64("Alpha\nBeta")),
    block("e1", "fs.applyEdits", path="plan.txt",
          edits_b64=edits({"op": "insertAfter", "anchor": "Beta", "text": "Gamma"})),
    block("bad", "fs.nope", path="x"),
])  # fmt: skip


def test_a_loaded_run_applies_exactly_what_was_previewed(root: Path, make_operator) -> None:
    (root / "keep.txt").write_text("kept\n")
    run = make_operator().run(CHAIN)
    saved = dump_run(run, CHAIN, workspace="default")
    (root / "keep.txt").write_text("changed later\n")  # reads are not run again on load

    data = load_data(saved)
    assert data["workspace"] == "default"
    loaded = load_run(make_operator(), data)
    assert [i.status for i in loaded.items] == [i.status for i in run.items]
    assert loaded.item("r0").details == "kept\n"
    assert loaded.item("e1").builds_on == "w1" and loaded.item("e1").diff == run.item("e1").diff
    loaded.approve_all()
    assert (root / "plan.txt").read_bytes() == b"Alpha\nBeta\nGamma"
    assert loaded.results_text.count("ok: true") == 3


def test_a_loaded_preview_of_a_changed_file_is_stale(root: Path, make_operator) -> None:
    (root / "plan.txt").write_text("old\n")
    text = block("w1", "fs.write", path="plan.txt", content="new")
    saved = dump_run(make_operator().run(text), text)
    (root / "plan.txt").write_text("someone else\n")
    loaded = load_run(make_operator(), load_data(saved))
    loaded.approve("w1")
    assert loaded.item("w1").status == "stale"
    assert (root / "plan.txt").read_text() == "someone else\n"


def test_tampered_bytes_are_refused(root: Path, make_operator) -> None:
    text = block("w1", "fs.write", path="plan.txt", content="new")
    data = json.loads(dump_run(make_operator().run(text), text))
    data["items"][0]["proposal"]["new_bytes"] = b64("evil")
    with pytest.raises(PersistError, match="digest"):
        load_run(make_operator(), load_data(json.dumps(data).encode()))
    with pytest.raises(PersistError):
        load_data(b"[]")
