"""The engine branches on what a runner can do (``Capabilities``), never on which runner it is.

A stand-in runner declares each capability in turn; no kernel starts.
"""

from __future__ import annotations

import json
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from support.cell_runs import cmd, insert_cell, joined, saved_cell

from jupyter_operator.engine import Operator, Policy
from jupyter_operator.execution import Capabilities, KernelInfo, Outcome, RunRequest
from jupyter_operator.execution.cell_runner import Done

#: The session's own kernel, sandboxed: the most a runner can do here.
OWN = Capabilities(runs_cells=True, live_kernel=False, sandboxed=True, allows_auto=True,
                   saves_outputs=True, checks_staleness=True)  # fmt: skip
OUTPUT = {"output_type": "stream", "name": "stdout", "text": "ran\n"}


class StandIn:
    """A runner that answers every run with one line of output and notes what it was asked."""

    def __init__(self, capabilities: Capabilities) -> None:
        self.capabilities = capabilities
        self.started: list[RunRequest] = []
        self.written: list[str] = []

    def kernel(self, notebook: str, kernel_name: str) -> KernelInfo:
        return KernelInfo(name=kernel_name, state="idle", identity="k1", where="headless")

    def start(self, request: RunRequest, done: Done) -> None:
        self.started.append(request)
        done(Outcome("ok", 1, 3, [OUTPUT], kernel_identity="k1"))

    def cells_written(self, notebook: str, before: bytes | None, after: bytes | None) -> None:
        self.written.append(notebook)

    def close(self) -> None:
        return None


def _operator(ws: Path, tmp_path: Path, runner: StandIn, policy: Policy | None = None) -> Operator:
    return Operator(ws, extensions=("nb",), journal_dir=tmp_path / "journal", runner=runner,
                    policy=policy)  # fmt: skip


def _edit_on_disk(ws: Path, cell_id: str, source: str) -> None:
    path = ws / "nb.ipynb"
    doc = json.loads(path.read_text())
    for cell in doc["cells"]:
        if cell.get("id") == cell_id:
            cell["source"] = source
    path.write_text(json.dumps(doc))


@pytest.mark.parametrize("checks", [True, False])
def test_the_cell_on_disk_is_checked_before_the_run_only_by_a_runner_that_asks_for_it(
    ws: Path, tmp_path: Path, checks: bool
) -> None:
    runner = StandIn(replace(OWN, checks_staleness=checks))
    with _operator(ws, tmp_path, runner) as op:
        run = op.run(cmd("r1", "nb.runCell", cell_id="c1"))
        _edit_on_disk(ws, "c1", "print('edited after the preview')")
        run.approve("r1")
        (item,) = run.items
    if checks:  # the engine refuses the edited cell: nothing reaches the runner
        assert item.status == "stale" and runner.started == []
    else:  # a page checks against what it shows: the engine hands the run over
        assert item.status == "done" and len(runner.started) == 1


@pytest.mark.parametrize("saves", [True, False])
def test_outputs_are_saved_into_the_notebook_only_by_a_runner_that_asks_for_it(
    ws: Path, tmp_path: Path, saves: bool
) -> None:
    runner = StandIn(replace(OWN, saves_outputs=saves))
    with _operator(ws, tmp_path, runner) as op:
        run = op.run(cmd("r1", "nb.runCell", cell_id="c1"))
        run.approve("r1")
        assert run.items[0].status == "done"
        saved = [entry for entry in op.history() if entry.action == "nb.runCell"]
    cell = saved_cell(ws / "nb.ipynb", "c1")
    if saves:
        assert joined(cell["outputs"][0]["text"]) == "ran\n" and cell["execution_count"] == 1
        assert len(saved) == 1  # saved through a journaled change, undoable
    else:  # a live notebook shows and saves its own outputs
        assert "ran\n" not in json.dumps(cell["outputs"]) and saved == []


@pytest.mark.parametrize("takes", [True, False])
def test_written_cell_changes_reach_only_a_runner_that_takes_them(
    ws: Path, tmp_path: Path, takes: bool
) -> None:
    runner = StandIn(replace(OWN, takes_cell_changes=takes))
    with _operator(ws, tmp_path, runner) as op:
        insert_cell(op, ws, "y = 2", index=1)
    assert runner.written == (["nb.ipynb"] if takes else [])


