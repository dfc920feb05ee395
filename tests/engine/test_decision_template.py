"""Every dialect decides through one template (``DecidableRun._decide``), and undo and redo
choose their entry through one selection (``undo.pick``)."""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from jupyter_operator.engine import Operator, plan, undo
from jupyter_operator.engine.commands import CommandRun, CommandSession
from jupyter_operator.engine.commands.bash import BashRun
from jupyter_operator.engine.decidable import DecidableRun
from jupyter_operator.engine.errors import BadEdit
from jupyter_operator.engine.json_run import JsonRun
from jupyter_operator.engine.run import Run
from jupyter_operator.protocol import OperatorError
from jupyter_operator.server.client_runs import ClientRun

TEMPLATE = ("approve", "approve_by_rule", "reject", "approve_all", "reject_all", "_decide",
            "_take")  # fmt: skip


@pytest.fixture
def operator(tmp_path: Path) -> Iterator[Operator]:
    root = tmp_path / "ws"
    root.mkdir()
    op = Operator(root, journal_dir=tmp_path / "journal")
    yield op
    op.close()


def _json(*operations: dict) -> str:
    return json.dumps({"operations": list(operations)})


@pytest.mark.parametrize("cls", [Run, JsonRun, BashRun, CommandRun, ClientRun])
def test_no_run_class_writes_its_own_decision(cls: type[DecidableRun]) -> None:
    # The order of checks, the state moves and the result text are DecidableRun's alone: a
    # run class supplies hooks (what carrying out, refusing and settling mean), nothing more.
    own = [name for name in TEMPLATE if name in vars(cls)]
    assert own == [] or (cls is ClientRun and own == ["approve_all", "reject_all"]), own
    # A client's session hands each part to its own run's template, with the same options.
    for name in own:
        assert inspect.signature(getattr(cls, name)) == inspect.signature(
            getattr(DecidableRun, name)), name  # fmt: skip


def test_a_json_operation_is_approved_by_a_rule_through_the_template(operator: Operator) -> None:
    run = plan(operator, _json({"type": "createFile", "id": "c1", "path": "a.txt",
                                "content": "A\n"}), "json")  # fmt: skip
    item = run.item("c1")
    assert item.needs_approval
    made = run.approve_by_rule("c1", "rule 1: auto fs.write a.txt")
    assert made.outcome == "applied" and (item.decided_by, item.rule) == (
        "rule", "rule 1: auto fs.write a.txt")  # fmt: skip
    assert (operator.root / "a.txt").read_text() == "A\n"
    assert run.approve_by_rule("c1", "again").outcome == "already_decided"


def test_a_bash_line_has_no_content_to_edit_and_stays_pending(operator: Operator) -> None:
    ran: list[str] = []
    session = CommandSession(operator, tag="qm", shell=lambda c, cwd: (ran.append(c), (0, ""))[1])
    batch = session.execute("ls -la")
    bash_run = batch.pending.run
    assert isinstance(bash_run, BashRun)
    item = bash_run.items[0]
    with pytest.raises(BadEdit):  # the same refusal as any item without new content
        bash_run.approve(item.id, content=b"rm -rf /")
    assert item.needs_approval and ran == []
    assert bash_run.reject(item.id, "not\nnow").outcome == "rejected"
    assert item.result is not None and item.result.summary.endswith(
        "the command was not run. Reason: not now")  # fmt: skip
    assert ran == []


def test_a_string_command_change_is_decided_by_its_own_run_and_never_runs_a_cell(
    operator: Operator,
) -> None:
    run = plan(operator, "/write a.md\nA\n/end\n/open a.md", "commands")
    assert isinstance(run, CommandRun) and not run.runs_cells
    pending = run.pending[0]
    # Approve & Run is dropped where the dialect runs no cells (the server passes it along).
    made = run.approve(pending.id, and_run=True)
    assert made.outcome == "applied" and made.item is pending and pending.execution is None
    assert (operator.root / "a.md").read_text() == "A\n"
    assert run.done and run.approve(pending.id).outcome == "already_decided"


def test_undo_and_redo_choose_through_the_one_selection(
    operator: Operator, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = plan(operator, _json({"type": "createFile", "id": "c1", "path": "a.txt",
                                "content": "A\n"}), "json")  # fmt: skip
    run.approve("c1")
    chosen: list[tuple[str | None, str]] = []
    real = undo.pick

    def spy(journal, entry_id, direction):  # type: ignore[no-untyped-def]
        chosen.append((entry_id, direction))
        return real(journal, entry_id, direction)

    monkeypatch.setattr(undo, "pick", spy)
    entry = undo.undo(operator.workspace, operator.journal)
    assert not (operator.root / "a.txt").exists()
    undo.redo(operator.workspace, operator.journal)
    assert chosen == [(None, "undo"), (None, "redo")]
    assert (operator.root / "a.txt").read_text() == "A\n"
    with pytest.raises(OperatorError, match="is not undone; there is nothing to redo"):
        undo.redo(operator.workspace, operator.journal, entry.entry_id)
    with pytest.raises(OperatorError, match="nothing to redo in this workspace"):
        undo.redo(operator.workspace, operator.journal)
