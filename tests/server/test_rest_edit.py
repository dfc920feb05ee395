"""Edit before approve over REST: the content endpoint and ``decide`` with ``content``."""

from __future__ import annotations

import json
from pathlib import Path

from server_helpers import Api, cmd, write_cmd

from jupyter_operator.protocol import parse_results


async def test_an_edited_approval_writes_the_edit_and_the_results_say_so(
    api: Api, root: Path
) -> None:
    (root / "app.py").write_text("x = 1\n")
    _, scanned = await api("scan", body={"text": write_cmd("w1", "app.py", "x = 2\n")})
    session = scanned["session"]
    [item] = scanned["items"]
    assert item["editable"] is True and item["edited"] is False
    status, content = await api("sessions", session, "items", "w1", "content")
    assert status == 200
    assert content == {"id": "w1", "path": "app.py", "editable": True,
                       "proposed": "x = 2\n", "original": "x = 1\n"}  # fmt: skip
    body = {"id": "w1", "decision": "approve", "content": "x = 2\ny = 3\n"}
    status, answer = await api("sessions", session, "decide", body=body)
    assert status == 200, answer
    assert (root / "app.py").read_bytes() == b"x = 2\ny = 3\n"
    decided = answer["item"]
    assert decided["status"] == "applied" and decided["edited"] is True
    assert decided["editable"] is False and "+y = 3" in decided["diff"]
    [result] = parse_results(answer["results_text"])
    assert result.ok and "the person edited the change" in result.summary
    assert result.details == (
        "--- proposed/app.py\n+++ written/app.py\n@@ -1 +1,2 @@\n x = 2\n+y = 3\n"
    )
    # A reload shows the same (the session is saved with its edit).
    _, view = await api("sessions", session)
    assert view["items"][0]["edited"] is True and view["results_text"] == answer["results_text"]


async def test_a_refused_edit_leaves_the_item_pending(api: Api, root: Path) -> None:
    nb = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    _, scanned = await api("scan", body={"text": write_cmd("w1", "n.ipynb", json.dumps(nb))})
    session = scanned["session"]
    body = {"id": "w1", "decision": "approve", "content": "{not a notebook"}
    status, answer = await api("sessions", session, "decide", body=body)
    assert status == 400 and answer["error"]["code"] == "bad_edit"
    assert "notebook" in answer["error"]["message"] and str(root) not in answer["error"]["message"]
    _, view = await api("sessions", session)
    assert view["items"][0]["status"] == "pending" and not (root / "n.ipynb").exists()


async def test_content_only_goes_with_approve_and_with_new_content(api: Api, root: Path) -> None:
    (root / "old.txt").write_text("bye\n")
    reply = cmd("d1", "fs.delete", path="old.txt") + write_cmd("w1", "a.txt", "A\n")
    _, scanned = await api("scan", body={"text": reply})
    session = scanned["session"]
    refuse = {"id": "w1", "decision": "reject", "content": "B\n"}
    status, answer = await api("sessions", session, "decide", body=refuse)
    assert status == 400 and answer["error"]["code"] == "bad_request"
    status, content = await api("sessions", session, "items", "d1", "content")
    assert status == 200 and content["proposed"] is None and content["editable"] is False
    edit_delete = {"id": "d1", "decision": "approve", "content": "x"}
    status, answer = await api("sessions", session, "decide", body=edit_delete)
    assert status == 400 and answer["error"]["code"] == "bad_edit"
    status, answer = await api("sessions", session, "items", "nope", "content")
    assert status == 404 and answer["error"]["code"] == "item_not_found"
    assert (root / "old.txt").exists() and not (root / "a.txt").exists()


async def test_json_operations_take_an_edit_too(api: Api, root: Path) -> None:
    ops = json.dumps([{"type": "createFile", "path": "a.txt", "content": "A\n"}])
    _, scanned = await api("scan", body={"text": ops, "dialect": "json"})
    [item] = scanned["items"]
    assert item["editable"] is True
    body = {"id": item["id"], "decision": "approve", "content": "B\n"}
    status, answer = await api("sessions", scanned["session"], "decide", body=body)
    assert status == 200 and answer["item"]["edited"] is True
    assert (root / "a.txt").read_bytes() == b"B\n"
    event = answer["item"]["event"]
    assert event["editedByPerson"] is True and "+B" in event["editDiff"]
    assert '"editedByPerson": true' in answer["results_text"]


async def test_string_command_changes_offer_no_edit(api: Api, root: Path) -> None:
    _, scanned = await api("scan", body={"text": "/write notes.md\n# Notes\n/end"})
    assert scanned["dialect"] == "commands"
    [write] = scanned["items"]
    assert write["status"] == "pending" and write["editable"] is False
    status, content = await api("sessions", scanned["session"], "items", write["id"], "content")
    assert status == 200 and content["editable"] is False
    body = {"id": write["id"], "decision": "approve", "content": "# Mine\n"}
    status, answer = await api("sessions", scanned["session"], "decide", body=body)
    assert status == 400 and answer["error"]["code"] == "bad_edit"
    assert not (root / "notes.md").exists()
