"""Ask mode keeps the run transcripts out of the model's reach, wherever they are configured."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from server_helpers import API, Api, agent_server_config
from support.fake_openai import FakeOpenAI
from support.replies import b64, block


@pytest.fixture
def jp_server_config(journal_dir: Path, fake: FakeOpenAI, jp_root_dir: Path) -> dict[str, Any]:
    # Configured inside the served folder, of all places.
    return agent_server_config(journal_dir, fake, jp_root_dir / "runs")


async def test_the_model_cannot_reach_the_transcripts(
    api: Api, jp_fetch: Any, root: Path, fake: FakeOpenAI
) -> None:
    fake.add(
        block("l1", "fs.list", path="runs") + "\n"
        + block("w1", "fs.write", path="runs/forged.jsonl", content_b64=b64("{}")),
        "Done.",
    )  # fmt: skip
    status, started = await api("agent", "runs", body={"task": "look"})
    assert status == 200, started
    response = await jp_fetch(*API, "agent", "runs", started["run"], "events", request_timeout=60)
    events = [json.loads(line[6:]) for line in response.body.decode().splitlines()
              if line.startswith("data: ")]  # fmt: skip
    planned = next(e for e in events if e["kind"] == "planned")
    statuses = {i["id"]: (i["status"], i["error_code"]) for i in planned["items"]}
    assert statuses == {"l1": ("failed", "ERR_PROTECTED_PATH"),
                        "w1": ("failed", "ERR_PROTECTED_PATH")}  # fmt: skip
    assert [p.suffix for p in (root / "runs").iterdir()] == [".jsonl"]  # only the real one
