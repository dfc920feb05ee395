"""The JSON cards without a browser: the shell card's text, the not-sandboxed warning,
output streaming in while the command runs."""

from __future__ import annotations

import json
from pathlib import Path

from jupyter_operator.engine import Operator, ShellPolicy, run_json
from jupyter_operator.widgets.json_cards import JsonRunView, ShellCard, shell_html


def operator(tmp_path: Path, **policy: object) -> Operator:
    root = tmp_path / "ws"
    root.mkdir(exist_ok=True)
    op = Operator(root, journal_dir=tmp_path / "journal")
    op.shell_policy = ShellPolicy(**policy)  # type: ignore[arg-type]
    return op


def test_not_sandboxed_is_said_on_the_card(tmp_path: Path) -> None:
    run = run_json(
        operator(tmp_path, sandbox=False), json.dumps({"type": "shell", "command": "echo hi"})
    )
    html = shell_html(run.items[0])
    assert "Not sandboxed" in html and "Undo covers file operations only" in html
    run.approve("shell-1")
    assert run.items[0].shell.sandboxed is False and run.events[-1]["stdout"] == "hi\n"


def test_output_streams_into_the_card(tmp_path: Path) -> None:
    command = "echo $((6 * 7)); sleep 0.6; echo $((7 * 9))"
    run = run_json(operator(tmp_path), json.dumps({"type": "shell", "command": command}))
    view = JsonRunView(run)
    card = view.card_for("shell-1")
    assert isinstance(card, ShellCard) and card.approve_button is not None
    seen: list[str] = []
    run.subscribe(lambda item: seen.append(card.header.value))
    card.approve_button.click()
    running = [html for html in seen if "Running..." in html]
    assert any("42" in html and "63" not in html for html in running)  # before the end
    assert "63" in card.header.value and "Exit code 0" in card.header.value
    assert view.results is not None and '"stdout": "42\\n63\\n"' in view.results.value
