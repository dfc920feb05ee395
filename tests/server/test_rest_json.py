"""The REST API with JSON operations: the scan's ``dialect``, shell items, events as results."""

from __future__ import annotations

import json
from pathlib import Path

from server_helpers import Api

from jupyter_operator.dialects.json_ops import parse_events

BATCH = json.dumps(
    [
        {"type": "createFile", "path": "a.txt", "content": "A"},
        {"type": "shell", "command": "cat a.txt", "cwd": ".", "env": {"X": "1"}},
    ]
)


async def test_scan_detects_json_and_decides_in_order(api: Api, root: Path) -> None:
    status, body = await api("scan", body={"text": BATCH})
    assert status == 200 and body["dialect"] == "json"
    create, shell = body["items"]
    assert create["status"] == "pending" and "+A" in create["diff"]
    assert shell["status"] == "waiting" and shell["shell"]["command"] == "cat a.txt"
    assert shell["shell"]["env"] == {"X": "1"} and shell["shell"]["cwd"] == "."
    assert parse_events(body["results_text"])[0]["type"] == "approvalRequired"
    session = body["session"]
    status, body = await api(
        "sessions", session, "decide", body={"id": "createFile-1", "decision": "approve"}
    )
    assert status == 200 and (root / "a.txt").read_text() == "A"
    status, body = await api(
        "sessions", session, "decide", body={"id": "shell-1", "decision": "approve"}
    )
    assert status == 200 and body["done"] is True
    assert body["item"]["event"]["stdout"] == "A" and body["item"]["shell"]["exit_code"] == 0
    assert str(root) not in json.dumps(body)


async def test_scan_dialect_forces_the_parser(api: Api, root: Path) -> None:
    status, body = await api("scan", body={"text": BATCH, "dialect": "operator"})
    assert status == 200 and body["dialect"] == "operator" and body["items"] == []
    status, body = await api("scan", body={"text": "prose", "dialect": "json"})
    assert status == 200 and body["items"][0]["error_code"] == "ERR_INVALID_JSON"
    status, body = await api("scan", body={"text": BATCH, "dialect": "yaml"})
    assert status == 400
