"""``OperatorExtension.shell_rules``: the server's rules for shell commands."""

from __future__ import annotations

import json
from typing import Any

import pytest
from server_helpers import Api

from jupyter_operator.dialects.json_ops import parse_events


@pytest.fixture
def operator_config() -> dict[str, Any]:
    return {"shell_rules": "allow=echo deny=*sudo* unlisted=deny"}


async def test_configured_shell_rules(api: Api) -> None:
    text = json.dumps([{"type": "shell", "command": "echo hi"}, {"type": "shell", "command": "ls"}])
    status, body = await api("scan", body={"text": text})
    assert status == 200 and body["done"] is True
    ran, denied = parse_events(body["results_text"])
    assert ran["stdout"] == "hi\n"
    assert denied == {
        "type": "policyDenied",
        "operationType": "shell",
        "reason": "Command not in allowed list",
        "suggestion": "Allowed commands: echo",
    }


@pytest.mark.parametrize(
    "operator_config",
    [{"shell_rules": "allow=echo", "policy_rules": ["deny writes src/**"]}],
)
async def test_an_allowed_command_asks_while_a_rule_denies_files(api: Api) -> None:
    """A command is bound by no file rule: the allow list runs nothing unasked under a deny."""
    text = json.dumps([{"type": "shell", "command": "echo hi"}])
    status, body = await api("scan", body={"text": text})
    assert status == 200 and body["done"] is False
    (item,) = body["items"]
    assert (item["status"], item["decided_by"]) == ("pending", None)
    assert item["rule"] == ("shell allow: echo, but rule 1: deny writes src/** binds files, "
                            "not code that runs")  # fmt: skip
