"""The JupyterLab panel with JSON operations: a batch that pauses at each approval, a shell card
with the exact command and its output, the response events to copy back."""

from __future__ import annotations

import json

import pytest
from browserkit import LabServer, screenshot
from test_lab_panel import card, open_lab, results_text, run_reply, wait_status

pytestmark = pytest.mark.timeout(240)


def test_json_batch_with_a_shell_command(lab_server: LabServer, page) -> None:
    root = lab_server.root
    reply = (
        "Adding a test and running it:\n```json\n"
        + json.dumps(
            {
                "operations": [
                    {
                        "type": "createFile",
                        "path": "test_ok.py",
                        "content": "print('<b>ran</b>')\n",
                    },
                    {
                        "type": "shell",
                        "command": "python3 test_ok.py",
                        "env": {"MODE": "<i>ci</i>"},
                    },
                ]
            },
            indent=2,
        )
        + "\n```\n"
    )
    open_lab(page, lab_server)
    run_reply(page, reply)
    wait_status(page, "createFile-1", "pending")
    wait_status(page, "shell-1", "waiting")
    assert not (root / "test_ok.py").exists()
    card(page, "createFile-1").locator(".jp-Operator-approve").click()
    wait_status(page, "createFile-1", "applied")
    wait_status(page, "shell-1", "pending")
    shell = card(page, "shell-1")
    assert shell.locator(".jp-Operator-shell-command").text_content() == "python3 test_ok.py"
    assert "MODE=<i>ci</i>" in shell.locator(".jp-Operator-shell").text_content()
    assert shell.locator(".jp-Operator-shell i").count() == 0  # markup stays text
    screenshot(page, "lab-json-shell-pending")
    shell.locator(".jp-Operator-approve").click()
    wait_status(page, "shell-1", "done")
    output = shell.locator(".jp-Operator-details-text").first.text_content()
    assert output == "<b>ran</b>\n"
    assert "Exit code 0" in shell.text_content()
    screenshot(page, "lab-json-shell-done")
    events = json.loads(results_text(page))
    assert [e["type"] for e in events] == [
        "approvalRequired",
        "createFile",
        "approvalRequired",
        "shell",
    ]
    assert events[-1]["stdout"] == "<b>ran</b>\n"
    assert not page.console_errors
