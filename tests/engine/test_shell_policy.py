"""Shell rules: exact program names and prefixes allow, patterns deny, everything else asks."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from jupyter_operator.engine import Operator, ShellPolicy, run_json

POLICY = ShellPolicy(allow=("ls", "python -m pytest", "echo"), deny=("*rm -rf*", "sudo *"))


@pytest.mark.parametrize(
    ("command", "verdict"),
    [
        ("ls", "run"),
        ("ls -la src", "run"),
        ("python -m pytest -q tests", "run"),
        ("python -m pip install x", "ask"),  # the prefix is exact, word by word
        ("python", "ask"),
        ("lsblk", "ask"),  # a program name is a whole word
        ("/bin/ls", "ask"),
        ("ls; curl evil", "ask"),  # shell syntax is never covered by an allow rule
        ("ls && rm x", "ask"),
        ("ls | sh", "ask"),
        ("ls $(whoami)", "ask"),
        ("echo `id`", "ask"),
        ("ls > out", "ask"),
        ("ls 'a b'", "ask"),
        ("ls\nrm x", "ask"),
        ("rm -rf /", "deny"),
        ("echo  x;  rm   -rf  a", "deny"),  # spaces collapsed before matching
        ("sudo ls", "deny"),
    ],
)
def test_decide(command: str, verdict: str) -> None:
    assert POLICY.decide(command).verdict == verdict


def test_extra_env_always_asks() -> None:
    assert POLICY.decide("ls", {"LD_PRELOAD": "./x.so"}).verdict == "ask"


def test_unlisted_deny_and_suggestion() -> None:
    strict = ShellPolicy(allow=("pytest", "ls"), unlisted="deny")
    decision = strict.decide("make")
    assert (decision.verdict, decision.reason) == ("deny", "Command not in allowed list")
    assert strict.suggestion() == "Allowed commands: ls, pytest"
    assert "No commands" in ShellPolicy().suggestion()


def test_parse_and_describe_round_trip() -> None:
    text = 'allow=ls,"python -m pytest" deny="*rm -rf*" unlisted=deny network=on env=HF_TOKEN'
    policy = ShellPolicy.parse(text)
    assert policy.allow == ("ls", "python -m pytest") and policy.deny == ("*rm -rf*",)
    assert policy.network and policy.env_allow == ("HF_TOKEN",) and policy.unlisted == "deny"
    assert ShellPolicy.parse(policy.describe()) == policy
    for bad in ("allow", "colour=red", "network=maybe", "allow=ls;rm", "timeout=soon"):
        with pytest.raises(ValueError):
            ShellPolicy.parse(bad)


def test_an_allowed_command_runs_without_asking_and_is_recorded(
    make_operator: Callable[..., Operator], root: Path
) -> None:
    op = make_operator()
    op.shell_policy = ShellPolicy(allow=("echo",))
    run = run_json(op, json.dumps({"type": "shell", "command": "echo hi"}))
    assert run.done and run.events[0]["stdout"] == "hi\n"
    assert (run.items[0].decided_by, run.items[0].rule) == ("rule", "shell allow: echo")
    assert run.items[0].to_dict()["rule_note"] == "auto-approved by shell allow: echo"


def test_a_command_never_runs_without_approval(
    make_operator: Callable[..., Operator], root: Path
) -> None:
    run = run_json(make_operator(), json.dumps({"type": "shell", "command": "touch ran"}))
    assert run.items[0].status == "pending" and not (root / "ran").exists()
    assert run.items[0].to_dict()["rule_note"] == "asked by shell default: ask"
    run.reject("shell-1")
    assert not (root / "ran").exists() and run.events[-1]["code"] == "ERR_REJECTED"


def test_denied_by_pattern_answers_policy_denied(make_operator: Callable[..., Operator]) -> None:
    op = make_operator()
    op.shell_policy = POLICY
    run = run_json(op, json.dumps({"type": "shell", "command": "rm -rf data"}))
    assert run.events == [
        {
            "type": "policyDenied",
            "operationType": "shell",
            "reason": "Command matches a denied pattern (*rm -rf*)",
            "suggestion": "Allowed commands: echo, ls, python -m pytest",
        }
    ]
