"""Model endpoints added from the panel (REST), and what each Ask turn costs.

The endpoint's key is typed once: it goes to the server, is stored owner-only in Jupyter's data
folder (out of every workspace), and never comes back in any answer, event, transcript or file
of the workspace. A run can use a new endpoint at once, without a restart.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest
from server_helpers import Api, server_app
from support.fake_openai import FakeOpenAI, Script
from support.replies import b64, block
from test_agent_handlers import Stream

KEY = "sk-typed-in-the-panel-7f3a9c"


@pytest.fixture
def fake() -> Any:
    """The endpoint added from the panel: it takes only the typed key."""
    with FakeOpenAI(key=KEY) as server:
        yield server


@pytest.fixture
def jp_server_config(journal_dir: Path, tmp_path: Path) -> dict[str, Any]:
    """No model configured at all: the person adds one from the panel."""
    return {
        "ServerApp": server_app(),
        "OperatorExtension": {"journal_dir": str(journal_dir)},
        "OperatorAgent": {
            "transcripts_dir": str(tmp_path / "runs"),
            "models": [{"name": "team", "base_url": "https://llm.example.org/v1",
                        "model": "big-model", "key_env": "TEAM_LLM_KEY"}],
            "prices": {"fake-model": [1000, 2000]},
        },
    }  # fmt: skip


def every_file_holding(folder: Path, text: str) -> list[Path]:
    """The files under ``folder`` whose bytes contain ``text``."""
    needle = text.encode()
    return [p for p in folder.rglob("*") if p.is_file() and needle in p.read_bytes()]


async def test_a_typed_key_is_stored_0600_out_of_the_workspace_and_never_sent_back(
    api: Api, jp_fetch: Any, root: Path, fake: FakeOpenAI, jp_data_dir: Path, tmp_path: Path
) -> None:
    status, info = await api("agent")
    assert status == 200 and info["available"] is False and info["named"] is True
    answers = [info]
    status, added = await api("agent", "models", body={
        "name": "local", "base_url": fake.url, "model": "fake-model", "api_key": KEY})  # fmt: skip
    assert status == 200, added
    answers.append(added)
    assert added["model"]["key"] == "stored" and added["model"]["source"] == "saved"
    status, listed = await api("agent", "models")
    answers.append(listed)
    assert [m["name"] for m in listed["models"]] == ["team", "local"]
    assert listed["models"][0]["key"] == "$TEAM_LLM_KEY"
    # Stored in Jupyter's data folder, owner-only; the list itself holds no key.
    folder = jp_data_dir / "jupyter_operator" / "models"
    keys = folder / "keys.json"
    assert stat.S_IMODE(keys.stat().st_mode) == 0o600
    assert stat.S_IMODE((folder / "endpoints.json").stat().st_mode) == 0o600
    assert KEY not in (folder / "endpoints.json").read_text()
    assert not str(keys).startswith(str(root))
    # Asked through at once (no restart): the endpoint took the stored key.
    fake.add(block("w1", "fs.write", path="out.txt", content_b64=b64("hi\n")), "Done.")
    status, started = await api("agent", "runs", body={"task": "write", "model": "local"})
    assert status == 200, started
    answers.append(started)
    stream = Stream(jp_fetch, started["run"])
    planned = await stream.until("planned")
    status, decided = await api("sessions", planned["session"], "decide",
                                body={"id": "w1", "decision": "approve"})  # fmt: skip
    answers.append(decided)
    stopped = await stream.until("stopped")
    await stream.task
    assert stopped["reason"] == "done", stopped
    assert (root / "out.txt").read_text() == "hi\n"
    for answer in [*answers, *stream.events]:
        assert KEY not in json.dumps(answer)
    assert every_file_holding(root, KEY) == []
    assert every_file_holding(tmp_path / "runs", KEY) == []  # the transcripts
    assert list((tmp_path / "runs").rglob("*.jsonl")), "the run wrote no transcript"
    # Removed: gone from the list and its key from the store.
    status, removed = await api("agent", "models", "local", method="DELETE")
    assert status == 200 and removed == {"removed": "local"}
    assert KEY not in keys.read_text()
    _, listed = await api("agent", "models")
    assert [m["name"] for m in listed["models"]] == ["team"]


async def test_endpoints_that_do_not_fit_are_refused_and_nothing_is_saved(
    api: Api, jp_data_dir: Path, fake: FakeOpenAI
) -> None:
    good = {"name": "local", "base_url": fake.url, "model": "fake-model"}
    refused = [
        {**good, "base_url": f"http://user:{KEY}@127.0.0.1:1/v1"},  # a key in the address
        {**good, "base_url": "http://127.0.0.1:1/v1?key=" + KEY},
        {**good, "base_url": "file:///etc/passwd"},
        {**good, "name": "../up"},
        {**good, "name": ""},
        {**good, "api_key": KEY, "key_env": "SOME_KEY"},
        {**good, "key_env": "NOT A NAME"},
        {**good, "api_key": "sk-\nnewline"},
        {**good, "api_key": 123},
    ]
    for body in refused:
        status, answer = await api("agent", "models", body=body)
        assert status == 400, (body, answer)
        assert KEY not in json.dumps(answer)
    assert not (jp_data_dir / "jupyter_operator" / "models" / "keys.json").exists()
    status, answer = await api("agent", "models", body={**good, "name": "team"})
    assert status == 409 and answer["error"]["code"] == "endpoint_exists"
    status, answer = await api("agent", "models", "team", method="DELETE")
    assert status == 409 and answer["error"]["code"] == "endpoint_configured"
    status, answer = await api("agent", "models", "nothing", method="DELETE")
    assert status == 404
    status, _ = await api("agent", "models", body=good)
    status, answer = await api("agent", "models", body=good)
    assert status == 409


async def test_a_key_env_endpoint_reads_the_servers_environment(
    api: Api, jp_fetch: Any, fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = {"name": "env", "base_url": fake.url, "model": "fake-model", "key_env": "MY_FAKE_KEY"}
    await api("agent", "models", body=body)
    status, answer = await api("agent", "runs", body={"task": "x", "model": "env"})
    assert status == 503 and "$MY_FAKE_KEY" in answer["error"]["message"]
    monkeypatch.setenv("MY_FAKE_KEY", KEY)
    fake.add("Done.")
    status, started = await api("agent", "runs", body={"task": "x", "model": "env"})
    assert status == 200, started
    stream = Stream(jp_fetch, started["run"])
    assert (await stream.until("stopped"))["reason"] == "done"
    await stream.task
    status, answer = await api("agent", "runs", body={"task": "x", "model": "missing"})
    assert status == 404 and answer["error"]["code"] == "endpoint_not_found"


async def test_each_turn_reports_the_endpoints_usage_and_its_cost(
    api: Api, jp_fetch: Any, fake: FakeOpenAI
) -> None:
    await api("agent", "models", body={"name": "local", "base_url": fake.url,
                                       "model": "fake-model", "api_key": KEY})  # fmt: skip
    fake.add(Script(block("r1", "fs.list", path="."), usage=(120, 30)),
             Script("All done.", usage=(200, 7)))  # fmt: skip
    _, started = await api("agent", "runs", body={"task": "look", "model": "local"})
    assert started["price"] == [1000.0, 2000.0]
    stream = Stream(jp_fetch, started["run"])
    await stream.until("stopped")
    await stream.task
    planned = [e for e in stream.events if e["kind"] == "planned"]
    assert [p["usage"]["prompt_tokens"] for p in planned] == [120, 200]
    assert [p["usage"]["completion_tokens"] for p in planned] == [30, 7]
    assert [p["usage"]["estimated"] for p in planned] == [False, False]
    # 120 * 1000 / 1e6 + 30 * 2000 / 1e6 = 0.18; the second turn 0.2 + 0.014
    assert [p["turn_cost"] for p in planned] == [0.18, 0.214]
    assert [p["cost"] for p in planned] == [0.18, 0.394]
    assert stream.events[-1]["cost"] == 0.394 and stream.events[-1]["tokens"] == 357


async def test_a_cost_budget_stops_the_run_cleanly_with_its_reason(
    api: Api, jp_fetch: Any, fake: FakeOpenAI
) -> None:
    await api("agent", "models", body={"name": "local", "base_url": fake.url,
                                       "model": "fake-model", "api_key": KEY})  # fmt: skip
    def turns() -> None:  # distinct replies (the same one thrice is a repeated failure)
        fake.add(*(Script(block(f"r{n}", "fs.list", path="."), usage=(100, 0))  # 0.1 a turn
                   for n in range(6)))  # fmt: skip

    turns()
    body = {"task": "look", "model": "local", "max_cost": 0.25}
    _, started = await api("agent", "runs", body=body)
    stream = Stream(jp_fetch, started["run"])
    stopped = await stream.until("stopped")
    await stream.task
    assert stopped["reason"] == "budget" and stopped["turns"] == 3, stopped
    assert "cost budget" in stopped["message"]
    # A token budget the same way.
    fake.scripts.clear()
    turns()
    _, started = await api("agent", "runs", body={**body, "max_cost": None, "max_tokens": 150})
    stream = Stream(jp_fetch, started["run"])
    stopped = await stream.until("stopped")
    await stream.task
    assert stopped["reason"] == "budget" and stopped["turns"] == 2, stopped
    assert "token budget" in stopped["message"]


async def test_a_cost_budget_without_a_price_is_refused(api: Api, fake: FakeOpenAI) -> None:
    await api("agent", "models", body={"name": "team2", "base_url": fake.url,
                                       "model": "unpriced", "api_key": KEY})  # fmt: skip
    status, answer = await api("agent", "runs",
                               body={"task": "x", "model": "team2", "max_cost": 1.0})  # fmt: skip
    assert status == 400 and answer["error"]["code"] == "no_price"
    for bad in ({"max_cost": -1}, {"max_tokens": 0}, {"max_cost": "1"}):
        status, _ = await api("agent", "runs", body={"task": "x", "model": "team2", **bad})
        assert status == 400
