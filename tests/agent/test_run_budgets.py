"""A run's budgets (tokens, cost, seconds) against the loopback endpoint's reported usage."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from support.fake_openai import FakeOpenAI, Script
from support.replies import b64, block

from jupyter_operator.agent import Agent, OpenAIChat
from jupyter_operator.agent.loop import OUT_OF_TIME_TEXT
from jupyter_operator.agent.prices import cost_of


def chat(fake: FakeOpenAI) -> OpenAIChat:
    return OpenAIChat("fake-model", base_url=fake.url, api_key=fake.key, max_retries=0,
                      timeout=30.0)  # fmt: skip


def write(name: str) -> str:
    return block(f"w-{name}", "fs.write", path=f"{name}.txt", content_b64=b64(f"{name}\n"))


def stop_record(agent: Agent) -> dict[str, object]:
    (stop,) = [r for r in agent.transcript if r["type"] == "stop"]
    return stop


def test_a_run_stops_at_its_token_budget_after_the_reply_that_used_it_up(
    fake: FakeOpenAI, workspace: Path
) -> None:
    fake.add(Script(write("a"), usage=(300, 200)), Script(write("b"), usage=(300, 200)),
             Script("Done.", usage=(300, 200)))  # fmt: skip
    agent = Agent(chat(fake), root=workspace, policy="auto all", max_tokens=800)
    result = asyncio.run(agent.run("write a and b"))
    assert (result.reason, result.budget) == ("budget", "tokens"), result.message
    assert result.tokens == 1000 and result.turns == 2
    assert len(fake.requests) == 2, "a request was sent after the token budget was used up"
    assert "token budget (800 tokens) is used up (1,000 spent)" in result.message
    # the work done before the limit stays, for the check to judge
    assert (workspace / "a.txt").exists() and (workspace / "b.txt").exists()
    stop = stop_record(agent)
    assert stop["reason"] == "budget" and stop["budget"] == "tokens"
    assert agent.transcript[0]["budgets"] == {"max_tokens": 800}


def test_a_run_stops_at_its_cost_budget_priced_from_the_reported_usage(
    fake: FakeOpenAI, workspace: Path
) -> None:
    # $2 per million prompt tokens, $10 per million completion tokens: $0.30 a reply
    fake.add(*[Script(write(name), usage=(100_000, 10_000)) for name in "abc"])
    agent = Agent(chat(fake), root=workspace, policy="auto all", max_cost=0.5,
                  price=(2.0, 10.0))  # fmt: skip
    result = asyncio.run(agent.run("write a, b and c"))
    assert (result.reason, result.budget) == ("budget", "cost"), result.message
    assert result.cost == pytest.approx(0.6) and result.turns == 2
    assert len(fake.requests) == 2, "a request was sent after the cost budget was used up"
    assert "cost budget ($0.5) is used up ($0.6 spent)" in result.message
    stop = stop_record(agent)
    assert stop["budget"] == "cost" and stop["cost"] == pytest.approx(0.6)
    assert cost_of(200_000, 20_000, (2.0, 10.0)) == pytest.approx(0.6)


def test_a_cost_budget_needs_the_model_s_price(fake: FakeOpenAI, workspace: Path) -> None:
    with pytest.raises(ValueError, match="max_cost needs a price: the model 'fake-model' has no"):
        Agent(chat(fake), root=workspace, max_cost=0.5)
    for bad in ({"max_tokens": 0}, {"max_seconds": -1.0}, {"max_cost": float("nan"), "price": 1},
                {"max_cost": 1.0, "price": (1.0, -2.0)}, {"max_tokens": True}):  # fmt: skip
        with pytest.raises(ValueError):
            Agent(chat(fake), root=workspace, **bad)  # type: ignore[arg-type]


def test_a_run_stops_at_its_time_budget_while_the_model_replies(
    fake: FakeOpenAI, workspace: Path
) -> None:
    fake.add(Script("word " * 200, chunk=5, delay=0.02))  # some 4 s of reply
    agent = Agent(chat(fake), root=workspace, max_seconds=0.5)
    result = asyncio.run(agent.run("say many words"))
    assert (result.reason, result.budget) == ("budget", "seconds"), result.message
    assert "time budget (0.5 s) is used up while the model was replying" in result.message
    assert stop_record(agent)["wall_seconds"] < 3


def test_a_run_stops_at_its_time_budget_while_a_change_waits_for_a_person(
    fake: FakeOpenAI, workspace: Path
) -> None:
    """A decision that never comes (a person away from the panel) cannot hold the run past
    its time budget: what waits is rejected with the reason, and the run stops."""
    fake.add(write("a"), "Done.")

    async def nobody_answers(run: object) -> None:
        await asyncio.Event().wait()

    agent = Agent(chat(fake), root=workspace, policy="", max_seconds=0.5, decide=nobody_answers)
    result = asyncio.run(agent.run("write a"))
    assert (result.reason, result.budget) == ("budget", "seconds"), result.message
    assert "while changes waited for decisions" in result.message
    assert not (workspace / "a.txt").exists()
    (decision,) = [r for r in agent.transcript if r["type"] == "decision"]
    assert decision["outcome"] == "rejected" and decision["reason"] == OUT_OF_TIME_TEXT


def test_an_endpoint_s_negative_usage_gives_back_no_budget(
    fake: FakeOpenAI, workspace: Path
) -> None:
    """A count below 0 is no count: an endpoint cannot report its way past a token budget."""
    fake.add(Script(write("a"), usage=(300, 200)), Script(write("b"), usage=(-1_000_000, 5)),
             Script(write("c"), usage=(300, 200)), Script("Done."))  # fmt: skip
    agent = Agent(chat(fake), root=workspace, policy="auto all", max_tokens=600)
    result = asyncio.run(agent.run("write a, b and c"))
    assert (result.reason, result.budget) == ("budget", "tokens"), result.message
    assert result.tokens == 505 + 500 and len(fake.requests) == 3


def test_a_turn_s_cost_follows_the_run_s_rule_for_estimated_tokens(workspace: Path) -> None:
    """A model that reports no usage is priced from estimated tokens, per turn as for the run
    (the run's ``cost`` is what ``max_cost`` counts), and the turn says it is an estimate."""
    from jupyter_operator.agent import ReplayModel
    from jupyter_operator.agent import events as ev

    agent = Agent(ReplayModel([write("a"), "Done."]), root=workspace, policy="auto all",
                  price=(2.0, 10.0))  # fmt: skip
    planned: list[ev.TurnPlanned] = []
    agent.subscribe(lambda event: planned.append(event) if isinstance(event, ev.TurnPlanned)
                    else None)  # fmt: skip
    result = asyncio.run(agent.run("write a"))
    assert agent.tokens_estimated and all(turn.usage["estimated"] for turn in planned)
    costs = [turn.turn_cost for turn in planned]
    assert None not in costs, "an estimated turn was left unpriced while the run's cost counts it"
    assert sum(costs) == pytest.approx(result.cost)
    assert planned[0].to_json()["turn_cost"] == costs[0]
