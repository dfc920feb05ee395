"""AgentView: prose streams in, a card per block as it completes, the turn's cards, Stop."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from support.host_folders import keep_host_files_in
from support.replies import b64, block

from jupyter_operator.agent import Agent, ReplayModel
from jupyter_operator.agent import events as ev
from jupyter_operator.widgets.agent_view import AgentView
from jupyter_operator.widgets.run_widget import RunWidget


@pytest.fixture(autouse=True)
def host_files(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The runs' journal and transcripts in tmp_path (widget comms are recorded: conftest)."""
    keep_host_files_in(tmp_path, monkeypatch)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "notes.txt").write_text("a\n")
    return folder


REPLY = (
    "I will write <b>the plan</b>.\n"
    + block("w1", "fs.write", path="plan.txt", content_b64=b64("x"))
    + "\nThen read it.\n"
    + block("r1", "fs.read", path="notes.txt")
)


def test_prose_cards_and_the_end(root: Path) -> None:
    agent = Agent(ReplayModel([REPLY], chunk=7), root=root)
    view = AgentView(agent, task="plan")
    snapshots: list[tuple[str, int]] = []

    def watch(event: object) -> None:
        if isinstance(event, ev.BlockReady):  # the received card is there before the engine ran
            turn = view.turns[-1]
            snapshots.append((type(event).__name__, len(turn.received)))

    agent.subscribe(watch)

    async def main():  # type: ignore[no-untyped-def]
        agent.start("plan")
        run = await agent.waiting()
        assert run is not None
        turn = view.turns[0]
        assert isinstance(turn.box.children[-1], RunWidget)  # the real cards replaced them
        assert "waiting for you" in view.heading.value
        run.approve("w1")
        return await agent.wait()

    result = asyncio.run(main())
    assert result.reason == "done"
    assert snapshots == [("BlockReady", 1), ("BlockReady", 2)]
    prose = view.turns[0].prose.value
    assert "I will write &lt;b&gt;the plan&lt;/b&gt;." in prose and "Then read it." in prose
    assert "OPERATOR_CMD" not in prose and "content_b64" not in prose
    assert "turn 2/10" in view.heading.value and "tokens" in view.heading.value
    assert view.stop_button.disabled
    # Once the run ends the button no longer looks like a live red Stop.
    assert view.stop_button.button_style == "" and view.stop_button.description == "Ended"
    assert "finished after 2 turns" in view.status.value
    assert repr(view).startswith("Agent run: scripted replies")


def test_stop_button_stops_the_run(root: Path) -> None:
    agent = Agent(ReplayModel([REPLY]), root=root)
    view = AgentView(agent)

    async def main():  # type: ignore[no-untyped-def]
        agent.start("plan")
        await agent.waiting()
        view.stop_button.click()
        return await agent.wait()

    assert asyncio.run(main()).reason == "stopped"
    assert "ended: stopped" in view.heading.value
    assert not (root / "plan.txt").exists()


def test_the_first_prose_is_drawn_at_once_and_later_deltas_are_coalesced(root: Path) -> None:
    agent = Agent(ReplayModel(["word " * 400], chunk=5), root=root)
    view = AgentView(agent)
    draws = 0
    original = view._draw_prose

    def counting(turn: Any) -> None:
        nonlocal draws
        draws += 1
        original(turn)

    view._draw_prose = counting  # type: ignore[method-assign]
    asyncio.run(agent.run("talk"))
    assert view.first_draw is not None
    assert 1 <= draws < 100  # 400 deltas, far fewer redraws
    assert view.turns[0].prose.value.count("word") == 400  # the last delta is drawn too


def test_a_long_reply_keeps_only_the_end_on_screen(root: Path) -> None:
    from jupyter_operator.widgets.agent_view import PROSE_LIMIT

    agent = Agent(ReplayModel(["x" * 100_000 + "\nthe end"], chunk=1000), root=root)
    view = AgentView(agent)
    asyncio.run(agent.run("talk"))
    turn = view.turns[0]
    assert turn.prose_chars == 100_008 and len(turn.prose_text) == PROSE_LIMIT
    assert turn.prose_text.endswith("the end")
    assert "80,008 characters above not shown" in turn.prose.value


