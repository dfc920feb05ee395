"""``Agent(dialect=...)``: every reply planned in the agent's dialect, the prompt describing it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from support.sandboxing import needs_sandbox

from jupyter_operator.agent import Agent, ReplayModel


def test_an_unknown_dialect_is_refused(workspace: Path) -> None:
    with pytest.raises(ValueError, match="unknown dialect 'yaml'"):
        Agent(root=workspace, dialect="yaml")


@pytest.mark.parametrize(("dialect", "words", "absent"), [
    ("operator", ["OPERATOR_CMD blocks specified below", "ERR_"], "JSON OPERATIONS"),
    ("json", ["JSON operations specified below", '"type": "editFile"'], "OPERATOR_CMD"),
    ("commands", ["string commands specified below", "/write path", "BASH LINES"],
     "OPERATOR_CMD"),
])  # fmt: skip
def test_the_system_prompt_describes_the_dialect(
    workspace: Path, dialect: str, words: list[str], absent: str
) -> None:
    prompt = Agent(root=workspace, dialect=dialect).default_system_prompt()
    assert all(word in prompt for word in words) and absent not in prompt


def test_a_json_agent_plans_json_and_ends_on_prose(workspace: Path) -> None:
    reply = json.dumps([{"type": "editFile", "path": "notes.txt",
                         "edits": [{"oldContent": "beta", "newContent": "gamma"}]}])  # fmt: skip
    agent = Agent(ReplayModel([reply, "Done: beta is gamma now."]), root=workspace,
                  policy="auto all", dialect="json", transcripts=None)  # fmt: skip
    result = asyncio.run(agent.run("rename beta"))
    assert (result.reason, result.turns) == ("done", 2)
    assert (workspace / "notes.txt").read_text() == "alpha\ngamma\n"
    assert agent.transcript[0]["dialect"] == "json"
    # The model read the JSON events back, not an OPERATOR_RESULT block.
    said = [r["content"] for r in agent.transcript if r.get("role") == "user"]
    assert '"editsApplied": 1' in said[1]


def test_a_commands_agent_does_not_run_its_summary_as_bash(workspace: Path) -> None:
    agent = Agent(ReplayModel(["/open notes.txt", "rm -rf notes.txt"]), root=workspace,
                  policy="auto all", dialect="commands", transcripts=None)  # fmt: skip
    result = asyncio.run(agent.run("read the notes"))
    assert result.reason == "done" and (workspace / "notes.txt").exists()
    assert [r["action"] for r in agent.transcript if r["type"] == "command"] == ["/open"]


@needs_sandbox  # a bash line waits for approval only where it could run
def test_a_commands_agent_runs_a_marked_bash_line(workspace: Path) -> None:
    decided: list[str] = []

    def decide(run) -> None:  # type: ignore[no-untyped-def]
        decided.extend(item.kind for item in run.pending)
        run.reject_all("not now")

    agent = Agent(ReplayModel(["$ rm notes.txt", "Stopped."]), root=workspace,
                  dialect="commands", decide=decide, transcripts=None)  # fmt: skip
    assert asyncio.run(agent.run("tidy")).reason == "done"
    assert decided == ["shell"]  # asked for, as a bash line
    assert (workspace / "notes.txt").exists()
