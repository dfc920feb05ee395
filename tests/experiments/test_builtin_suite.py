"""The built-in suite of agent tasks (``jupyter_operator/experiments/suites/builtin``).

Every task is checked on its own terms: its ``task.toml`` has the known fields with the right
types, its check FAILS on the untouched starting files, and its reference solution, played
through the engine reply by reply (no model, no network), makes the check PASS.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nbformat
import pytest

from jupyter_operator.agent.stops import classify
from jupyter_operator.engine import Operator, Policy
from jupyter_operator.experiments import checks, load_task
from jupyter_operator.experiments.checks import CheckResult
from jupyter_operator.experiments.tasks import materialize

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

SUITE = Path(__file__).resolve().parents[2] / "jupyter_operator" / "experiments" / "suites"
SUITE = SUITE / "builtin"
TASKS = sorted(p for p in SUITE.iterdir() if p.is_dir() and (p / "task.toml").is_file())
CHECK = 'python3 "$TASK_DIR/check.py"'
#: The fields a task.toml may have, and their types.
FIELDS: dict[str, type] = {
    "prompt": str,
    "check": str,
    "measures": str,
    "max_turns": int,
    "extensions": list,
    "policy": list,
}
REQUIRED = {"prompt", "check", "measures"}
MAX_FILE_BYTES = 4096


def settings(task: Path) -> dict:
    return tomllib.loads((task / "task.toml").read_text(encoding="utf-8"))


def reference(task: Path) -> list[str]:
    return json.loads((task / "reference.json").read_text(encoding="utf-8"))


def run_check(task: Path, workspace: Path) -> CheckResult:
    """The task's check, as the harness runs it (``experiments.checks.run_check``: in the
    sandbox where there is one, ``taskcheck`` on its path), with ``$TASK_DIR`` a folder of the
    task's other files only (``files/`` is not there: a check cannot compare against it)."""
    task_dir = workspace.parent / "task"
    if not task_dir.exists():
        task_dir.mkdir()
        materialize(load_task(task).support, task_dir)
    return checks.run_check(settings(task)["check"], workspace, task_dir, timeout_s=120)


def assert_one_fail_line(done: CheckResult) -> None:
    """A failed check says why in one ``FAIL:`` line, and nothing on stderr (no traceback)."""
    assert done.exit_code == 1 and not done.timed_out, done.output
    assert done.output.startswith("FAIL: ") and "\n" not in done.output, done.output


def fresh_copy(task: Path, where: Path) -> Path:
    """The task's starting files in a new folder, as a run of the harness gets them."""
    workspace = where / "ws"
    workspace.mkdir()
    materialize(load_task(task).files, workspace)
    return workspace


def test_the_suite_has_at_least_22_tasks_numbered_in_order() -> None:
    assert len(TASKS) >= 22
    numbers = [task.name.split("-", 1)[0] for task in TASKS]
    assert numbers == [f"{n:02d}" for n in range(1, len(TASKS) + 1)]
    assert all(task.name.count("-") >= 1 and task.name == task.name.lower() for task in TASKS)


def test_every_task_measures_something_else() -> None:
    measures = [settings(task)["measures"].strip() for task in TASKS]
    assert len(set(measures)) == len(measures)


def test_the_readme_has_one_row_per_task() -> None:
    readme = (SUITE / "README.md").read_text(encoding="utf-8")
    rows = [line for line in readme.splitlines() if line.startswith("| `")]
    assert [row.split("`")[1] for row in rows] == [task.name for task in TASKS]