def test_the_closing_reply_shows_no_empty_cards_and_the_end_is_green(root: Path) -> None:
    agent = Agent(ReplayModel([block("s", "fs.stat", path="notes.txt"), "All done."]), root=root)
    view = AgentView(agent)
    asyncio.run(agent.run("look"))
    first, last = view.turns
    assert isinstance(first.box.children[-1], RunWidget)
    assert not any(isinstance(child, RunWidget) for child in last.box.children)
    assert "jpo-s-applied" in view.heading.value and "ended: done" in view.heading.value


def test_a_question_is_shown_and_the_answer_continues_the_run(root: Path) -> None:
    seen: list[str] = []

    def reply(last: str, turn: int) -> str | None:
        seen.append(last)
        if turn == 1:
            return "Which name should the plan file have?"
        if turn == 2:
            return block("w1", "fs.write", path="plan-b.txt", content_b64=b64("x"))
        return "Done."

    agent = Agent(ReplayModel(reply), root=root, policy="auto=reads,writes")
    view = AgentView(agent)

    async def main():  # type: ignore[no-untyped-def]
        first = await agent.run("plan")
        assert first.reason == "question" and agent.question.startswith("Which name")
        box = view.turns[-1].box.children
        assert "The model asks:" in box[-2].value and "Which name" in box[-2].value
        assert "waiting for your answer" in view.heading.value
        assert "answer it to go on" in view.status.value
        view.send_answer("   ")  # an empty answer is not sent
        assert agent.result is first and "Write an answer" in view.answer_box.placeholder
        view.answer_box.value = "plan-b.txt, please"
        view.answer_button.click()
        assert not view.stop_button.disabled and view.stop_button.description == "Stop"
        return await agent.wait()

    result = asyncio.run(main())
    assert result.reason == "done" and (root / "plan-b.txt").read_text() == "x"
    assert seen[1] == "plan-b.txt, please"  # the answer is the model's next message
    assert "You answered:" in view.turns[0].box.children[-1].value
    assert [t.number for t in view.turns] == [1, 2, 3]
    assert "finished after 3 turns" in view.status.value
    answers = [r for r in agent.transcript if r["type"] == "answer"]
    assert answers == [dict(answers[0], turn=2, text="plan-b.txt, please")]


def test_a_views_cards_undo_and_redo_after_the_run_ended(root: Path) -> None:
    # display(AgentView(agent)) from Python: the agent's own engine session closed when the
    # run ended; the turn's card still lists, undoes and redoes what the run applied.
    agent = Agent(ReplayModel([REPLY, "All done."]), root=root)
    view = AgentView(agent, task="plan")

    async def main():  # type: ignore[no-untyped-def]
        agent.start("plan")
        run = await agent.waiting()
        run.approve("w1")
        return await agent.wait()

    assert asyncio.run(main()).reason == "done"
    card = view.turns[0].run_view
    [entry] = card.handle({"kind": "history"})["history"]
    assert entry["path"] == "plan.txt" and entry["undone"] is False
    answer = card.handle({"kind": "undo", "entry_id": entry["entry_id"]})
    assert answer == {"note": f"Undone: fs.write plan.txt (entry {entry['entry_id']})"}
    assert not (root / "plan.txt").exists()
    assert card.state()["items"][0]["status"] == "undone"
    assert "Redone" in card.handle({"kind": "redo", "entry_id": None})["note"]
    assert (root / "plan.txt").read_text() == "x"


