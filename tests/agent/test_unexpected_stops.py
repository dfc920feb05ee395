"""A reply without commands is classified: corrective turns, clean stops, leaked calls, guards."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from support.fake_openai import FakeOpenAI, Script
from support.replies import b64, block

from jupyter_operator.agent import Agent, OpenAIChat, ReplayModel, reject_translations
from jupyter_operator.agent.stops import classify
from jupyter_operator.protocol import parse_results

WRITE = block("w1", "fs.write", path="hello.txt", content_b64=b64("hi\n"))
HERMES = ('<tool_call>{"name": "write_file", "arguments": {"path": "hello.txt", '
          '"content": "hi\\n"}}</tool_call>')  # fmt: skip


def scripted(*replies: str) -> tuple[ReplayModel, list[str]]:
    """A model that plays ``replies`` (None: out of script) and keeps what it was sent."""
    seen: list[str] = []

    def reply(last: str, turn: int) -> str | None:
        seen.append(last)
        return replies[turn - 1] if turn <= len(replies) else None

    return ReplayModel(reply), seen


def run(workspace: Path, model, **options):
    options.setdefault("decide", reject_translations)  # nobody approves a translation
    agent = Agent(model, root=workspace, policy="auto=reads,writes", **options)
    return agent, asyncio.run(agent.run("create hello.txt saying hi"))


@pytest.mark.parametrize(("reply", "kind"), [
    ("", "empty"), ("   \n", "empty"), ("Sure, I'll create hello.txt now.", "promise"),
    ("Let me write that file for you.", "promise"),
    ("I'm sorry, but I can't help with that.", "refusal"),
    ("Which folder should the file go in?", "question"),
    ("The file is written; the task is done.", "done"), ("All set.", "done"),
])  # fmt: skip
def test_classify(reply: str, kind: str) -> None:
    assert classify(reply, "stop").kind == kind


def test_length_and_a_script_that_ran_out() -> None:
    assert classify("Here is the plan: first", "length").kind == "cut_off"
    assert classify("", "script_end").kind == "done"


def test_a_leaked_tool_call_is_answered_with_the_block_it_meant(workspace: Path) -> None:
    model, seen = scripted("Sure, I'll create hello.txt now.\n" + HERMES,
                           block("w1", "fs.write", path="hello.txt", content_b64=b64("hi\n")),
                           "Done.")  # fmt: skip
    agent, result = run(workspace, model)
    assert result.reason == "done" and (workspace / "hello.txt").read_text() == "hi\n"
    (answer,) = parse_results(seen[1])
    assert answer.code == "ERR_FOREIGN_TOOL_CALL"
    assert "Hermes/Qwen <tool_call> JSON: write_file" in answer.summary
    assert "action: fs.write\npath: hello.txt" in (answer.details or "")
    kinds = [r["kind"] for r in agent.transcript if r["type"] == "stop_class"]
    assert kinds[0] == "foreign_tool_call"
    leaked = [r for r in agent.transcript if r["type"] == "foreign_tool_call"]
    assert leaked[0]["family"] == "hermes" and "fs.write" in leaked[0]["translation"]


def test_a_leak_is_never_run_and_the_run_stops_if_it_goes_on(workspace: Path) -> None:
    model, _seen = scripted(HERMES, HERMES, HERMES)
    _agent, result = run(workspace, model)
    assert result.reason == "foreign_tool_calls"
    assert not (workspace / "hello.txt").exists()


@pytest.mark.parametrize("first", ["", "Sure, I'll create hello.txt now."])
def test_an_unexpected_stop_gets_one_corrective_turn(workspace: Path, first: str) -> None:
    model, seen = scripted(first, WRITE, "Done.")
    agent, result = run(workspace, model)
    assert result.reason == "done" and (workspace / "hello.txt").exists()
    assert "no OPERATOR_CMD block" in seen[1] or "Your reply was empty" in seen[1]
    kinds = [r["kind"] for r in agent.transcript if r["type"] == "stop_class"]
    assert kinds == ["empty" if not first else "promise", "done"]


def test_twice_in_a_row_the_run_stops_with_the_reason(workspace: Path) -> None:
    model, _seen = scripted("", "")
    _agent, result = run(workspace, model)
    assert result.reason == "empty" and "empty twice" in result.message


def test_a_question_or_a_refusal_ends_the_run_cleanly(workspace: Path) -> None:
    model, _ = scripted("I need one thing first. Which folder should the file go in?")
    _agent, result = run(workspace, model)
    assert result.reason == "question"
    assert result.message == ("The model asks: I need one thing first. "
                              "Which folder should the file go in?")
    model, _ = scripted("I'm sorry, but I can't help with that.")
    _agent, result = run(workspace, model)
    assert result.reason == "refusal"


def test_a_reply_cut_at_the_length_limit_outside_a_block(workspace: Path) -> None:
    with FakeOpenAI() as fake:
        fake.add(Script("Here is my plan. First I will", finish="length"), WRITE, "Done.")
        agent = Agent(OpenAIChat("fake-model", base_url=fake.url, api_key=fake.key),
                      root=workspace, policy="auto=reads,writes")  # fmt: skip
        result = asyncio.run(agent.run("create hello.txt"))
        assert "cut off at the length limit" in fake.requests[1]["messages"][-1]["content"]
    assert result.reason == "done" and (workspace / "hello.txt").exists()


def test_the_same_no_op_write_stops_after_three_turns(workspace: Path) -> None:
    (workspace / "hello.txt").write_text("hi\n")
    model, _seen = scripted(*[WRITE.replace("w1", f"w{n}") for n in range(7)])
    _agent, result = run(workspace, model)
    assert result.reason == "repeated_failure"
    assert "changed nothing 3 turns in a row" in result.message
    assert result.turns == 3


def test_the_same_reply_three_times_stops(workspace: Path) -> None:
    read = block("r1", "fs.read", path="notes.txt")
    model, _seen = scripted(read, read, read, read)
    _agent, result = run(workspace, model)
    assert result.reason == "repeated_failure" and "same reply 3 turns" in result.message


def test_the_persons_answer_to_a_question_continues_the_run(workspace: Path) -> None:
    model, seen = scripted("Which folder should the file go in?", WRITE, "Done.")
    agent, result = run(workspace, model)
    assert result.reason == "question" and agent.question == "Which folder should the file go in?"
    with pytest.raises(ValueError):
        asyncio.run(agent.answer("  "))
    result = asyncio.run(agent.answer("The top folder."))
    assert result.reason == "done" and result.turns == 3 and agent.question is None
    assert seen[1] == "The top folder." and (workspace / "hello.txt").read_text() == "hi\n"
    stops = [r["reason"] for r in agent.transcript if r["type"] == "stop"]
    assert stops == ["question", "done"]  # one transcript, the answer between the two
    with pytest.raises(RuntimeError, match="did not end with a question"):
        asyncio.run(agent.answer("again"))
