"""JSON-operation batches in the engine: order, pauses, decisions, all-or-nothing edits, policy,
undo, and bad input that leaves the disk untouched."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from jupyter_operator.engine import JsonRun, Operator, Policy, plan, run_json, shell_history


def tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def ops(*items: dict) -> str:
    return json.dumps({"operations": list(items)})


@pytest.fixture
def operator(make_operator: Callable[..., Operator]) -> Operator:
    return make_operator()


def test_plan_detects_the_dialect(operator: Operator) -> None:
    assert isinstance(plan(operator, ops({"type": "message", "content": "x"})), JsonRun)
    assert not isinstance(plan(operator, "no blocks here"), JsonRun)
    assert isinstance(plan(operator, "```json\n[]\n```", "json"), JsonRun)
    with pytest.raises(ValueError, match="unknown dialect"):
        plan(operator, "x", "yaml")


def test_only_one_pending_and_the_rest_wait(operator: Operator, root: Path) -> None:
    run = run_json(
        operator,
        ops(
            {"type": "createFile", "path": "a.txt", "content": "a"},
            {"type": "createFile", "path": "b.txt", "content": "b"},
            {"type": "readFile", "path": "a.txt"},
        ),
    )
    assert [i.id for i in run.pending] == ["createFile-1"]
    assert run.items[1].status == "waiting" and run.items[1].builds_on == "createFile-1"
    assert not run.done and tree(root) == {}
    with pytest.raises(ValueError):
        run.approve("createFile-2")  # not reached yet
    run.approve("createFile-1")
    assert [i.id for i in run.pending] == ["createFile-2"]
    run.reject("createFile-2", "not b")
    assert run.done and tree(root) == {"a.txt": b"a"}
    rejected = run.events[-2]
    assert rejected["success"] is False and rejected["code"] == "ERR_REJECTED"
    assert "not b" in rejected["error"]
    assert run.events[-1]["content"] == "a"  # the read saw the approved file
    with pytest.raises(KeyError):
        run.approve("nope")


def test_the_preview_is_what_gets_written(operator: Operator, root: Path) -> None:
    (root / "f.txt").write_text("one\n")
    run = run_json(
        operator,
        ops(
            {
                "type": "editFile",
                "path": "f.txt",
                "edits": [{"oldContent": "one", "newContent": "two"}],
            }
        ),
    )
    waiting = [i.id for i in run.pending]
    assert waiting == ["editFile-1"], "a JSON edit did not wait for the person's approval"
    item = run.pending[0]
    assert "-one" in item.diff and "+two" in item.diff and item.change == "modify"
    (root / "f.txt").write_text("changed meanwhile\n")
    run.approve(item.id)
    assert item.status == "stale" and run.events[-1]["code"] == "ERR_STALE_PREVIEW"
    assert (root / "f.txt").read_text() == "changed meanwhile\n"


@pytest.mark.parametrize(
    ("edits", "code"),
    [
        (
            [{"oldContent": "alpha", "newContent": "A"}, {"oldContent": "zeta", "newContent": "Z"}],
            "ERR_EDIT_NOT_FOUND",
        ),
        (
            [{"oldContent": "alpha", "newContent": "A"}, {"oldContent": "beta", "newContent": "B"}],
            "ERR_EDIT_NOT_UNIQUE",
        ),
        (
            [
                {"oldContent": "alpha", "newContent": "gamma"},
                {"oldContent": "gamma", "newContent": "x"},
            ],
            "ERR_EDIT_NOT_UNIQUE",
        ),
    ],
)
def test_edit_file_is_all_or_nothing(
    make_operator: Callable[..., Operator], root: Path, edits: list, code: str
) -> None:
    (root / "f.txt").write_text("alpha\nbeta\nbeta\ngamma\n")
    run = run_json(
        make_operator(policy=Policy(auto=frozenset({"all"}))),
        ops({"type": "editFile", "path": "f.txt", "edits": edits}),
    )
    assert run.events[0]["code"] == code and "No edit was applied" in run.events[0]["error"]
    assert (root / "f.txt").read_text() == "alpha\nbeta\nbeta\ngamma\n"


def test_create_file_does_not_overwrite_unless_asked(operator: Operator, root: Path) -> None:
    (root / "a.txt").write_text("old")
    run = run_json(operator, ops({"type": "createFile", "path": "a.txt", "content": "new"}))
    assert run.events[0]["code"] == "ERR_FILE_EXISTS" and run.done
    run = run_json(
        operator, ops({"type": "createFile", "path": "a.txt", "content": "new", "overwrite": True})
    )
    run.approve_all()
    assert (root / "a.txt").read_text() == "new"


def test_policy_denies_file_operations(make_operator: Callable[..., Operator], root: Path) -> None:
    (root / "a.txt").write_text("x")
    op = make_operator(policy=Policy(deny=frozenset({"deletes"})))
    run = run_json(op, ops({"type": "deleteFile", "path": "a.txt"}))
    event = run.events[0]
    assert event["type"] == "policyDenied" and event["operationType"] == "deleteFile"
    assert "deleteFile" not in event["suggestion"] and "createFile" in event["suggestion"]
    assert run.items[0].status == "denied" and (root / "a.txt").exists()


def test_undo_and_history_cover_json_file_changes(operator: Operator, root: Path) -> None:
    run = run_json(
        operator,
        ops(
            {"type": "createFile", "path": "n.txt", "content": "n"},
            {"type": "shell", "command": "true"},
        ),
    )
    run.approve_all()
    [entry] = operator.history()
    assert (entry.action, entry.path, entry.command_id) == ("fs.write", "n.txt", "createFile-1")
    [record] = shell_history(operator)
    assert (record.command, record.exit_code, record.decided_by) == ("true", 0, "person")
    operator.undo()
    assert not (root / "n.txt").exists()


def test_binary_create_and_base64_read(make_operator: Callable[..., Operator], root: Path) -> None:
    op = make_operator(policy=Policy(auto=frozenset({"all"})))
    run = run_json(
        op,
        ops(
            {"type": "createFile", "path": "b.bin", "content": "/wAB", "encoding": "base64"},
            {"type": "readFile", "path": "b.bin"},
            {"type": "readFile", "path": "b.bin", "encoding": "base64"},
        ),
    )
    assert (root / "b.bin").read_bytes() == b"\xff\x00\x01"
    assert run.events[1]["code"] == "ERR_NOT_UTF8"
    assert run.events[2]["content"] == "/wAB" and run.events[2]["size"] == 3


@pytest.mark.parametrize(
    "text",
    [
        "{not json",
        json.dumps(
            [{"type": "createFile", "path": f"f{i}.txt", "content": "x"} for i in range(10_000)]
        ),
        json.dumps({"type": "createFile", "path": "big.txt", "content": "x" * 50_000_000}),
        json.dumps({"type": "createFile", "path": ["a"], "content": 5}),
    ],
    ids=["malformed", "10000-operations", "50MB-content", "wrong-types"],
)
def test_bad_input_is_an_error_event_and_nothing_is_written(
    make_operator: Callable[..., Operator], root: Path, text: str
) -> None:
    run = run_json(make_operator(policy=Policy(auto=frozenset({"all"}))), text)
    assert run.done and len(run.events) == 1
    assert run.events[0]["success"] is False and run.events[0]["code"].startswith("ERR_")
    assert tree(root) == {}


def test_subscribers_see_every_change(operator: Operator) -> None:
    run = run_json(
        operator,
        ops(
            {"type": "createFile", "path": "a", "content": "a"}, {"type": "message", "content": "m"}
        ),
    )
    seen: list[str] = []
    run.subscribe(lambda item: seen.append(f"{item.id}:{item.status}"))
    run.approve("createFile-1")
    assert seen == ["createFile-1:applied", "message-1:done"]


def test_to_dict_carries_the_event_and_the_command(operator: Operator) -> None:
    run = run_json(operator, ops({"type": "shell", "command": "echo hi", "env": {"X": "1"}}))
    data = run.items[0].to_dict()
    assert data["dialect"] == "json" and data["status"] == "pending"
    assert data["shell"]["command"] == "echo hi" and data["shell"]["env"] == {"X": "1"}
    assert data["shell"]["cwd"] == "."
    run.approve("shell-1")
    data = run.items[0].to_dict()
    assert data["event"]["stdout"] == "hi\n" and data["shell"]["exit_code"] == 0
    json.dumps(data)


def test_decisions_follow_the_engine_interface(operator: Operator) -> None:
    from jupyter_operator.engine import DecideFirst, Decision, UnknownItem

    run = run_json(
        operator,
        ops(
            {"type": "createFile", "path": "a", "content": "a"},
            {"type": "createFile", "path": "b", "content": "b"},
        ),
    )
    with pytest.raises(DecideFirst) as waiting:
        run.approve("createFile-2")
    assert waiting.value.base == "createFile-1"
    first = run.approve("createFile-1")
    assert isinstance(first, Decision) and first.outcome == "applied"
    assert first.item.decided_by == "person"
    assert run.approve("createFile-1").outcome == "already_decided"
    assert run.reject("createFile-2", "no").outcome == "rejected"
    with pytest.raises(UnknownItem):
        run.reject("nope")


def test_the_reads_of_a_reply_share_one_output_budget(operator: Operator, root: Path) -> None:
    """200 readFile of one 1 MiB file: before, 629 MB came back; now the reply's 8 MiB budget
    stops them, before the file is read, as it does for the Operator dialect."""
    import tracemalloc

    from jupyter_operator.engine.reads import REPLY_OUTPUT_BUDGET

    (root / "big.txt").write_bytes(b"x" * (1024 * 1024 - 1) + b"\n")
    tracemalloc.start()
    run = run_json(operator, json.dumps([{"type": "readFile", "path": "big.txt"}] * 200))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    read = [e for e in run.events if e.get("success")]
    refused = [e for e in run.events if e.get("code") == "ERR_OUTPUT_BUDGET"]
    assert len(read) == REPLY_OUTPUT_BUDGET // (1024 * 1024) and len(refused) == 200 - len(read)
    assert len(run.results_text) < REPLY_OUTPUT_BUDGET + 200 * 400
    assert peak < 40 * 1024 * 1024  # before: every read's text was held at once


def test_repeated_ids_get_ids_no_other_operation_has(operator: Operator) -> None:
    run = run_json(operator, json.dumps([
        {"id": "x", "type": "message", "content": "a"},
        {"id": "x-3", "type": "message", "content": "b"},
        {"id": "x", "type": "message", "content": "c"},
        {"id": "x-3", "type": "message", "content": "d"},
    ]))  # fmt: skip
    ids = [item.id for item in run.items]
    assert len(set(ids)) == 4 and ids[:2] == ["x", "x-3"]


def test_a_shell_operation_without_the_sandbox_is_refused(
    operator: Operator, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside bubblewrap an approved command could read the host's environment (the API key)
    through /proc/$PPID/environ: it is refused, as bash lines are, unless the person turned
    the sandbox off; then its result says it ran unsandboxed."""
    from jupyter_operator.engine import ShellPolicy
    from jupyter_operator.shell import sandbox

    monkeypatch.setattr(sandbox, "bwrap", lambda: None)
    run = run_json(operator, ops({"type": "shell", "command": "cat /proc/$PPID/environ"}))
    [event] = run.events
    assert event["code"] == "ERR_SANDBOX_UNAVAILABLE" and event["success"] is False
    assert run.items[0].status == "failed"
    operator.shell_policy = ShellPolicy.parse("sandbox=off")
    run = run_json(operator, ops({"type": "shell", "command": "echo ran"}))
    run.approve(run.items[0].id)
    assert run.events[-1]["sandboxed"] is False and run.events[-1]["stdout"] == "ran\n"
