"""Every dialect in the experiments harness: a task's ``dialect`` (or ``eval --dialect``) is how
its model asks for work, the built-in suite's reference solutions pass when written in each
dialect, and the results rows and transcripts say which dialect a run used."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
from support.fake_openai import FakeOpenAI

from jupyter_operator.agent import Agent, ReplayModel
from jupyter_operator.cli import main
from jupyter_operator.engine import Operator, Policy, plan
from jupyter_operator.experiments import checks, load_task
from jupyter_operator.experiments.tasks import BUILTIN, TaskError, materialize

TASKS = sorted(p for p in BUILTIN.iterdir() if (p / "task.toml").is_file())


def end_state(task: Path, where: Path) -> tuple[dict[str, bytes], set[str]]:
    """What the task's reference solution (OPERATOR_CMD blocks) leaves: every file it wrote,
    with its bytes, and every file it deleted."""
    loaded = load_task(task)
    materialize(loaded.files, where)
    with Operator(where, policy=Policy(list(loaded.policy)), extensions=loaded.extensions) as op:
        for reply in loaded.reference or []:
            run = plan(op, reply, "operator")
            run.approve_all()
    after = {str(p.relative_to(where)): p.read_bytes() for p in where.rglob("*") if p.is_file()}
    written = {path: data for path, data in after.items() if loaded.files.get(path) != data}
    deleted = set(loaded.files) - set(after)
    # A folder the solution removed: marked with a trailing "/" (no dialect but OPERATOR_CMD
    # blocks deletes a folder).
    folders = {str(Path(path).parent) for path in deleted} - {"."}
    return written, deleted | {f"{folder}/" for folder in folders if not (where / folder).exists()}


def as_json(written: dict[str, bytes], deleted: set[str]) -> str | None:
    """JSON operations writing and deleting each file (None: a folder has no deletion)."""
    if any(path.endswith("/") for path in deleted):
        return None
    ops = [{"type": "createFile", "path": path, "content": data.decode("utf-8"),
            "overwrite": True} for path, data in sorted(written.items())]  # fmt: skip
    ops += [{"type": "deleteFile", "path": path} for path in sorted(deleted)]
    return json.dumps(ops)


def as_commands(written: dict[str, bytes], deleted: set[str]) -> str | None:
    """A string-command script writing each file (None: a deletion has no command)."""
    if deleted:
        return None
    lines = []
    for path, data in sorted(written.items()):
        text = data.decode("utf-8")
        mark = "END_OF_FILE"
        assert mark not in text and text.endswith("\n")
        lines += [f"/write {path} <<{mark}", *text[:-1].split("\n"), mark]
    return "\n".join(lines)


def check(task: Path, workspace: Path, where: Path) -> checks.CheckResult:
    task_dir = where / "task"
    task_dir.mkdir()
    materialize(load_task(task).support, task_dir)
    return checks.run_check(load_task(task).check, workspace, task_dir, timeout_s=120)


@pytest.mark.parametrize("dialect", ["json", "commands"])
@pytest.mark.parametrize("task", TASKS, ids=[task.name for task in TASKS])
def test_reference_solutions_pass_in_every_dialect(task: Path, dialect: str,
                                                   tmp_path: Path) -> None:  # fmt: skip
    written, deleted = end_state(task, tmp_path / "reference")
    reply = as_json(written, deleted) if dialect == "json" else as_commands(written, deleted)
    if reply is None:
        pytest.skip(f"the {dialect} dialect cannot delete what this solution deletes (string "
                    "commands no file, JSON operations no folder)")
    loaded = load_task(task)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    materialize(loaded.files, workspace)
    agent = Agent(ReplayModel([reply, "Done."]), root=workspace,
                  policy=Policy(list(loaded.policy)), dialect=dialect,
                  decide=lambda run: run.approve_all(), transcripts=tmp_path / "runs",
                  extensions=loaded.extensions)  # fmt: skip
    result = asyncio.run(agent.run(loaded.prompt))
    assert result.reason == "done", result.message
    assert agent.transcript[0]["dialect"] == dialect
    done = check(task, workspace, tmp_path)
    assert done.exit_code == 0, done.output


def suite_of(tmp_path: Path, dialects: dict[str, str]) -> Path:
    """Copies of task 01 (one per name), each with its ``dialect`` line (none for "")."""
    suite = tmp_path / "suite"
    for name, dialect in dialects.items():
        shutil.copytree(BUILTIN / "01-new-module", suite / name)
        if dialect:
            toml = suite / name / "task.toml"
            toml.write_text(toml.read_text() + f'dialect = "{dialect}"\n')
    return suite


def reference_in(dialect: str, tmp_path: Path) -> list[str]:
    """Task 01's reference solution written in ``dialect``, then the summary."""
    task = BUILTIN / "01-new-module"
    written, deleted = end_state(task, tmp_path / f"end-{dialect}")
    replies = {"operator": load_task(task).reference[0], "json": as_json(written, deleted),
               "commands": as_commands(written, deleted)}  # fmt: skip
    return [replies["json" if dialect == "auto" else dialect] or "", "Done: created it."]


