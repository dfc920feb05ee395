"""OpenAIChat and the loop against a real loopback endpoint, through the real openai SDK."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import pytest
from support.fake_openai import FakeOpenAI, Script
from support.replies import b64, block, edits

from jupyter_operator.agent import Agent, ModelError, OpenAIChat
from jupyter_operator.agent import events as ev


def chat(fake: FakeOpenAI, **kwargs: object) -> OpenAIChat:
    options = {
        "model": "fake-model",
        "base_url": fake.url,
        "api_key": fake.key,
        "max_retries": 0,
        "timeout": 30.0,  # generous: a loaded machine is not an endpoint fault
    }
    options.update(kwargs)
    return OpenAIChat(**options)  # type: ignore[arg-type]


def test_a_full_loop_lists_writes_edits_and_stops(fake: FakeOpenAI, workspace: Path) -> None:
    fake.add(
        "Let me look.\n" + block("l1", "fs.list", path="."),
        block("w1", "fs.write", path="plan.txt", content_b64=b64("step 1\n")),
        block(
            "e1",
            "fs.applyEdits",
            path="plan.txt",
            edits_b64=edits({"op": "insertAfter", "anchor": "step 1\n", "text": "step 2\n"}),
        ),
        "Done: plan.txt has two steps.",
    )
    agent = Agent(chat(fake), root=workspace, decide=lambda run: run.approve_all())
    result = asyncio.run(agent.run("write a plan"))
    assert result.reason == "done", result.message
    assert result.turns == 4
    assert (workspace / "plan.txt").read_text() == "step 1\nstep 2\n"
    # the results of each turn were the next request's last message
    assert "id: l1" in fake.requests[1]["messages"][-1]["content"]
    assert fake.requests[0]["stream"] is True
    assert fake.requests[0]["stream_options"] == {"include_usage": True}
    assert result.tokens > 0  # usage came from the endpoint
    start = agent.transcript[0]
    assert start["model"] == "fake-model" and start["endpoint"].startswith("127.0.0.1:")


def test_policy_auto_approves_without_a_decider(fake: FakeOpenAI, workspace: Path) -> None:
    fake.add(block("w1", "fs.write", path="a.txt", content_b64=b64("a")), "ok")
    agent = Agent(chat(fake), root=workspace, policy="auto=reads,writes")
    assert asyncio.run(agent.run("write a")).reason == "done"
    assert (workspace / "a.txt").read_text() == "a"


def test_stop_in_the_middle_of_a_stream(fake: FakeOpenAI, workspace: Path) -> None:
    reply = "x" * 200 + "\n" + block("w1", "fs.write", path="a.txt", content_b64=b64("a"))
    fake.add(Script(reply, chunk=4, delay=0.02))
    agent = Agent(chat(fake), root=workspace, policy="auto=all")
    deltas: list[str] = []

    def on_event(event: object) -> None:
        if isinstance(event, ev.TextDelta):
            deltas.append(event.text)
            if len(deltas) == 5:
                agent.stop()

    agent.subscribe(on_event)
    result = asyncio.run(agent.run("go"))
    assert result.reason == "stopped"
    assert len(deltas) < 20
    assert not (workspace / "a.txt").exists()  # a cut reply is never run


FAULTS = [
    ("bad key", {"api_key": "sk-WRONG-key-987"}, None, "refused the API key (401)"),
    ("unknown model", {"model": "nope-model"}, None, "does not know the model 'nope-model' (404)"),
    ("refused connection", {"base_url": "http://127.0.0.1:9/v1"}, None, "Could not connect"),
    ("timeout", {"timeout": 0.3}, Script("late", hang=1.0), "did not answer within 0.3 seconds"),
    ("429", {"max_retries": 1}, Script(status=429), "limiting requests (429), still after retries"),
    ("500", {"max_retries": 1}, Script(status=500), "failed (HTTP 500), still after retries"),
    ("cut", {}, Script("a" * 100, chunk=10, cut_after=3), "broke off in the middle of the reply"),
]


@pytest.mark.parametrize(
    ("options", "script", "sentence"), [f[1:] for f in FAULTS], ids=[f[0] for f in FAULTS]
)
def test_every_endpoint_fault_ends_the_turn_with_one_sentence(
    fake: FakeOpenAI,
    workspace: Path,
    options: dict[str, object],
    script: Script | None,
    sentence: str,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    caplog.set_level(logging.DEBUG)
    if script is not None:
        fake.add(script, script)  # a second copy for the one retry
    agent = Agent(chat(fake, **options), root=workspace)
    notices: list[str] = []
    agent.subscribe(lambda e: notices.append(e.message) if isinstance(e, ev.Notice) else None)
    result = asyncio.run(agent.run("go"))
    assert result.reason == "model_error"
    assert sentence in result.message
    assert result.message.count(". ") == 0 and "\n" not in result.message  # one sentence
    assert notices == [result.message]
    assert "Traceback" not in caplog.text
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    if "retries" in sentence:
        assert len(fake.requests) == 2


def test_the_key_is_in_no_output_transcript_or_log(
    fake: FakeOpenAI,
    workspace: Path,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("OPENAI_API_KEY", fake.key)
    monkeypatch.setenv("OPENAI_BASE_URL", fake.url)
    monkeypatch.setenv("JUPYTER_OPERATOR_MODEL", "fake-model")
    fake.add(block("w1", "fs.write", path="a.txt", content_b64=b64("a")), "done")
    model = OpenAIChat(max_retries=0)
    assert fake.key not in repr(model) and fake.key not in model.describe()
    agent = Agent(model, root=workspace, policy="auto=all")
    events: list[object] = []
    agent.subscribe(events.append)
    asyncio.run(agent.run("go"))
    # a wrong key is quoted back by the endpoint's 401 body: it must not reach us either
    wrong = "sk-WRONG-but-still-secret-42"
    bad = Agent(OpenAIChat(api_key=wrong, max_retries=0), root=workspace)
    result = asyncio.run(bad.run("go"))
    assert result.reason == "model_error"
    texts = [
        caplog.text,
        *capsys.readouterr(),
        repr(agent),
        repr(result),
        json.dumps(
            [
                e.to_json()
                for e in events
                if hasattr(e, "to_json") and not isinstance(e, (ev.TurnPlanned, ev.ItemChanged))
            ]
        ),
    ]
    for path in (agent.transcript_path, bad.transcript_path):
        assert path is not None
        texts.append(path.read_text())
    for text in texts:
        assert fake.key not in text
        assert wrong not in text


def test_configuration_errors_are_sentences(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ModelError, match="No model named"):
        OpenAIChat()
    with pytest.raises(ModelError, match=r"No API key for api\.openai\.com"):
        OpenAIChat("gpt-4o-mini")
    local = OpenAIChat("llama3", base_url="http://localhost:11434/v1")  # Ollama needs no key
    assert local.endpoint == "localhost:11434"
