"""Extension rules of the WebSocket file API: unknown fields, ``request_id``, ``capabilities``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from server_helpers import b64


async def test_unknown_fields_are_ignored(files, root: Path) -> None:
    (root / "a.txt").write_text("a")
    client = await files()
    reply = await client.request(
        "file_read", path="a.txt", root="/", client={"name": "v1.2 client"}, flags=[1, 2]
    )
    assert reply["type"] == "file_read_result" and reply["content_b64"] == b64("a")
    assert "root" not in reply and "client" not in reply, "unknown fields are not echoed"
    reply = await client.write_text("b.txt", "b", mode="0777", overwrite=False)
    assert reply["type"] == "file_write_result"
    assert (root / "b.txt").read_text() == "b"
    assert (root / "b.txt").stat().st_mode & 0o777 != 0o777, "an unknown field changes nothing"


@pytest.mark.parametrize("request_id", ["req-1", 42, 0, ""])
async def test_request_id_is_echoed_in_results_and_errors(
    files, root: Path, request_id: object
) -> None:
    (root / "a.txt").write_text("a")
    client = await files()
    replies = [
        await client.request("file_list", request_id=request_id),
        await client.request("file_read", path="a.txt", request_id=request_id),
        await client.write_text("c.txt", "c", request_id=request_id),
        await client.request("capabilities", request_id=request_id),
        await client.request("file_read", path="missing.txt", request_id=request_id),
        await client.request("file_read", path="../x", request_id=request_id),
        await client.request("file_read", path="a.txt", workspace="nope", request_id=request_id),
        # A malformed request still gets its id back when the id itself is valid.
        await client.request("file_read", path=5, request_id=request_id),
        await client.request("file_move", path="a.txt", request_id=request_id),
    ]
    assert [r["type"] for r in replies[:4]] == [
        "file_list_result", "file_read_result", "file_write_result", "capabilities_result",
    ]  # fmt: skip
    assert [r.get("code") for r in replies[4:]] == [
        "file_not_found", "path_escape", "workspace_not_found", "bad_request", "bad_request",
    ]  # fmt: skip
    assert all(r["request_id"] == request_id for r in replies), replies


async def test_no_request_id_no_echo(files, root: Path) -> None:
    client = await files()
    for reply in (
        await client.request("file_list"),
        await client.request("file_read", path="missing.txt"),
        await client.request("capabilities"),
        await client.send("not json"),
    ):
        assert "request_id" not in reply, reply


@pytest.mark.parametrize(
    "message",
    [
        {"type": "file_read", "path": "a.txt", "request_id": [1]},
        {"type": "file_read", "path": "a.txt", "request_id": {"n": 1}},
        {"type": "file_read", "path": "a.txt", "request_id": True},
        {"type": "file_read", "path": "a.txt", "request_id": 1.5},
        # The seed's own fields keep their types.
        {"type": "file_read", "path": 5, "request_id": "r"},
        {"type": "file_list", "workspace": ["default"]},
        {"type": "file_list", "project": 1},
        {"type": "file_write", "path": "a.txt", "content_b64": None},
        {"type": "capabilities", "request_id": False, "protocol": 1.3},
    ],
)
async def test_wrong_types_stay_bad_request(files, root: Path, message: dict) -> None:
    (root / "a.txt").write_text("a")
    client = await files()
    reply = await client.send(message)
    assert reply["type"] == "error" and reply["code"] == "bad_request", reply
    if isinstance(message.get("request_id"), str):
        assert reply["request_id"] == message["request_id"]
    else:
        assert "request_id" not in reply
    assert (root / "a.txt").read_text() == "a"


async def test_capabilities(files, root: Path) -> None:
    client = await files()
    # Sent first on a fresh connection: the reply is the first frame, so the server sent
    # nothing of its own before it.
    reply = await client.send(json.dumps({"type": "capabilities", "request_id": "c"}))
    assert reply == {
        "type": "capabilities_result",
        "protocol": "1.3",
        "capabilities": ["file_operations", "request_id"],
        "workspaces": ["default"],
        "limits": {"max_file_size": 1_048_576, "max_path_length": 4096},
        "request_id": "c",
    }
    assert str(root) not in json.dumps(reply), "names only, never roots"


async def test_the_server_sends_nothing_unasked(files, root: Path) -> None:
    client = await files()
    # The first frame a fresh connection receives is the answer to its first request.
    assert (await client.request("file_list", request_id="first"))["request_id"] == "first"
    assert (await client.request("file_list", request_id="second"))["request_id"] == "second"
