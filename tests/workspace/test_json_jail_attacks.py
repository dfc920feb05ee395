"""The jail's attack table replayed through JSON paths and the shell's ``cwd``: every escape is an
error event, nothing outside the workspace is read or changed, no host path is shown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyter_operator.engine import Operator, Policy, run_json

from .sandbox import Sandbox
from .test_jail_attacks import LEXICAL, SECRETS


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    return Sandbox(tmp_path)


@pytest.fixture
def operator(sandbox: Sandbox, tmp_path: Path) -> Operator:
    op = Operator(
        sandbox.root, journal_dir=tmp_path / "journal", policy=Policy(auto=frozenset({"all"}))
    )
    yield op
    op.close()


def operations(path: str) -> list[dict]:
    return [
        {"type": "readFile", "path": path},
        {"type": "createFile", "path": path, "content": "pwned", "overwrite": True},
        {"type": "editFile", "path": path, "edits": [{"oldContent": "SECRET", "newContent": "x"}]},
        {"type": "deleteFile", "path": path},
        {"type": "shell", "command": "echo pwned > p.txt; cat secret.txt", "cwd": path},
    ]


def assert_refused(sandbox: Sandbox, operator: Operator, path: str) -> None:
    ws_before = sorted(p.name for p in sandbox.root.rglob("*"))
    run = run_json(operator, json.dumps(operations(path)))
    run.approve_all()  # even an approved command must not get a working folder outside
    assert len(run.events) == 5, run.events
    for event in run.events:
        assert event["success"] is False and event["code"].startswith("ERR_"), event
        text = json.dumps(event)
        assert str(sandbox.root) not in text and str(sandbox.outside) not in text
        assert not any(secret in text for secret in SECRETS)
    sandbox.assert_outside_untouched()
    assert sorted(p.name for p in sandbox.root.rglob("*")) == ws_before


@pytest.mark.parametrize("path", [p for p in LEXICAL if len(p) <= 4096])
def test_lexical_escapes(sandbox: Sandbox, operator: Operator, path: str) -> None:
    assert_refused(sandbox, operator, path)


def test_absolute_path_to_a_real_outside_folder(sandbox: Sandbox, operator: Operator) -> None:
    assert_refused(sandbox, operator, str(sandbox.outside))


def test_symlinked_folder_pointing_outside(sandbox: Sandbox, operator: Operator) -> None:
    (sandbox.root / "dirlink").symlink_to(sandbox.outside, target_is_directory=True)
    assert_refused(sandbox, operator, "dirlink")


def test_symlinked_parent_pointing_outside(sandbox: Sandbox, operator: Operator) -> None:
    (sandbox.root / "dirlink").symlink_to(sandbox.outside, target_is_directory=True)
    assert_refused(sandbox, operator, "dirlink/dir")


def test_protected_folders(sandbox: Sandbox, operator: Operator) -> None:
    (sandbox.root / ".git").mkdir()
    sandbox.rebaseline()
    assert_refused(sandbox, operator, ".git")
    assert list((sandbox.root / ".git").iterdir()) == []


def test_a_file_is_not_a_working_folder(sandbox: Sandbox, operator: Operator) -> None:
    run = run_json(operator, json.dumps({"type": "shell", "command": "pwd", "cwd": "a.txt"}))
    assert run.events[0]["code"] == "ERR_NOT_A_DIRECTORY"


def test_a_good_cwd_runs_there(sandbox: Sandbox, operator: Operator) -> None:
    run = run_json(operator, json.dumps({"type": "shell", "command": "cat b.txt", "cwd": "sub"}))
    run.approve_all()
    assert run.events[-1]["stdout"] == "beta\n"
