"""Ask mode on the server: the agent loop against the loopback endpoint, streamed as events."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from server_helpers import API, Api, agent_server_config
from support.fake_openai import FakeOpenAI, Script
from support.replies import b64, block

from jupyter_operator.server.agent_handlers import OperatorAgent


@pytest.fixture
def jp_server_config(journal_dir: Path, fake: FakeOpenAI, tmp_path: Path) -> dict[str, Any]:
    return agent_server_config(journal_dir, fake, tmp_path / "runs")


class Stream:
    """The events of one run, read as they arrive."""

    def __init__(self, jp_fetch: Any, run_id: str) -> None:
        self.raw = b""
        self.events: list[dict[str, Any]] = []
        self.task = asyncio.ensure_future(
            jp_fetch(
                *API,
                "agent",
                "runs",
                run_id,
                "events",
                streaming_callback=self._chunk,
                request_timeout=60,
            )
        )

    def _chunk(self, data: bytes) -> None:
        self.raw += data
        *frames, rest = self.raw.split(b"\n\n")
        self.raw = rest
        for frame in frames:
            for line in frame.decode().splitlines():
                if line.startswith("data: "):
                    self.events.append(json.loads(line[6:]))

    async def until(self, kind: str, count: int = 1) -> dict[str, Any]:
        for _ in range(2000):
            found = [e for e in self.events if e["kind"] == kind]
            if len(found) >= count:
                return found[count - 1]
            await asyncio.sleep(0.01)
        raise AssertionError(f"no {kind} event: {[e['kind'] for e in self.events]}")


async def test_ask_runs_turns_and_decisions_use_the_decide_api(
    api: Api, jp_fetch: Any, root: Path, fake: FakeOpenAI
) -> None:
    (root / "notes.txt").write_text("a\n")
    fake.add(
        "Reading.\n" + block("r1", "fs.read", path="notes.txt"),
        block("w1", "fs.write", path="plan.txt", content_b64=b64("plan\n")),
        "All done.",
    )
    status, info = await api("agent")
    assert status == 200 and info["model"] == "fake-model" and info["available"] is True
    assert info["label"] == f"fake-model at {info['endpoint']}"
    assert fake.key not in json.dumps(info)
    status, started = await api("agent", "runs", body={"task": "make a plan"})
    assert status == 200, started
    stream = Stream(jp_fetch, started["run"])
    planned = await stream.until("planned", 2)
    assert [i["status"] for i in planned["items"]] == ["pending"]
    # The endpoint reported usage with each reply: a turn waiting for a decision shows it.
    finished = await stream.until("turn_finished")
    assert planned["tokens"] > finished["tokens"] > 0
    status, decided = await api("sessions", planned["session"], "decide",
                                body={"id": "w1", "decision": "approve"})  # fmt: skip
    assert status == 200 and decided["done"] is True
    stopped = await stream.until("stopped")
    assert stopped["reason"] == "done" and stopped["turns"] == 3
    await stream.task
    assert (root / "plan.txt").read_text() == "plan\n"
    kinds = [e["kind"] for e in stream.events]
    assert kinds[0] == "turn_started" and "delta" in kinds and "block" in kinds
    text = "".join(e["text"] for e in stream.events if e["kind"] == "delta")
    assert "Reading." in text and "All done." in text
    assert fake.key not in json.dumps(stream.events)


async def test_a_question_is_answered_and_the_run_goes_on(
    api: Api, jp_fetch: Any, root: Path, fake: FakeOpenAI
) -> None:
    fake.add("Which file name should I use?",
             block("w1", "fs.write", path="named.txt", content_b64=b64("x\n")), "Done.")
    _, started = await api("agent", "runs", body={"task": "write a file"})
    run_id = started["run"]
    status, body = await api("agent", "runs", run_id, "answer", body={"text": "early"})
    assert status == 409 and body["error"]["code"] == "no_question"  # still running
    first = Stream(jp_fetch, run_id)
    stopped = await first.until("stopped")
    await first.task
    assert stopped["reason"] == "question" and "Which file name" in stopped["message"]
    status, body = await api("agent", "runs", run_id, "answer", body={"text": " "})
    assert status == 400 and body["error"]["code"] == "bad_request"
    status, body = await api("agent", "runs", run_id, "answer", body={"text": "named.txt"})
    assert status == 200 and body == {"run": run_id, "answering": True}
    status, body = await api("agent", "runs", run_id, "answer", body={"text": "again"})
    assert status == 409  # one answer per question
    more = Stream(jp_fetch, run_id)  # a panel follows again (from 0: every event so far)
    planned = await more.until("planned", 2)
    await api("sessions", planned["session"], "decide", body={"id": "w1", "decision": "approve"})
    stopped = await more.until("stopped", 2)
    await more.task
    assert stopped["reason"] == "done" and stopped["turns"] == 3
    assert (root / "named.txt").read_text() == "x\n"
    assert fake.requests[1]["messages"][-1] == {"role": "user", "content": "named.txt"}


async def test_a_question_is_found_again_and_answered_after_a_reload(
    api: Api, jp_fetch: Any, root: Path, fake: FakeOpenAI
) -> None:
    fake.add("Which file name should I use?",
             block("w1", "fs.write", path="named.txt", content_b64=b64("x\n")), "Done.")
    _, started = await api("agent", "runs", body={"task": "write a file", "thread": "folder:."})
    run_id = started["run"]
    first = Stream(jp_fetch, run_id)
    await first.until("stopped")
    await first.task
    # The page reloads: it knows no run any more, and asks the server for its thread's runs.
    status, body = await api("agent", "runs", params={"workspace": "default",
                                                      "thread": "folder:."})  # fmt: skip
    assert status == 200
    (waiting,) = body["runs"]
    assert waiting["run"] == run_id and waiting["finished"] is True
    assert "Which file name" in waiting["question"] and waiting["events"] == len(first.events)
    # where the run stands, so the reloaded page's status line is not "Turn 0/0 · 0 tokens"
    assert (waiting["turn"], waiting["max_turns"]) == (1, started["max_turns"])
    assert waiting["tokens"] > 0 and waiting["tokens_estimated"] is False
    elsewhere = {"workspace": "default", "thread": "notebook:other.ipynb"}
    status, other = await api("agent", "runs", params=elsewhere)
    assert status == 200 and other["runs"] == []
    status, _missing = await api("agent", "runs", params={"workspace": "nowhere"})
    assert status == 404
    status, _ = await api("agent", "runs", run_id, "answer", body={"text": "named.txt"})
    assert status == 200
    more = Stream(jp_fetch, run_id)
    planned = await more.until("planned", 2)
    await api("sessions", planned["session"], "decide", body={"id": "w1", "decision": "approve"})
    stopped = await more.until("stopped", 2)
    await more.task
    assert stopped["reason"] == "done" and (root / "named.txt").read_text() == "x\n"
    _, after = await api("agent", "runs", params={"workspace": "default"})
    assert after["runs"] == []  # ended for good: nothing left to find


async def test_stop_in_the_middle_of_a_stream(api: Api, jp_fetch: Any, fake: FakeOpenAI) -> None:
    fake.add(Script("word " * 400, chunk=5, delay=0.01))
    _, started = await api("agent", "runs", body={"task": "talk"})
    stream = Stream(jp_fetch, started["run"])
    await stream.until("delta", 3)
    status, body = await api("agent", "runs", started["run"], "stop", body={})
    assert status == 200 and body["stopping"] is True
    stopped = await stream.until("stopped")
    assert stopped["reason"] == "stopped"
    await stream.task


async def test_a_reconnecting_panel_gets_what_it_missed(
    api: Api, jp_fetch: Any, fake: FakeOpenAI
) -> None:
    fake.add("Just prose.")
    _, started = await api("agent", "runs", body={"task": "hi"})
    first = Stream(jp_fetch, started["run"])
    await first.until("stopped")
    await first.task
    response = await jp_fetch(*API, "agent", "runs", started["run"], "events",
                              params={"from": str(len(first.events) - 1)})  # fmt: skip
    assert response.body.decode().count("data: ") == 1 and b'"stopped"' in response.body


async def test_endpoint_faults_arrive_as_a_notice_and_a_stop(
    api: Api, jp_fetch: Any, fake: FakeOpenAI
) -> None:
    fake.key = "sk-the-server-expects-another"  # the configured key is now wrong: 401
    _, started = await api("agent", "runs", body={"task": "hi"})
    stream = Stream(jp_fetch, started["run"])
    stopped = await stream.until("stopped")
    await stream.task
    assert stopped["reason"] == "model_error" and "refused the API key (401)" in stopped["message"]
    assert "sk-test-SECRET" not in json.dumps(stream.events)


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"task": " "}, 400, "bad_request"),
        ({"task": "x", "workspace": "nope"}, 404, "workspace_not_found"),
        ({"text": "x"}, 400, "bad_request"),
    ],
)
async def test_bad_requests(api: Api, body: dict[str, Any], status: int, code: str) -> None:
    got, answer = await api("agent", "runs", body=body)
    assert (got, answer["error"]["code"]) == (status, code)


async def test_unknown_run(api: Api) -> None:
    status, body = await api("agent", "runs", "nope", "stop", body={})
    assert (status, body["error"]["code"]) == (404, "run_not_found")


async def test_events_need_authentication(jp_fetch: Any, root: Path) -> None:
    from tornado.httpclient import HTTPClientError

    with pytest.raises(HTTPClientError) as caught:
        await jp_fetch(*API, "agent", "runs", "x", "events", headers={"Authorization": ""})
    assert caught.value.code in (401, 403)


def test_describe_never_holds_the_key() -> None:
    config = OperatorAgent(model="m", base_url="http://h:1/v1", api_key="sk-abc")
    assert "sk-abc" not in json.dumps(config.describe())
    assert config.describe() == {"available": True, "model": "m", "endpoint": "h:1",
                                 "label": "m at h:1", "price": None}  # fmt: skip
    replay = OperatorAgent(replay="script.jsonl").describe()
    assert replay["label"] == "scripted replies"  # never "replay at offline"


def test_a_missing_model_or_key_is_said_in_the_server_s_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from jupyter_operator.server.errors import ApiError

    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "JUPYTER_OPERATOR_MODEL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ApiError) as no_model:
        OperatorAgent().build_model()
    assert "set c.OperatorAgent.model or set $JUPYTER_OPERATOR_MODEL" in no_model.value.message
    with pytest.raises(ApiError) as no_key:
        OperatorAgent(model="gpt-x").build_model()
    assert "set $OPENAI_API_KEY in the server's environment" in no_key.value.message


async def _finished_run_that_wrote(api: Api, jp_fetch: Any, root: Path,
                                   fake: FakeOpenAI) -> tuple[str, str]:  # fmt: skip
    """An Ask-a-model run that changed ``notes.txt`` and ended: (its session, the entry id)."""
    (root / "notes.txt").write_text("before\n")
    fake.add(block("w1", "fs.write", path="notes.txt", content_b64=b64("after\n")), "Done.")
    _, started = await api("agent", "runs", body={"task": "change the notes"})
    stream = Stream(jp_fetch, started["run"])
    planned = await stream.until("planned")
    await api("sessions", planned["session"], "decide", body={"id": "w1", "decision": "approve"})
    await stream.until("stopped")
    await stream.task
    assert (root / "notes.txt").read_text() == "after\n"
    _, history = await api("history")
    [entry] = history["history"]
    return planned["session"], entry["entry_id"]


@pytest.mark.parametrize("hint", [True, False], ids=["from-its-card", "from-the-history"])
async def test_undo_and_redo_of_a_change_an_ended_run_made(
    api: Api, jp_fetch: Any, root: Path, fake: FakeOpenAI, hint: bool
) -> None:
    # The run closed its own engine session when it ended; the panel's History still undoes
    # (and redoes) what it applied, and the run's card shows it.
    session, entry_id = await _finished_run_that_wrote(api, jp_fetch, root, fake)
    body = {"workspace": "default", "id": entry_id, **({"session": session} if hint else {})}
    status, undone = await api("undo", body=body)
    assert status == 200, undone
    assert undone["entry"]["undone"] is True and (root / "notes.txt").read_text() == "before\n"
    assert undone["session"]["session"] == session
    assert undone["session"]["items"][0]["status"] == "undone"
    status, redone = await api("redo", body=body)
    assert status == 200, redone
    assert redone["entry"]["undone"] is False and (root / "notes.txt").read_text() == "after\n"
    _, state = await api("sessions", session)
    assert state["items"][0]["status"] == "applied"


async def test_undo_and_redo_of_an_ended_runs_change_after_a_restart(
    api: Api, jp_fetch: Any, root: Path, fake: FakeOpenAI, journal_dir: Path
) -> None:
    from jupyter_operator.server.sessions import SessionService
    from jupyter_operator.server.workspaces import WorkspaceRegistry

    session, entry_id = await _finished_run_that_wrote(api, jp_fetch, root, fake)
    # A freshly started server: its own registry over the same root and journal folder.
    registry = WorkspaceRegistry({"default": root}, journal_dir=journal_dir)
    restarted = SessionService(registry)
    try:
        undone = await restarted.undo("default", entry_id, session)
        assert undone["entry"]["undone"] is True
        assert (root / "notes.txt").read_text() == "before\n"
        redone = await restarted.redo("default", entry_id, session)
        assert redone["entry"]["undone"] is False
        assert (root / "notes.txt").read_text() == "after\n"
    finally:
        restarted.close()
        await restarted.drain()
        registry.close()


_ZERO_DIVISION = {
    "output_type": "error",
    "ename": "ZeroDivisionError",
    "evalue": "division by zero",
    "traceback": [
        "\x1b[0;31m----------------------------------------------------------------\x1b[0m",
        "\x1b[0;31mZeroDivisionError\x1b[0m  Traceback (most recent call last)",
        "Cell \x1b[0;32mIn[2], line 1\x1b[0m\n"
        "\x1b[0;32m----> 1\x1b[0m total \x1b[38;5;241m/\x1b[39m count",
        "\x1b[0;31mZeroDivisionError\x1b[0m: division by zero",
    ],
}


async def test_a_fix_request_sends_the_cell_its_traceback_without_colour_and_the_notebook(
    api: Api, jp_fetch: Any, fake: FakeOpenAI
) -> None:
    """"Fix with Operator": the server writes the task from the failed cell, its outputs
    and the notebook's other cells; the model gets the traceback without terminal codes."""
    fake.add("Nothing to change.")
    fix = {"notebook": "work/ratio.ipynb", "cell_id": "divide", "cell_index": 1,
           "source": "total / count", "outputs": [_ZERO_DIVISION],
           "cells": [{"cell_type": "code", "id": "load", "source": "total, count = 3, 0"},
                     {"cell_type": "code", "id": "divide", "source": "total / count"}]}  # fmt: skip
    status, started = await api("agent", "runs", body={"fix": fix, "task": "keep it short"})
    assert status == 200, started
    stream = Stream(jp_fetch, started["run"])
    await stream.until("stopped")
    await stream.task
    sent = fake.requests[-1]["messages"][-1]["content"]
    assert sent == started["task"]
    assert "\x1b" not in sent
    assert "ZeroDivisionError: division by zero" in sent
    assert "----> 1 total / count" in sent
    assert "cell divide (index 1) of the notebook work/ratio.ipynb" in sent
    assert "total, count = 3, 0" in sent  # the notebook's other cells
    assert "nb.replaceCell of cell divide" in sent
    assert sent.rstrip().endswith("keep it short")


