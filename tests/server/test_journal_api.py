"""The server and the undo journal: out of reach of the file API, file API writes journaled.

Here the journal is the *default* one (no ``journal_dir`` configured) and lives inside the served
root, as it does when the server's root is the home folder: every request that names it must be
refused.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from server_helpers import b64, server_app, write_cmd

from jupyter_operator.workspace.journal_paths import root_key


@pytest.fixture
def journal_dir(jp_root_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = jp_root_dir / ".local" / "share" / "journal"
    path.mkdir(parents=True)
    monkeypatch.setenv("JUPYTER_OPERATOR_JOURNAL_DIR", str(path))
    return path


@pytest.fixture
def jp_server_config(journal_dir: Path) -> dict[str, Any]:
    """The extension with its default journal folder (no ``journal_dir`` setting)."""
    return {
        "ServerApp": server_app(),
    }


async def test_the_file_api_cannot_reach_the_journal(files, api, root: Path, journal_dir) -> None:
    (root / "a.txt").write_text("one\n")
    status, _ = await api("scan", body={"text": write_cmd("w1", "a.txt", "two\n")})
    assert status == 200
    folder = journal_dir / root_key(root)
    client = await files()
    await client.write_text("seed.txt", "x")  # makes the journal of this workspace exist
    rel = folder.relative_to(root).as_posix()
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    forged = json.dumps({"entry": {"entry_id": "j1", "path": "../../etc/passwd"}}) + "\n"
    for path in (f"{rel}/entries.jsonl", f"{rel}/counter", ".local/share/journal/new.txt"):
        reply = await client.request("file_write", path=path, content_b64=b64(forged))
        assert reply["type"] == "error" and reply["code"] == "path_escape", reply
        reply = await client.request("file_read", path=path)
        assert reply["type"] == "error" and reply["code"] == "path_escape", reply
    reply = await client.request("file_list", path=".local/share/journal")
    assert reply["code"] == "path_escape"
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before
    assert not (journal_dir / "new.txt").exists()


async def test_file_api_writes_are_journaled_and_undoable(files, api, root: Path) -> None:
    (root / "notes.txt").write_text("mine\n")
    client = await files()
    reply = await client.write_text("notes.txt", "theirs\n", project="p")
    assert reply == {"type": "file_write_result", "project": "p", "workspace": "default",
                     "path": "notes.txt", "success": True, "size": 7}  # fmt: skip
    status, body = await api("history", params={"workspace": "default"})
    assert status == 200
    [entry] = body["history"]
    assert (entry["action"], entry["path"], entry["decided_by"]) == (
        "file_write", "notes.txt", "person"
    )
    assert "-mine" in entry["diff"] and "+theirs" in entry["diff"]
    status, body = await api("undo", body={"workspace": "default", "id": entry["entry_id"]})
    assert status == 200, body
    assert (root / "notes.txt").read_text() == "mine\n"


async def test_file_api_writes_of_notebooks_are_validated(files, root: Path) -> None:
    client = await files()
    for path in ("nb.ipynb", "nb.ipynb/", "sub/NB.IPYNB/."):
        reply = await client.request("file_write", path=path, content_b64=b64("not a notebook"))
        assert reply["type"] == "error", (path, reply)
    assert not (root / "nb.ipynb").exists() and not (root / "sub").exists()


async def test_a_damaged_journal_is_a_clear_error_not_a_500(files, api, root: Path,
                                                            journal_dir: Path) -> None:  # fmt: skip
    client = await files()
    await client.write_text("a.txt", "1")
    (journal_dir / root_key(root) / "entries.jsonl").write_text("garbage\n{}\n")
    status, body = await api("history", params={"workspace": "default"})
    assert status == 409 and body["error"]["code"] == "ERR_JOURNAL_CORRUPT"
    status, body = await api("undo", body={"workspace": "default"})
    assert status == 409 and body["error"]["code"] == "ERR_JOURNAL_CORRUPT"
    (journal_dir / root_key(root) / "counter").write_text("many")
    reply = await client.write_text("a.txt", "2")
    assert reply["type"] == "error" and reply["code"] == "io_error"
    assert "damaged" in reply["message"] and str(root) not in reply["message"]
    assert (root / "a.txt").read_text() == "1"


async def test_undo_through_the_api_updates_the_session(api, root: Path) -> None:
    _, scanned = await api("scan", body={"text": write_cmd("w1", "a.txt", "two\n")})
    session = scanned["session"]
    await api("sessions", session, "decide", body={"id": "w1", "decision": "approve"})
    status, body = await api("undo", body={"workspace": "default"})
    assert status == 200 and body["entry"]["undone"] is True
    _, state = await api("sessions", session)
    [item] = state["items"]
    assert item["status"] == "undone" and item["ok"] is False
    assert item["error_code"] == "ERR_UNDONE" and item["entry_id"] == "j1"
    assert "Undone (ERR_UNDONE)" in state["results_text"]
    assert not (root / "a.txt").exists()