def eval_rows(tmp_path: Path, suite: Path, replies: list[list[str]], *options: str) -> list[dict]:
    with FakeOpenAI() as fake:
        pytest.MonkeyPatch().setenv("OPENAI_API_KEY", fake.key)
        fake.add("OK")  # the one request that checks the key, the endpoint and the model
        for script in replies:  # one worker, tasks in name order
            fake.add(*script)
        code = main(["eval", str(suite), "--model", "fake-model", "--base-url", fake.url,
                     "--workers", "0", "--out", str(tmp_path / "out"), *options])  # fmt: skip
        # Each run's system prompt once (every request of a run sends it), in run order.
        prompts = list(dict.fromkeys(r["messages"][0]["content"] for r in fake.requests[1:]
                                     if r["messages"][0]["role"] == "system"))  # fmt: skip
    assert code == 0
    rows = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text()
            .splitlines()]  # fmt: skip
    for row in rows:
        row["system_prompt"] = prompts
    return rows


def test_each_task_runs_in_its_own_dialect_through_an_endpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dialects = {"a-operator": "", "b-json": "json", "c-commands": "commands", "d-auto": "auto"}
    suite = suite_of(tmp_path, dialects)
    replies = [reference_in(d or "operator", tmp_path) for d in dialects.values()]
    rows = eval_rows(tmp_path, suite, replies)
    by_task = {row["task"]: row for row in rows}
    assert {t: (r["dialect"], r["passed"]) for t, r in by_task.items()} == {
        "a-operator": ("operator", True), "b-json": ("json", True),
        "c-commands": ("commands", True), "d-auto": ("auto", True),
    }  # fmt: skip
    for name, row in by_task.items():
        transcript = (tmp_path / "out" / row["transcript"]).read_text(encoding="utf-8")
        start = json.loads(transcript.splitlines()[0])
        assert start["type"] == "start" and start["dialect"] == row["dialect"], name
    # Each system prompt describes its own dialect's format.
    prompts = rows[0]["system_prompt"]
    assert "OPERATOR_CMD" in prompts[0] and "JSON OPERATIONS" not in prompts[0]
    assert "JSON OPERATIONS" in prompts[1] and "createFile" in prompts[1]
    assert "STRING COMMANDS" in prompts[2] and "/write path" in prompts[2]
    assert "OPERATOR_CMD" in prompts[3] and "string commands (/open" in prompts[3]


def test_eval_dialect_overrides_the_tasks(tmp_path: Path) -> None:
    suite = suite_of(tmp_path, {"a-operator": "", "b-commands": "commands"})
    json_reply = reference_in("json", tmp_path)
    rows = eval_rows(tmp_path, suite, [json_reply, json_reply], "--dialect", "json")
    assert [(r["task"], r["dialect"], r["passed"]) for r in rows] == [
        ("a-operator", "json", True), ("b-commands", "json", True)]


def test_a_task_names_a_known_dialect(tmp_path: Path) -> None:
    suite = suite_of(tmp_path, {"a": "yaml"})
    with pytest.raises(TaskError, match="field 'dialect': must be one of auto, operator"):
        load_task(suite / "a")
    assert load_task(suite_of(tmp_path / "b", {"b": "json"}) / "b").dialect == "json"
    assert load_task(BUILTIN / "01-new-module").dialect == "operator"
