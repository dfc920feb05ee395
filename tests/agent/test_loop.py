"""The agent loop with scripted replies: turns, decisions, stop rules and the two guards."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from support.replies import b64, block, edits

from jupyter_operator.agent import Agent, ReplayModel
from jupyter_operator.agent import events as ev


def run(agent: Agent, task: str = "tidy the notes"):
    return asyncio.run(agent.run(task))


def test_reads_a_write_and_an_edit_then_stops_when_the_reply_has_no_commands(
    workspace: Path,
) -> None:
    seen: list[str] = []

    def script(last: str, turn: int) -> str | None:
        seen.append(last)
        if turn == 1:
            return (
                "Looking first.\n"
                + block("l1", "fs.list", path=".")
                + "\n"
                + block("r1", "fs.read", path="notes.txt")
            )
        if turn == 2:
            return block("w1", "fs.write", path="plan.txt", content_b64=b64("one\n"))
        if turn == 3:
            return block(
                "e1",
                "fs.applyEdits",
                path="notes.txt",
                edits_b64=edits({"op": "replaceFirst", "find": "beta", "text": "gamma"}),
            )
        return "All done."

    agent = Agent(ReplayModel(script), root=workspace, policy="auto=reads,writes")
    result = run(agent)
    assert result.reason == "done"
    assert result.turns == 4
    assert (workspace / "plan.txt").read_text() == "one\n"
    assert (workspace / "notes.txt").read_text() == "alpha\ngamma\n"
    # each turn's user message is the previous turn's results text
    assert "id: r1" in seen[1] and "ok: true" in seen[1]
    assert "id: w1" in seen[2] and "id: e1" in seen[3]
    assert agent.transcript_path is not None and agent.transcript_path.exists()


def test_the_system_prompt_holds_the_preamble_and_the_spec(workspace: Path) -> None:
    messages: list[list[dict[str, str]]] = []

    class Spy(ReplayModel):
        def stream(self, msgs):  # type: ignore[no-untyped-def]
            messages.append(list(msgs))
            return super().stream(msgs)

    run(Agent(Spy([]), root=workspace, policy="auto=reads deny=fs.delete"))
    system = messages[0][0]
    assert system["role"] == "system"
    assert '"notes.txt"' in system["content"]  # the top-level listing
    assert "1: deny fs.delete **" in system["content"]  # the rules, numbered
    assert "fs.write" in system["content"] and "approval" in system["content"]
    assert "OPERATOR_CMD" in system["content"] and "ERR_" in system["content"]  # the spec
    assert messages[0][1] == {"role": "user", "content": "tidy the notes"}


def test_a_rejection_reason_reaches_the_model(workspace: Path) -> None:
    answers: list[str] = []

    def script(last: str, turn: int) -> str | None:
        answers.append(last)
        if turn == 1:
            return block("w1", "fs.write", path="x.txt", content_b64=b64("x"))
        return "Understood."

    def decide(r):  # type: ignore[no-untyped-def]
        r.reject("w1", reason="use notes.txt instead")

    agent = Agent(ReplayModel(script), root=workspace, decide=decide)
    assert run(agent).reason == "done"
    assert "ERR_REJECTED" in answers[1] and "use notes.txt instead" in answers[1]
    assert not (workspace / "x.txt").exists()
    decisions = [r for r in agent.transcript if r["type"] == "decision"]
    assert decisions == [decisions[0]]
    assert (
        decisions[0]["outcome"] == "rejected" and decisions[0]["reason"] == "use notes.txt instead"
    )


def test_the_loop_waits_for_a_person_without_blocking_the_event_loop(workspace: Path) -> None:
    reply = block("w1", "fs.write", path="x.txt", content_b64=b64("x"))
    agent = Agent(ReplayModel([reply]), root=workspace)
    ticks = 0

    async def main() -> str:
        nonlocal ticks
        task = agent.start("write x")
        while agent.run_now is None or not agent.run_now.pending:
            await asyncio.sleep(0)
        for _ in range(20):  # other work runs while the agent waits for the decision
            ticks += 1
            await asyncio.sleep(0)
        assert not task.done()
        agent.run_now.approve("w1")
        return (await task).reason

    assert asyncio.run(main()) == "done"
    assert ticks == 20
    assert (workspace / "x.txt").read_text() == "x"


def test_stop_while_waiting_rejects_the_pending_changes(workspace: Path) -> None:
    agent = Agent(
        ReplayModel([block("w1", "fs.write", path="x.txt", content_b64=b64("x"))]), root=workspace
    )

    async def main():  # type: ignore[no-untyped-def]
        task = agent.start("write x")
        while agent.run_now is None:
            await asyncio.sleep(0)
        agent.stop()
        return await task

    result = asyncio.run(main())
    assert result.reason == "stopped"
    assert agent.run_now is not None and agent.run_now.items[0].status == "rejected"
    assert not (workspace / "x.txt").exists()


def test_max_turns_and_token_budget(workspace: Path) -> None:
    calls: list[int] = []

    def forever(last: str, turn: int) -> str:
        calls.append(turn)
        return block(f"s{turn}", "fs.stat", path="notes.txt")

    limited = run(Agent(ReplayModel(forever), root=workspace, max_turns=3))
    assert limited.reason == "max_turns"
    assert calls == [1, 2, 3], "the turn limit of 3 did not allow exactly 3 model calls"
    assert limited.turns == 3 and limited.message == "Stopped after 3 turns (the turn limit)."
    result = run(Agent(ReplayModel(forever), root=workspace, max_tokens=1))
    assert (result.reason, result.budget, result.turns) == ("budget", "tokens", 1)


def test_the_same_failing_command_three_turns_in_a_row_stops_the_run(workspace: Path) -> None:
    def stubborn(last: str, turn: int) -> str:
        return block(f"r{turn}", "fs.read", path="missing.txt")

    result = run(Agent(ReplayModel(stubborn), root=workspace, max_turns=10))
    assert result.reason == "repeated_failure"
    assert result.turns == 3
    assert "fs.read missing.txt" in result.message and "ERR_NOT_FOUND" in result.message


def test_a_different_failure_resets_the_count(workspace: Path) -> None:
    paths = ["a", "a", "b", "a", "a"]

    def varied(last: str, turn: int) -> str | None:
        return block(f"r{turn}", "fs.read", path=paths[turn - 1]) if turn <= 5 else None

    assert run(Agent(ReplayModel(varied), root=workspace)).reason == "done"


def test_a_reply_cut_inside_a_block_gets_one_continue_request(workspace: Path) -> None:
    full = block("w1", "fs.write", path="x.txt", content_b64=b64("hello"))
    cut = "Writing it.\n" + full[: full.index("content_b64")]
    prompts: list[str] = []

    def script(last: str, turn: int) -> str | None:
        prompts.append(last)
        return {1: cut, 2: full}.get(turn)

    events: list[object] = []
    agent = Agent(ReplayModel(script), root=workspace, policy="auto=all")
    agent.subscribe(events.append)
    assert run(agent).reason == "done"
    assert "cut off inside an OPERATOR_CMD block" in prompts[1]
    assert (workspace / "x.txt").read_text() == "hello"
    assert any(isinstance(e, ev.Notice) and "continue" in e.message for e in events)
    assert sum(1 for r in agent.transcript if r["type"] == "continue") == 1


def test_events_announce_each_block_as_it_completes(workspace: Path) -> None:
    reply = block("a", "fs.stat", path="notes.txt") + "\nprose\n" + block("b", "fs.list", path=".")
    events: list[object] = []
    agent = Agent(ReplayModel([reply], chunk=5), root=workspace)
    agent.subscribe(events.append)
    run(agent)
    kinds = [type(e).__name__ for e in events]
    first_block = kinds.index("BlockReady")
    planned = kinds.index("TurnPlanned")
    assert first_block < planned and kinds.count("BlockReady") == 2
    assert kinds[0] == "TurnStarted" and kinds[-1] == "Stopped"
    text = "".join(e.text for e in events if isinstance(e, ev.TextDelta) and e.turn == 1)
    assert text == reply


def test_duplicate_ids_across_turns_are_pointed_out(workspace: Path) -> None:
    same = block("s1", "fs.stat", path="notes.txt")
    prompts: list[str] = []

    def script(last: str, turn: int) -> str | None:
        prompts.append(last)
        return same if turn <= 2 else None

    assert run(Agent(ReplayModel(script), root=workspace)).reason == "done"
    assert "already used" in prompts[2]


def test_commands_lost_to_the_scan_window_are_asked_for_again(workspace: Path) -> None:
    prompts: list[str] = []
    lost = block("s1", "fs.stat", path="notes.txt") + "\n" + "padding line\n" * 20_000

    def script(last: str, turn: int) -> str | None:
        prompts.append(last)
        return lost if turn == 1 else None  # every command in the part that is not scanned

    result = run(Agent(ReplayModel(script), root=workspace))
    # Not taken for a reply without commands: the model is told and gets another turn.
    assert result.reason == "done" and result.turns == 2
    assert prompts[1].startswith("Note: only the last 200,000 characters of your reply")
    assert "hold 1 OPERATOR_CMD marker that was not read" in prompts[1]


def test_a_model_function_that_raises_ends_the_run_with_a_sentence(workspace: Path) -> None:
    def broken(last: str, turn: int) -> str:
        raise RuntimeError("boom /secret/host/path")

    result = run(Agent(ReplayModel(broken), root=workspace))
    assert result.reason == "model_error"
    assert "/secret" not in result.message and "RuntimeError" in result.message


def test_agent_refuses_a_second_concurrent_run(workspace: Path) -> None:
    agent = Agent(
        ReplayModel([block("w", "fs.write", path="x", content_b64=b64("x"))]), root=workspace
    )

    async def main() -> None:
        task = agent.start("one")
        await asyncio.sleep(0)
        with pytest.raises(RuntimeError, match="already running"):
            await agent.run("two")
        agent.stop()
        await task

    asyncio.run(main())


def test_deciding_from_python_with_waiting_and_wait(workspace: Path) -> None:
    replies = [
        block("w1", "fs.write", path="a.txt", content_b64=b64("a")),
        block("w2", "fs.write", path="b.txt", content_b64=b64("b")),
    ]
    agent = Agent(ReplayModel(replies), root=workspace)

    async def main():  # type: ignore[no-untyped-def]
        agent.start("two files")
        first = await agent.waiting()
        assert first is not None and [i.id for i in first.pending] == ["w1"]
        first.approve("w1")
        second = await agent.waiting()
        assert second is not None and second is not first
        second.reject("w2", reason="one is enough")
        assert await agent.waiting() is None
        return await agent.wait()

    result = asyncio.run(main())
    assert result.reason == "done" and result.turns == 3
    assert (workspace / "a.txt").exists() and not (workspace / "b.txt").exists()


def test_time_budget(workspace: Path) -> None:
    slow = ReplayModel(["x" * 200], chunk=1, delay=0.01)
    result = run(Agent(slow, root=workspace, max_seconds=0.2))
    assert (result.reason, result.budget) == ("budget", "seconds") and "0.2 s" in result.message


def test_a_system_prompt_of_ones_own(workspace: Path) -> None:
    seen: list[str] = []

    class Spy(ReplayModel):
        def stream(self, msgs):  # type: ignore[no-untyped-def]
            seen.append(msgs[0]["content"])
            return super().stream(msgs)

    agent = Agent(Spy([]), root=workspace, system="Be brief.")
    run(agent)
    assert seen == ["Be brief."]
    assert "OPERATOR_CMD" in agent.default_system_prompt()
