"""Every example of the JSON-operations seed, run through the engine, with its exact event.

Durations vary, so ``durationMs`` is checked for type and then set aside; every other key and
value is compared exactly, key order included.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyter_operator.dialects.json_ops import parse_events
from jupyter_operator.engine import Operator, ShellPolicy, run_json


def events_of(op: Operator, ops: object) -> list[dict]:
    run = run_json(op, json.dumps(ops))
    assert parse_events(run.results_text) == run.events
    return run.events


def without_duration(event: dict) -> dict:
    assert isinstance(event.pop("durationMs"), int)
    return event


def test_create_file(trusting: Operator, root: Path) -> None:
    ops = {
        "type": "createFile",
        "path": "src/utils.ts",
        "content": "export const helper = () => {};",
        "overwrite": False,
        "encoding": "utf-8",
    }
    assert events_of(trusting, ops) == [
        {"type": "createFile", "path": "src/utils.ts", "success": True, "bytesWritten": 31}
    ]
    assert (root / "src/utils.ts").read_text() == "export const helper = () => {};"


def test_read_file(operator: Operator, root: Path) -> None:
    (root / "config.json").write_text('{"key": "value"}')
    ops = {"type": "readFile", "path": "config.json", "encoding": "utf-8"}
    assert events_of(operator, ops) == [
        {
            "type": "readFile",
            "path": "config.json",
            "success": True,
            "content": '{"key": "value"}',
            "size": 16,
            "encoding": "utf-8",
        }
    ]


def test_edit_file(trusting: Operator, root: Path) -> None:
    (root / "src").mkdir()
    (root / "src/app.ts").write_text("const x = 1;\nconsole.log(x)\n")
    ops = {
        "type": "editFile",
        "path": "src/app.ts",
        "edits": [
            {"oldContent": "const x = 1;", "newContent": "const x = 42;"},
            {"oldContent": "console.log(x)", "newContent": 'console.log("Value:", x)'},
        ],
    }
    assert events_of(trusting, ops) == [
        {"type": "editFile", "path": "src/app.ts", "success": True, "editsApplied": 2}
    ]
    assert (root / "src/app.ts").read_text() == 'const x = 42;\nconsole.log("Value:", x)\n'


def test_delete_file(trusting: Operator, root: Path) -> None:
    (root / "temp").mkdir()
    (root / "temp/cache.json").write_text("{}")
    assert events_of(trusting, {"type": "deleteFile", "path": "temp/cache.json"}) == [
        {"type": "deleteFile", "path": "temp/cache.json", "success": True}
    ]
    assert not (root / "temp/cache.json").exists()


def test_shell(operator: Operator, root: Path) -> None:
    (root / "src").mkdir()
    command = (
        'test "$DEBUG" = true && test "$(basename "$PWD")" = src && echo \'All tests passed!\''
    )
    ops = {
        "type": "shell",
        "command": command,
        "cwd": "src",
        "timeout": 30000,
        "env": {"DEBUG": "true"},
    }
    run = run_json(operator, json.dumps(ops))
    run.approve("shell-1")
    assert without_duration(run.events[-1]) == {
        "type": "shell",
        "command": command,
        "success": True,
        "exitCode": 0,
        "stdout": "All tests passed!\n",
        "stderr": "",
    }


def test_timeout(operator: Operator) -> None:
    run = run_json(operator, json.dumps({"type": "shell", "command": "sleep 1000", "timeout": 300}))
    run.approve("shell-1")
    event = run.events[-1]
    assert event["durationMs"] >= 300
    assert without_duration(event) == {
        "type": "shell",
        "command": "sleep 1000",
        "success": False,
        "timedOut": True,
        "exitCode": 124,
    }


def test_approval_required(operator: Operator, root: Path) -> None:
    (root / "data").mkdir()
    (root / "data/x.txt").write_text("x")
    events = events_of(operator, {"type": "shell", "command": "rm -rf data/"})
    assert events == [
        {
            "type": "approvalRequired",
            "operationId": "shell-1",
            "operationType": "shell",
            "reason": "Destructive command requires approval",
            "details": {"command": "rm -rf data/", "policy": "shell.approvalRequired"},
        }
    ]
    assert (root / "data/x.txt").exists()  # nothing ran before the decision


def test_policy_denied(operator: Operator) -> None:
    operator.shell_policy = ShellPolicy(allow=("bun", "node", "npm", "npx"), unlisted="deny")
    assert events_of(operator, {"type": "shell", "command": "python3 evil.py"}) == [
        {
            "type": "policyDenied",
            "operationType": "shell",
            "reason": "Command not in allowed list",
            "suggestion": "Allowed commands: bun, node, npm, npx",
        }
    ]


@pytest.mark.parametrize("path", ["file.ts", "src/utils/helper.ts", "data/2024/report.json"])
def test_valid_paths(trusting: Operator, root: Path, path: str) -> None:
    [event] = events_of(trusting, {"type": "createFile", "path": path, "content": "x"})
    assert event == {"type": "createFile", "path": path, "success": True, "bytesWritten": 1}
    assert (root / path).read_text() == "x"


@pytest.mark.parametrize("path", ["/etc/passwd", "../outside.txt", "file\0.txt"])
def test_invalid_paths(trusting: Operator, root: Path, path: str) -> None:
    [event] = events_of(trusting, {"type": "createFile", "path": path, "content": "x"})
    assert event["success"] is False and event["code"] == "ERR_PATH_ESCAPE"
    assert event["type"] == "createFile" and event["error"]
    assert list(root.parent.rglob("*.txt")) == [] and not (root.parent / "outside.txt").exists()


def test_batching_pauses_and_continues(operator: Operator, root: Path) -> None:
    code = "export const x = 1;\n"
    run = run_json(
        operator,
        json.dumps(
            {
                "operations": [
                    {"type": "message", "content": "Step 1: Creating file"},
                    {"type": "createFile", "path": "app.ts", "content": code},
                    {"type": "message", "content": "Step 2: Running tests"},
                    {"type": "shell", "command": "test -f app.ts && echo ok"},
                    {"type": "message", "content": "Done!"},
                ]
            }
        ),
    )
    assert [e["type"] for e in run.events] == ["message", "approvalRequired"]
    assert [i.status for i in run.items] == ["done", "pending", "waiting", "waiting", "waiting"]
    assert not (root / "app.ts").exists()
    run.approve("createFile-1")
    assert [e["type"] for e in run.events] == [
        "message",
        "approvalRequired",
        "createFile",
        "message",
        "approvalRequired",
    ]
    run.approve("shell-1")
    assert [e["type"] for e in run.events][-2:] == ["shell", "message"]
    assert run.events[-2]["stdout"] == "ok\n" and run.events[-1] == {
        "type": "message",
        "content": "Done!",
    }
    assert run.done


def test_error_handling_loop(operator: Operator) -> None:
    # The seed's loop: every event with success false has an error to print.
    run = run_json(
        operator,
        json.dumps(
            [
                {"type": "readFile", "path": "missing.txt"},
                {"type": "nope"},
                {"type": "readFile"},
            ]
        ),
    )
    failed = [e for e in run.events if "success" in e and not e["success"]]
    assert len(failed) == 3
    assert all(isinstance(e["error"], str) and e["error"] for e in failed)
    assert [e["code"] for e in failed] == [
        "ERR_NOT_FOUND",
        "ERR_UNKNOWN_OPERATION",
        "ERR_INVALID_OPERATION",
    ]
