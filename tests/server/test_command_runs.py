"""String commands through the server: ``POST scan`` with ``dialect=commands`` (or detected),
one item per request, decisions in order, and the explicit answer after a restart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from server_helpers import Api, write_cmd
from support.sandboxing import needs_sandbox, sandbox_here

from jupyter_operator.server.command_runs import ENDED
from jupyter_operator.server.errors import ApiError
from jupyter_operator.server.sessions import SessionService
from jupyter_operator.server.workspaces import WorkspaceRegistry
from jupyter_operator.workspace.sessionstore import SessionStore

SCRIPT = "/ls\n/write notes.md\n# Notes\n/end\n/open notes.md\n/nope"


async def test_a_script_is_detected_and_answered_one_item_per_request(
    api: Api, root: Path
) -> None:
    status, body = await api("scan", body={"text": SCRIPT})
    assert status == 200 and body["dialect"] == "commands" and body["done"] is False
    listing, write, opened, nope = body["items"]
    assert [i["index"] for i in body["items"]] == [0, 1, 2, 3]
    assert listing["status"] == "done" and listing["action"] == "/ls"
    assert listing["details"].split("\n")[1] == "Listing ./"
    assert write["status"] == "pending" and write["kind"] == "mutation"
    assert "+# Notes" in write["diff"]
    assert opened["status"] == nope["status"] == "waiting"
    assert "waiting for approval" in body["results_text"]
    status, body = await api(
        "sessions", body["session"], "decide", body={"id": write["id"], "decision": "approve"}
    )
    assert status == 200 and body["done"] is True
    assert (root / "notes.md").read_text() == "# Notes\n"
    write, (opened, nope) = body["item"], body["items"]  # the listing is sent once, not again
    assert write["status"] == "applied"
    assert "Written: notes.md (8 bytes, 1 line)" in write["details"]
    assert opened["status"] == "done"
    assert opened["details"].endswith("Opened notes.md\n---\n# Notes")
    assert nope["status"] == "error" and nope["error_code"] == "UNKNOWN_COMMAND"
    assert body["results_text"].count("re: [") == 4
    assert str(root) not in json.dumps(body)


async def test_the_dialect_can_be_chosen_and_rejection_goes_on(api: Api, root: Path) -> None:
    # Without the choice, a script starting with a bash line is not detected as commands.
    text = "touch x.txt\n/ls"
    status, body = await api("scan", body={"text": text, "dialect": "commands"})
    assert status == 200 and body["dialect"] == "commands"
    bash, listing = body["items"]
    if not sandbox_here():
        assert bash["error_code"] == "BASH_UNAVAILABLE" and listing["status"] == "done"
        return
    assert bash["kind"] == "shell" and bash["status"] == "pending"
    assert bash["shell"]["command"] == "touch x.txt" and bash["shell"]["cwd"] == "."
    status, body = await api(
        "sessions", body["session"], "decide-all", body={"decision": "reject", "reason": "no"}
    )
    assert status == 200 and body["done"] is True and not (root / "x.txt").exists()
    assert "ERROR(REJECTED): the command was not run. Reason: no" in body["results_text"]


@needs_sandbox
async def test_an_approved_bash_line_runs_in_the_sandbox(api: Api, root: Path) -> None:
    (root / "docs").mkdir()
    (root / "docs" / "a.md").write_text("A\n")
    status, body = await api("scan", body={"text": "cd docs\ncat a.md", "dialect": "commands"})
    cd, cat = body["items"]
    assert cd["details"].endswith("exit: 0 | cwd: docs") and cat["shell"]["cwd"] == "docs"
    status, body = await api(
        "sessions", body["session"], "decide", body={"id": cat["id"], "decision": "approve"}
    )
    assert status == 200 and body["item"]["status"] == "done"
    assert body["results_text"].endswith("exit: 0 | cwd: docs\n---\nA")


async def test_a_command_session_says_it_ended_after_a_restart(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()

    def service() -> SessionService:
        registry = WorkspaceRegistry({"default": root}, journal_dir=tmp_path / "journal")
        return SessionService(registry, store=SessionStore(tmp_path / "journal" / "sessions"))

    first = service()
    scanned = await first.scan("/write a.md\nA\n/end", dialect="commands")
    assert scanned["items"][0]["status"] == "pending"
    first.close()
    await first.drain()
    first.registry.close()

    second = service()
    try:
        with pytest.raises(ApiError) as caught:
            await second.get(scanned["session"])
        assert (caught.value.status, caught.value.code, caught.value.message) == (
            410, "session_ended", ENDED,
        )  # fmt: skip
        with pytest.raises(ApiError, match="kept in the server's memory"):
            await second.decide(scanned["session"], scanned["items"][0]["id"], "approve")
        assert not (root / "a.md").exists()
        assert (await second.open_sessions())["sessions"] == []
        # A client's first waiting call after the restart looks for the session it had among
        # the saved ones: the ended command session's marker is passed over, not its answer.
        joined = await second.scan(write_cmd("c1", "b.md", "B\n"), label="agent 1",
                                   group="agent")  # fmt: skip
        assert joined["items"][0]["status"] == "pending" and not joined["done"]
    finally:
        second.close()
        await second.drain()
        second.registry.close()


async def test_waiting_requests_carry_the_id_they_are_answered_under(api: Api) -> None:
    _, body = await api("scan", body={"text": "/write a.md\nA\n/end\n/ls\n[mine] /ls"})
    waiting = [(i["id"], i["status"]) for i in body["items"][1:]]
    assert [s for _, s in waiting] == ["waiting", "waiting"] and waiting[1][0] == "mine"
    first = body["items"][0]["id"]
    _, body = await api(
        "sessions", body["session"], "decide", body={"id": first, "decision": "reject"}
    )
    assert [(i["id"], i["status"]) for i in body["items"]] == [
        (waiting[0][0], "done"), ("mine", "done"),
    ]  # fmt: skip
