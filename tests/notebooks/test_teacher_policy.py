"""A notebook's own policy (``metadata.jupyter_operator.policy``): obeyed, and out of reach."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cell_runs import b64, cmd

from jupyter_operator.engine import Operator
from jupyter_operator.notebooks import teacher


def _set_policy(path: Path, level: str) -> bytes:
    doc = json.loads(path.read_text())
    doc["metadata"]["jupyter_operator"] = {"policy": level}
    path.write_text(json.dumps(doc, indent=1))
    return path.read_bytes()


def test_no_run_refuses_runs_but_allows_changes(op: Operator, ws: Path) -> None:
    _set_policy(ws / "nb.ipynb", "no-run")
    run = op.run(cmd("r1", "nb.runCell", cell_id="c1") +
                 cmd("e1", "nb.replaceCell", cell_id="c2", content="print(1)"))  # fmt: skip
    r1, e1 = run.items
    assert r1.error_code == "ERR_NOTEBOOK_POLICY" and r1.status == "failed"
    assert "does not allow running its cells (policy: no-run)" in r1.summary
    assert e1.status == "pending"


def test_dry_run_shows_changes_and_applies_nothing(op: Operator, ws: Path) -> None:
    before = _set_policy(ws / "nb.ipynb", "dry-run")
    run = op.run(cmd("e1", "nb.replaceCell", cell_id="c2", content="print(1)"))
    assert run.items[0].status == "pending" and run.items[0].diff
    run.approve("e1")
    assert run.items[0].error_code == "ERR_NOTEBOOK_POLICY"
    assert (ws / "nb.ipynb").read_bytes() == before


def test_off_refuses_reads_too(op: Operator, ws: Path) -> None:
    before = _set_policy(ws / "nb.ipynb", "off")
    run = op.run(cmd("r1", "nb.readCells") + cmd("e1", "nb.deleteCell", cell_id="c1"))
    assert [item.error_code for item in run.items] == ["ERR_NOTEBOOK_POLICY"] * 2
    assert (ws / "nb.ipynb").read_bytes() == before


@pytest.mark.parametrize("level", ["run", "off", "auto-run"])
def test_no_proposal_may_change_the_key(op: Operator, ws: Path, level: str) -> None:
    before = _set_policy(ws / "nb.ipynb", "no-run")
    doc = json.loads(before)
    doc["metadata"]["jupyter_operator"]["policy"] = level
    run = op.run(cmd("w1", "fs.write", notebook=None, path="nb.ipynb",
                     content_b64=b64(json.dumps(doc))))  # fmt: skip
    assert run.items[0].error_code == "ERR_NOTEBOOK_POLICY"
    assert "only its author sets it" in run.items[0].summary
    assert (ws / "nb.ipynb").read_bytes() == before


def test_a_new_notebook_cannot_carry_the_key(op: Operator, ws: Path) -> None:
    doc = json.loads((ws / "nb.ipynb").read_text())
    doc["metadata"]["jupyter_operator"] = {"policy": "auto-run"}
    run = op.run(cmd("w1", "fs.write", notebook=None, path="new.ipynb",
                     content_b64=b64(json.dumps(doc))))  # fmt: skip
    assert run.items[0].error_code == "ERR_NOTEBOOK_POLICY"
    assert not (ws / "new.ipynb").exists()


def test_the_server_cap_limits_every_notebook(ws: Path, tmp_path: Path) -> None:
    _set_policy(ws / "nb.ipynb", "auto-run")
    with Operator(ws, extensions=("nb",), journal_dir=tmp_path / "j", notebook_cap="no-run") as op:
        run = op.run(cmd("r1", "nb.runCell", cell_id="c1"))
        assert run.items[0].error_code == "ERR_NOTEBOOK_POLICY"


def test_levels_and_unknown_values() -> None:
    assert teacher.level_of({"metadata": {}}) == "run"
    assert teacher.level_of({"metadata": {"jupyter_operator": {"policy": "no-runn"}}}) == "off"
    assert teacher.capped("auto-run", "no-run") == "no-run"
    assert teacher.capped("off", "auto-run") == "off"
    assert teacher.allows("no-run", "apply") and not teacher.allows("no-run", "run")
    assert not teacher.allows("dry-run", "apply")