@pytest.mark.parametrize("task", TASKS, ids=[task.name for task in TASKS])
def test_task_files_are_well_formed(task: Path) -> None:
    data = settings(task)
    assert REQUIRED <= set(data) <= set(FIELDS), sorted(data)
    for key, value in data.items():
        assert isinstance(value, FIELDS[key]) and not isinstance(value, bool), key
        if isinstance(value, list):
            assert value and all(isinstance(item, str) and item for item in value), key
    assert data["check"] == CHECK
    assert data["prompt"].strip() and data["measures"].strip()
    assert "\n" not in data["measures"]
    assert 1 <= data.get("max_turns", 8) <= 200
    assert set(data.get("extensions", [])) <= {"nb"}
    if "policy" in data:
        Policy(data["policy"])  # the rules parse
    assert sorted(p.name for p in task.iterdir()) == sorted(
        ["task.toml", "check.py", "reference.json", "files"]
    )
    files = [p for p in (task / "files").rglob("*") if p.is_file()]
    assert files, "the starting workspace is empty"
    for path in files:
        assert path.stat().st_size < MAX_FILE_BYTES, path
        assert "__pycache__" not in path.parts, path
        if path.suffix == ".ipynb":
            notebook = nbformat.read(path, as_version=nbformat.NO_CONVERT)
            nbformat.validate(notebook)
            assert (notebook.nbformat, notebook.nbformat_minor) == (4, 5), path
            assert all(cell.get("id") for cell in notebook.cells), path
            assert data.get("extensions") == ["nb"], "a notebook task enables the nb actions"


@pytest.mark.parametrize("task", TASKS, ids=[task.name for task in TASKS])
def test_reference_replies_are_command_turns_then_prose(task: Path) -> None:
    replies = reference(task)
    assert isinstance(replies, list) and len(replies) >= 2
    assert all(isinstance(reply, str) and reply.strip() for reply in replies)
    assert len(replies) <= settings(task).get("max_turns", 8)
    *turns, last = replies
    assert all("OPERATOR_CMD" in reply and reply.isascii() for reply in turns)
    assert "OPERATOR_CMD" not in last
    assert classify(last, None).kind == "done", last


@pytest.mark.parametrize("task", TASKS, ids=[task.name for task in TASKS])
def test_check_fails_on_the_starting_files(task: Path, tmp_path: Path) -> None:
    workspace = fresh_copy(task, tmp_path)
    done = run_check(task, workspace)
    assert not done.passed, done.output
    assert_one_fail_line(done)


@pytest.mark.parametrize("task", TASKS, ids=[task.name for task in TASKS])
def test_reference_solution_passes_the_check(task: Path, tmp_path: Path) -> None:
    data = settings(task)
    workspace = fresh_copy(task, tmp_path)
    # The task's own rules when it has some (they end in "auto all"), else "auto all".
    policy = Policy(data.get("policy", ["auto all"]))
    extensions = tuple(data.get("extensions", ()))
    replies = reference(task)
    with Operator(workspace, policy=policy, extensions=extensions,
                  journal_dir=tmp_path / "journal") as op:  # fmt: skip
        for reply in replies[:-1]:
            run = op.run(reply)
            run.approve_all()
            assert run.items and not run.pending, run.results_text
            assert all(item.ok for item in run.items if item.result is not None), run.results_text
            assert all(item.result is not None for item in run.items), run.results_text
    done = run_check(task, workspace)
    assert done.passed, done.output
    assert done.output.startswith("OK: ") and "\n" not in done.output, done.output


def test_the_rules_task_refuses_a_change_to_the_vendored_package(tmp_path: Path) -> None:
    task = SUITE / "23-rules-vendor"
    workspace = fresh_copy(task, tmp_path)
    block = "\n".join(["OPERATOR_CMD", "version: 1", "id: w1", "action: fs.write",
                       "path: vendor/money.py", "content: x = 1", "END_OPERATOR_CMD"])  # fmt: skip
    with Operator(workspace, policy=Policy(settings(task)["policy"]),
                  journal_dir=tmp_path / "journal") as op:  # fmt: skip
        run = op.run(block)
    (item,) = run.items
    assert item.result is not None and not item.ok
    assert "ERR_POLICY_DENIED" in run.results_text
    assert not run_check(task, workspace).passed  # the bytes are as they were
