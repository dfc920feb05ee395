"""``POST scan`` with ``"dialect": "commands"``: a string-commands script as a REST session."""

from __future__ import annotations

import json
from pathlib import Path

from server_helpers import Api

SCRIPT = "/ls\n/write a.md\none\n/end\n/append a.md\ntwo\n/end\n/open a.md"


async def test_commands_scan_decide_and_results(api: Api, root: Path) -> None:
    status, body = await api("scan", body={"text": SCRIPT, "dialect": "commands"})
    assert status == 200 and body["done"] is False
    [item] = body["items"]
    assert (item["index"], item["status"], item["action"]) == (1, "pending", "fs.write")
    assert "+one" in item["diff"] and not (root / "a.md").exists()
    assert body["results_text"].split("\n")[1] == "Listing ./"
    assert body["results_text"].endswith(
        "Proposed: write a.md (new file, +1 -0 lines); waiting for approval"
    )

    session = body["session"]
    status, body = await api(
        "sessions", session, "decide", body={"id": item["id"], "decision": "approve"}
    )
    assert status == 200 and [i["status"] for i in body["items"]] == ["applied", "pending"]
    status, body = await api("sessions", session, "decide-all", body={"decision": "approve"})
    assert status == 200 and body["done"] is True
    assert (root / "a.md").read_text(encoding="utf-8") == "one\ntwo\n"
    assert body["results_text"].endswith("Opened a.md\n---\none\ntwo")
    assert str(root) not in body["results_text"]


async def test_commands_reject_all_goes_through_the_script(api: Api, root: Path) -> None:
    _, body = await api("scan", body={"text": SCRIPT, "dialect": "commands"})
    status, body = await api("sessions", body["session"], "decide-all", body={"decision": "reject"})
    assert status == 200 and body["done"] is True
    assert [i["status"] for i in body["items"]] == ["rejected", "rejected"]
    assert body["results_text"].endswith("ERROR(NOT_FOUND): File not found: a.md")


async def test_unknown_dialect_is_a_400(api: Api) -> None:
    status, body = await api("scan", body={"text": "/ls", "dialect": "klingon"})
    assert status == 400 and "dialect" in json.dumps(body["error"])
