"""``jupyter-operator run`` with JSON operations: events on stdout, decisions in order."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from jupyter_operator import cli
from jupyter_operator.dialects.json_ops import parse_events
from jupyter_operator.engine import Operator, run_json

BATCH = json.dumps(
    {
        "operations": [
            {"type": "createFile", "path": "a.txt", "content": "A"},
            {"type": "shell", "command": "cat a.txt", "env": {"MODE": "test"}},
            {"type": "message", "content": "done"},
        ]
    }
)


@pytest.fixture
def reply(tmp_path: Path) -> Path:
    path = tmp_path / "reply.json"
    path.write_text(BATCH)
    return path


def run_cli(root: Path, tmp_path: Path, *args: str, capsys: pytest.CaptureFixture[str]) -> tuple:
    code = cli.main(["run", "--root", str(root), "--journal-dir", str(tmp_path / "j"), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_approve_all_prints_the_events(
    tmp_path: Path, reply: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    code, out, err = run_cli(
        root, tmp_path, "--dialect", "json", "--approve", "all", str(reply), capsys=capsys
    )
    assert code == 0 and err == ""
    events = parse_events(out)
    assert [e["type"] for e in events] == [
        "approvalRequired",
        "createFile",
        "approvalRequired",
        "shell",
        "message",
    ]
    assert events[3]["stdout"] == "A"


def test_approve_none_runs_nothing(
    tmp_path: Path, reply: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    code, out, _ = run_cli(root, tmp_path, "--approve", "none", str(reply), capsys=capsys)
    events = parse_events(out)  # detected as JSON without --dialect
    assert code == 0 and [e.get("code") for e in events if "code" in e] == ["ERR_REJECTED"] * 2
    assert list(root.iterdir()) == []


def test_shell_rules_and_their_mistakes(
    tmp_path: Path, reply: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    text = json.dumps({"type": "shell", "command": "echo hi"})
    (tmp_path / "one.json").write_text(text)
    code, out, _ = run_cli(
        root,
        tmp_path,
        "--approve",
        "none",
        "--shell",
        "allow=echo",
        str(tmp_path / "one.json"),
        capsys=capsys,
    )
    assert parse_events(out)[0]["stdout"] == "hi\n"
    code, _, err = run_cli(root, tmp_path, "--shell", "allow=a;b", str(reply), capsys=capsys)
    assert code == 2 and "--shell" in err


def test_ask_shows_the_exact_command_and_decides_in_order(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    op = Operator(root, journal_dir=tmp_path / "j")
    run = run_json(op, BATCH)
    tty = io.StringIO()
    cli._ask(run, io.StringIO("y\nnot now\n"), tty)
    shown = tty.getvalue()
    assert "createFile a.txt" in shown and "command: cat a.txt" in shown
    assert "cwd: ." in shown and "env: MODE=test" in shown
    assert run.done and run.events[-2]["code"] == "ERR_REJECTED"
    assert "not now" in run.events[-2]["error"] and (root / "a.txt").read_text() == "A"