@pytest.mark.parametrize(
    ("capabilities", "rule_decides"),
    [
        pytest.param(OWN, True, id="own-sandboxed"),
        pytest.param(replace(OWN, sandboxed=False), False, id="own-unsandboxed"),
        pytest.param(replace(OWN, live_kernel=True, sandboxed=False), True, id="live-opened"),
        pytest.param(replace(OWN, live_kernel=True, sandboxed=False, allows_auto=False), False,
                     id="live-closed"),
        pytest.param(replace(OWN, runs_cells=False, sandboxed=False), True, id="runs-nothing"),
    ],
)  # fmt: skip
def test_a_rule_approves_a_run_only_where_the_capabilities_let_it(
    ws: Path, tmp_path: Path, capabilities: Capabilities, rule_decides: bool
) -> None:
    """Code outside the sandbox on the session's own kernel, or a live kernel not opened to
    rules, waits for a person whatever the rules say; a runner that runs nothing never runs
    unsandboxed code (its run just answers that nothing ran)."""
    runner = StandIn(capabilities)
    with _operator(ws, tmp_path, runner, Policy.parse("auto nb.runCell **")) as op:
        (item,) = op.run(cmd("r1", "nb.runCell", cell_id="c1")).items
    assert (item.decided_by == "rule") is rule_decides, item.rule
    assert (item.status == "pending") is not rule_decides


@pytest.mark.parametrize("sandboxed", [True, False])
def test_the_sandbox_masks_are_taken_before_a_run_only_for_a_sandboxed_runner(
    ws: Path, tmp_path: Path, sandboxed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sandboxed cell may give a notebook its own policy: the masks before it are what
    ``set_aside_new_policies`` compares with; an unsandboxed runner takes none."""
    runner = StandIn(replace(OWN, sandboxed=sandboxed, allows_auto=not sandboxed))
    with _operator(ws, tmp_path, runner) as op:
        taken: list[object] = []
        real = op.workspace.sandbox_masks
        monkeypatch.setattr(op.workspace, "sandbox_masks", lambda: taken.append(1) or real())
        run = op.run(cmd("r1", "nb.runCell", cell_id="c1"))
        run.approve("r1")
        assert run.items[0].status == "done"
    assert bool(taken) is sandboxed


class LaterStandIn(StandIn):
    """A runner that answers on a thread of its own, after ``start`` returned (a kernel)."""

    def __init__(self, capabilities: Capabilities) -> None:
        super().__init__(capabilities)
        self.answers: list[threading.Thread] = []

    def start(self, request: RunRequest, done: Done) -> None:
        self.started.append(request)
        go = threading.Event()
        answer = threading.Thread(target=lambda: (go.wait(5), done(Outcome(
            "ok", 1, 3, [OUTPUT], kernel_identity="k1"))))  # fmt: skip
        self.answers.append(answer)
        answer.start()
        self.go = go  # the test lets it answer once start has returned


@pytest.mark.parametrize("later", [False, True], ids=["while-it-starts", "on-its-thread"])
def test_a_run_that_ends_releases_the_read_waiting_for_it_and_is_told_once(
    ws: Path, tmp_path: Path, later: bool
) -> None:
    """A run that ends while it starts is settled by the decision that started it; one that
    ends later by ``Run.ran``. Either way the read queued behind it runs, and subscribers
    hear of the run's end once."""
    runner = LaterStandIn(OWN) if later else StandIn(OWN)
    with _operator(ws, tmp_path, runner) as op:
        run = op.run(cmd("r1", "nb.runCell", cell_id="c1") + cmd("v1", "nb.readCells"))
        assert [item.status for item in run.items] == ["pending", "waiting"]
        told: list[tuple[str, str]] = []
        run.subscribe(lambda item: told.append((item.id, item.status)))
        run.approve("r1")
        if later:
            assert run.items[0].status == "running" and run.items[1].status == "waiting"
            runner.go.set()
            runner.answers[0].join(5)
        assert [item.status for item in run.items] == ["done", "done"]
        assert told.count(("r1", "done")) == 1 and ("v1", "done") in told, told
