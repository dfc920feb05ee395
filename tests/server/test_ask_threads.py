"""The Ask view's threads: a follow-up continues the notebook's conversation, saved beside
the transcripts; New thread starts afresh; a long thread is compacted as any run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from server_helpers import Api, agent_server_config
from support.fake_openai import FakeOpenAI
from test_agent_handlers import Stream

from jupyter_operator.protocol import Result, format_results

THREAD = "notebook:work/ratio.ipynb"


@pytest.fixture
def jp_server_config(journal_dir: Path, fake: FakeOpenAI, tmp_path: Path) -> dict[str, Any]:
    return agent_server_config(journal_dir, fake, tmp_path / "runs")


async def _ask(api: Api, jp_fetch: Any, task: str, thread: str | None = THREAD) -> dict:
    body: dict[str, Any] = {"task": task}
    if thread is not None:
        body["thread"] = thread
    status, started = await api("agent", "runs", body=body)
    assert status == 200, started
    stream = Stream(jp_fetch, started["run"])
    stopped = await stream.until("stopped")
    await stream.task
    return {"stopped": stopped, "events": stream.events}


async def test_a_follow_up_continues_the_thread_and_new_thread_starts_afresh(
    api: Api, jp_fetch: Any, fake: FakeOpenAI, tmp_path: Path
) -> None:
    fake.add("The ratio divides by count.", "It is 2.0 now.", "Fresh start.", "Other thread.")
    await _ask(api, jp_fetch, "What does the ratio cell do?")
    await _ask(api, jp_fetch, "And now?")
    said = [(m["role"], m["content"]) for m in fake.requests[-1]["messages"][1:]]
    assert said == [("user", "What does the ratio cell do?"),
                    ("assistant", "The ratio divides by count."), ("user", "And now?")]  # fmt: skip
    status, thread = await api("agent", "threads", params={"key": THREAD})
    assert status == 200 and thread["busy"] is False
    assert [m["content"] for m in thread["messages"]][-2:] == ["And now?", "It is 2.0 now."]
    saved = list((tmp_path / "runs" / "threads").glob("*.json"))
    assert len(saved) == 1 and "ratio.ipynb" not in saved[0].name  # named by a digest
    # Another notebook has its own thread.
    await _ask(api, jp_fetch, "Hello", thread="notebook:other.ipynb")
    assert [m["role"] for m in fake.requests[-1]["messages"]] == ["system", "user"]
    status, fresh = await api("agent", "threads", body={"key": THREAD})
    assert status == 200 and fresh["messages"] == []
    _, thread = await api("agent", "threads", params={"key": THREAD})
    assert thread["messages"] == []
    await _ask(api, jp_fetch, "Start over")
    assert [m["role"] for m in fake.requests[-1]["messages"]] == ["system", "user"]
    assert list((tmp_path / "runs" / "threads").glob("*.json.old"))  # kept aside, not deleted


async def test_a_long_thread_is_compacted_before_the_model_sees_it(
    api: Api, jp_fetch: Any, fake: FakeOpenAI, tmp_path: Path
) -> None:
    big = format_results([Result(id="r1", ok=True, summary="Read 1 file",
                                 details="x = 1\n" * 20_000)])  # fmt: skip
    earlier = [
        {"role": "user", "content": "Read data.py"},
        {"role": "assistant", "content": "OPERATOR_CMD\nversion: 1\nid: r1\naction: fs.read\n"
                                         "path: data.py\nEND_OPERATOR_CMD"},
        {"role": "user", "content": big},
        {"role": "assistant", "content": "It sets x."},
    ]  # fmt: skip
    from jupyter_operator.server.ask_threads import ThreadStore

    ThreadStore(tmp_path / "runs" / "threads").save("default", THREAD, earlier)
    fake.add("Still x.")
    ran = await _ask(api, jp_fetch, "What does it set?")
    notices = [e["message"] for e in ran["events"] if e["kind"] == "notice"]
    assert any("compacted" in n for n in notices), notices
    sent = json.dumps(fake.requests[-1]["messages"])
    assert len(sent) < len(big) // 2 and "Read data.py" in sent and "What does it set?" in sent


async def test_thread_keys_and_a_damaged_thread_file(api: Api, tmp_path: Path) -> None:
    for key in ("", "work/../x", "../../etc/passwd"):
        status, body = await api("agent", "threads", params={"key": key})
        assert status == 400, body
    status, body = await api("agent", "runs", body={"task": "x", "thread": "../x"})
    assert status == 400
    from jupyter_operator.server.ask_threads import ThreadStore

    store = ThreadStore(tmp_path / "runs" / "threads")
    store.save("default", THREAD, [])
    next(store.folder.glob("*.json")).write_text('{"messages": "no"}')
    status, body = await api("agent", "threads", params={"key": THREAD})
    assert status == 500 and body["error"]["code"] == "thread_unreadable"
    status, body = await api("agent", "threads", body={"key": THREAD})  # New thread still works
    assert status == 200 and body["messages"] == []
