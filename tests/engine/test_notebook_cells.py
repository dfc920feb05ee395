"""Proposals that change a notebook carry its cell diff (``Proposal.cells``, ``"cells"``)."""

from __future__ import annotations

import json
from pathlib import Path

from support.notebook_samples import SAMPLE, notebook, with_source
from support.replies import b64, block, edits


def test_a_notebook_write_carries_the_changed_cell(root: Path, make_operator) -> None:
    old = notebook(*SAMPLE)
    (root / "analysis.ipynb").write_text(old)
    new = with_source(old, 1, SAMPLE[1].replace("radius = 2", "radius = 3"))
    run = make_operator().run(block("w1", "fs.write", path="analysis.ipynb", content_b64=b64(new)))
    [item] = run.items
    cells = item.to_dict()["cells"]
    json.dumps(cells)  # JSON-ready
    assert cells["counts"] == {"added": 0, "removed": 0, "moved": 0, "changed": 1, "unchanged": 2}
    [changed] = [e for e in cells["cells"] if e["status"] == "changed"]
    assert (changed["new_index"], changed["id"], changed["cell_type"]) == (1, "cell-1", "code")
    assert "-radius = 2\n+radius = 3\n" in changed["source_diff"]
    assert item.proposal.cells is cells  # computed once


def test_other_files_and_deleted_notebooks(root: Path, make_operator) -> None:
    (root / "old.ipynb").write_text(notebook(*SAMPLE))
    run = make_operator().run(
        block("w1", "fs.write", path="notes.txt", content_b64=b64("hi\n"))
        + "\n"
        + block("d1", "fs.delete", path="old.ipynb")
    )
    write, delete = run.items
    assert write.to_dict()["cells"] is None
    removed = delete.to_dict()["cells"]
    assert [e["status"] for e in removed["cells"]] == ["removed"] * 3


def test_a_notebook_patched_as_text_is_shown_as_cells(root: Path, make_operator) -> None:
    (root / "nb.ipynb").write_text(notebook(*SAMPLE))
    change = edits({"op": "replaceFirst", "find": "print(area)", "text": "print(round(area))"})
    run = make_operator().run(block("e1", "fs.applyEdits", path="nb.ipynb", edits_b64=change))
    [item] = run.items
    [entry] = [e for e in item.proposal.cells["cells"] if e["status"] != "unchanged"]
    assert entry["status"] == "changed" and entry["new_index"] == 2
    assert entry["source_diff"] == "@@ -1 +1 @@\n-print(area)\n+print(round(area))\n"


def test_cell_actions_are_shown_as_cells(root: Path, make_operator) -> None:
    from support.cell_notebooks import standard

    (root / "nb.ipynb").write_text(standard())
    reply = "\n".join([
        block("m1", "nb.moveCell", notebook="nb.ipynb", cell_id="intro", index="0", to_index="2"),
        block("d1", "nb.deleteCell", notebook="nb.ipynb", cell_id="calc", index="1"),
    ])  # fmt: skip
    run = make_operator(extensions=("nb",)).run(reply)
    move, delete = run.items
    assert (move.status, delete.status) == ("pending", "pending"), delete.summary
    moved = [e for e in move.to_dict()["cells"]["cells"] if e["status"] == "moved"]
    assert [(e["id"], e["old_index"], e["new_index"]) for e in moved] == [("intro", 0, 2)]
    removed = [e for e in delete.to_dict()["cells"]["cells"] if e["status"] == "removed"]
    assert [e["id"] for e in removed] == ["calc"]  # previewed on top of the move
    assert delete.to_dict()["cells"]["counts"]["moved"] == 0