def test_an_ended_run_is_saved_as_its_static_copy(root: Path) -> None:
    # A notebook reopened without its kernel shows the saved text/html; the server's pre-save
    # hook keeps only that once the output is marked final (never "model not found").
    agent = Agent(ReplayModel([REPLY, "All done."]), root=root)
    view = AgentView(agent, task="plan <it>")
    assert view.saved_metadata() == {"jupyter_operator": {"final": False}}

    async def main():  # type: ignore[no-untyped-def]
        agent.start("plan")
        run = await agent.waiting()
        run.approve("w1")
        return await agent.wait()

    asyncio.run(main())
    assert view.saved_metadata() == {"jupyter_operator": {"final": True}}
    html = view._repr_mimebundle_()["text/html"]
    assert "Task: plan &lt;it&gt;" in html and "I will write &lt;b&gt;the plan&lt;/b&gt;" in html
    assert "<b>Turn 1</b>" in html and "[Applied]" in html and "plan.txt" in html
    assert "ended: done" in html and "2 turns" in html and "starting" not in html
    assert "finished after 2 turns" in html
    assert "OPERATOR_CMD" not in html


def test_a_displayed_view_keeps_its_saved_output_up_to_date(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jupyter_operator.widgets import saved_output

    shown: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
    monkeypatch.setattr(saved_output, "_shell", lambda: None)  # no kernel: record displays
    monkeypatch.setattr("IPython.display.display", lambda data, **kw: shown.append(
        ("display", data, kw["metadata"])))  # fmt: skip
    agent = Agent(ReplayModel(["All done."]), root=root)
    view = AgentView(agent, task="nothing")
    view._ipython_display_()
    assert shown[0][2] == {"jupyter_operator": {"final": False}}
    assert "application/vnd.jupyter.widget-view+json" in shown[0][1]
    saved = view._saved[0]
    asyncio.run(agent.run("nothing"))
    # The update is made from the view's state now (no shell here: only its key is kept).
    assert saved._key(view)[2] == repr([("jupyter_operator", {"final": True})])
    assert "ended: done" in saved._key(view)[1]


def test_the_heading_names_scripted_replies_as_such(root: Path) -> None:
    view = AgentView(Agent(ReplayModel(["Done."], name="replay:fix-the-error"), root=root))
    assert "scripted replies (fix-the-error)" in view.heading.value
    assert "at offline" not in view.heading.value and "replay:" not in view.heading.value


def test_the_heading_meters_tokens_and_cost_against_the_run_s_budgets(root: Path) -> None:
    from support.fake_openai import FakeOpenAI, Script

    from jupyter_operator.agent import OpenAIChat

    with FakeOpenAI() as fake:
        fake.add(*[Script(block(f"w{n}", "fs.write", path=f"{n}.txt", content_b64=b64("a")),
                          usage=(100_000, 10_000)) for n in range(3)])  # $0.30 a reply
        model = OpenAIChat("fake-model", base_url=fake.url, api_key=fake.key, max_retries=0)
        agent = Agent(model, root=root, policy="auto all", max_cost=0.5, price=(2.0, 10.0),
                      max_tokens=1_000_000)  # fmt: skip
        view = AgentView(agent, task="write files")
        headings: list[str] = []
        agent.subscribe(lambda event: headings.append(view.heading.value)
                        if isinstance(event, ev.TurnFinished) else None)  # fmt: skip
        asyncio.run(agent.run("write files"))
    assert view.meter() == ["220,000 of 1,000,000 tokens", "$0.6000 of $0.5"]
    assert "110,000 of 1,000,000 tokens" in headings[0] and "$0.3000 of $0.5" in headings[0]
    assert "ended: budget (cost)" in view.heading.value
    assert "220,000 of 1,000,000 tokens, $0.6000 of $0.5, ended: budget (cost)" in (
        view.static_html())


def test_without_a_price_the_heading_meters_tokens_alone(root: Path) -> None:
    agent = Agent(ReplayModel(["Done."]), root=root)
    view = AgentView(agent, task="nothing")
    asyncio.run(agent.run("nothing"))
    assert view.meter() == [f"{agent.tokens:,} tokens"] and "$" not in view.heading.value
