"""``engine.plan``: the one way a model's text becomes a run, in every dialect."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from jupyter_operator.engine import DecidableRun, Item, Operator, Policy, plan
from jupyter_operator.engine.commands import CommandSession

BLOCK = "OPERATOR_CMD\nversion: 1\nid: r1\naction: fs.read\npath: notes.md\nEND_OPERATOR_CMD\n"
JSON = json.dumps([{"type": "readFile", "path": "notes.md"}])
COMMANDS = "/open notes.md\n/ls"
LEAKED = '<tool_call>{"name": "read_file", "arguments": {"path": "notes.md"}}</tool_call>'


@pytest.fixture
def operator(tmp_path: Path) -> Iterator[Operator]:
    (tmp_path / "notes.md").write_text("# Notes\nhello\n", encoding="utf-8")
    with Operator(tmp_path, policy=Policy.parse("auto=reads")) as op:
        yield op


@pytest.mark.parametrize(("text", "dialect"), [
    (BLOCK, "operator"), (JSON, "json"), (COMMANDS, "commands"), (LEAKED, "operator"),
])  # fmt: skip
def test_every_dialect_becomes_a_decidable_run_through_plan(operator: Operator, text: str,
                                                            dialect: str) -> None:  # fmt: skip
    run = plan(operator, text)  # detected
    assert isinstance(run, DecidableRun) and run.dialect == dialect
    # What every front reads, declared on every run with the same defaults.
    assert (run.truncated_chars, run.unread_markers, run.skipped_duplicates) == (0, 0, ())
    assert run.items and isinstance(run.results_text, str)
    assert plan(operator, text, dialect).dialect == dialect  # named


def test_a_leaked_tool_call_is_planned_as_the_block_it_means(operator: Operator) -> None:
    run = plan(operator, LEAKED)
    assert [item.foreign is not None for item in run.items] == [True]
    assert run.pending, "a translated call waits for a person, whatever the rules"


def test_the_named_dialect_wins_over_detection(operator: Operator) -> None:
    run = plan(operator, COMMANDS, "operator")
    assert run.dialect == "operator" and run.items == []
    with pytest.raises(ValueError, match="unknown dialect 'yaml'"):
        plan(operator, COMMANDS, "yaml")


def test_string_commands_run_in_the_session_they_are_given(operator: Operator) -> None:
    session = CommandSession(operator)
    plan(operator, "/open notes.md", "commands", commands=session)
    later = plan(operator, "/info", "commands", commands=session)
    assert "notes.md" in later.results_text  # the open document carried over
    fresh = plan(operator, "/info", "commands")
    assert "notes.md" not in fresh.results_text  # a fresh session by default


def test_a_command_session_of_another_operator_is_refused(operator: Operator,
                                                          tmp_path: Path) -> None:  # fmt: skip
    other = tmp_path / "other"
    other.mkdir()
    with Operator(other) as elsewhere, pytest.raises(ValueError, match="another operator"):
        plan(operator, "/ls", "commands", commands=CommandSession(elsewhere))


def test_subscribers_of_a_command_script_are_handed_items(operator: Operator) -> None:
    # Every run calls its subscribers with an Item (the agent's settling reads item.kind).
    run = plan(operator, "/write new.md\nhello\n/end\n/ls", "commands")
    seen: list[object] = []
    run.subscribe(seen.append)
    assert run.pending
    run.approve(run.pending[0].id)
    assert seen and all(isinstance(item, Item) for item in seen)
    assert {item.id for item in seen} >= {run.items[0].id, run.items[1].id}  # decided, then ran