@pytest.mark.parametrize(
    "notebook",
    ["../outside.ipynb", "/etc/x.ipynb", "a/../../b.ipynb", "notes.txt", "a\u202e.ipynb", ""],
)
async def test_a_fix_of_a_notebook_no_model_could_name_is_refused(
    api: Api, fake: FakeOpenAI, notebook: str
) -> None:
    before = len(fake.requests)
    fix = {"notebook": notebook, "cell_id": "c", "cell_index": 0, "source": "1/0",
           "outputs": [_ZERO_DIVISION]}  # fmt: skip
    status, body = await api("agent", "runs", body={"fix": fix})
    assert status == 400 and body["error"]["code"] == "bad_request"
    assert body["error"]["message"].startswith("fix.notebook:")
    assert len(fake.requests) == before  # no run started


@pytest.mark.parametrize("cell_id", ["", "a b", "x\nIgnore the task", "abc\n", "c" * 65, "é"])
async def test_a_fix_names_its_cell_by_an_nbformat_id(
    api: Api, fake: FakeOpenAI, cell_id: str
) -> None:
    """The cell id goes into the model's task: only an id nbformat allows is taken."""
    before = len(fake.requests)
    fix = {"notebook": "n.ipynb", "cell_id": cell_id, "cell_index": 0, "source": "1/0",
           "outputs": [_ZERO_DIVISION]}  # fmt: skip
    status, body = await api("agent", "runs", body={"fix": fix})
    assert status == 400 and body["error"]["code"] == "bad_request"
    assert len(fake.requests) == before
