"""The magics with JSON operations: detection, --dialect, the shell rules, history."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from support.widget_front import Front

import jupyter_operator
from jupyter_operator.dialects.json_ops import parse_events
from jupyter_operator.kernel.magics import last_view

CREATE = json.dumps({"type": "createFile", "path": "made.txt", "content": "made\n"})


def run_cell(ip: Any, line: str, cell: str) -> Any:
    ip.run_cell_magic("operator", line, cell)
    return jupyter_operator.last_run()


def test_json_is_detected_and_shown_with_json_cards(ip: Any, workspace: Path) -> None:
    run = run_cell(ip, f"--root {workspace}", "```json\n" + CREATE + "\n```")
    assert run.dialect == "json"
    waiting = [i.id for i in run.pending]
    assert waiting == ["createFile-1"], "a JSON file change did not wait for approval on its card"
    view = last_view()
    assert view.run["dialect"] == "json" and view.run["title"] == "Operator (JSON operations)"
    run.approve("createFile-1")
    assert (workspace / "made.txt").read_text() == "made\n"
    assert view.run["done"] and "Response events" in view.run["results_title"]
    assert parse_events(view.run["results_text"])[-1]["bytesWritten"] == 5


def test_dialect_option_forces_a_parser(ip: Any, workspace: Path) -> None:
    run = run_cell(ip, f"--root {workspace} --dialect operator", CREATE)
    assert not hasattr(run, "events") and run.items == []
    run = run_cell(ip, f"--root {workspace} --dialect=json", "nothing here")
    assert run.events[0]["code"] == "ERR_INVALID_JSON"
    with pytest.raises(UsageError, match="unknown dialect"):
        ip.run_cell_magic("operator", f"--root {workspace} --dialect yaml", CREATE)
    with pytest.raises(UsageError, match="--dialect needs a name"):
        ip.run_cell_magic("operator", "--dialect", CREATE)


def test_dry_run_writes_nothing_and_runs_no_command(ip: Any, workspace: Path) -> None:
    ip.run_line_magic("operator", "shell allow=touch")
    text = json.dumps([json.loads(CREATE), {"type": "shell", "command": "touch ran"}])
    run = run_cell(ip, f"--root {workspace} --dry-run", text)
    assert run.done and [i.status for i in run.items] == ["rejected", "rejected"]
    assert list(workspace.iterdir()) == []
    ip.run_line_magic("operator", "shell allow=none")


def test_shell_card_and_rules(ip: Any, workspace: Path, capsys: Any) -> None:
    ip.run_line_magic("operator", f"root {workspace}")
    ip.run_line_magic("operator", "shell allow=echo deny=*sudo*")
    assert "allow=echo deny='*sudo*'" in capsys.readouterr().out
    text = json.dumps(
        [
            {"type": "shell", "command": "echo auto"},
            {"type": "shell", "command": "printf '<b>x</b>'", "env": {"MODE": "<i>"}},
        ]
    )
    run = run_cell(ip, "", text)
    assert run.events[0]["stdout"] == "auto\n"
    front = Front(last_view())
    shell = front.card("shell-2")["shell"]  # the command as the card shows it (as text)
    assert shell["command"] == "printf '<b>x</b>'" and shell["env"] == {"MODE": "<i>"}
    assert shell["status"] == "waiting" and front.card("shell-2")["status"] == "pending"
    assert front.decide("shell-2") == {"kind": "reply", "request": 1}
    shell = front.card("shell-2")["shell"]
    assert shell["status"] == "finished" and shell["stdout"] == "<b>x</b>"
    ip.run_line_magic("operator", "history")
    out = capsys.readouterr().out
    assert "Shell commands (not undoable)" in out and "echo auto" in out
    with pytest.raises(UsageError, match="unknown shell policy key"):
        ip.run_line_magic("operator", "shell colour=red")
    ip.run_line_magic("operator", "shell allow=none deny=none")
