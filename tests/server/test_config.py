"""Configuration: several named workspaces, a policy, protected paths; unexpected failures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from server_helpers import Api, write_cmd

from jupyter_operator.server.sessions import SessionService


@pytest.fixture
def second_root(tmp_path: Path) -> Path:
    path = tmp_path / "second"
    path.mkdir()
    return path


@pytest.fixture
def operator_config(jp_root_dir: Path, second_root: Path) -> dict[str, Any]:
    return {
        "workspaces": {"main": str(jp_root_dir), "second": str(second_root)},
        "policy": "auto=reads,writes deny=deletes",
        "protected_paths": ["secrets"],
    }


async def test_named_workspaces_are_listed_in_order(api: Api) -> None:
    status, body = await api("workspaces")
    # "second" lies outside the server's root: its folder is never shown, not even in part.
    assert status == 200 and body == {
        "workspaces": [{"name": "main", "path": "."}, {"name": "second", "path": None}]
    }


async def test_default_name_is_not_configured_here(api: Api) -> None:
    status, body = await api("scan", body={"text": write_cmd("w", "a.txt", "x\n")})
    assert status == 404 and body["error"]["code"] == "workspace_not_found"


async def test_policy_applies_writes_and_denies_deletes(api: Api, second_root: Path) -> None:
    (second_root / "old.txt").write_text("old\n")
    reply = write_cmd("w", "new.txt", "auto\n")
    reply += "OPERATOR_CMD\nversion: 1\nid: d\naction: fs.delete\npath: old.txt\nEND_OPERATOR_CMD\n"
    status, body = await api("scan", body={"text": reply, "workspace": "second"})
    assert status == 200
    assert [i["status"] for i in body["items"]] == ["applied", "denied"]
    assert body["done"] is True
    assert (second_root / "new.txt").read_text() == "auto\n"
    assert (second_root / "old.txt").exists()


async def test_protected_paths_apply_to_both_apis(api: Api, files, second_root: Path) -> None:
    status, body = await api(
        "scan", body={"text": write_cmd("w", "secrets/key.txt", "k\n"), "workspace": "second"}
    )
    assert status == 200 and body["items"][0]["error_code"] == "ERR_PROTECTED_PATH"
    client = await files()
    reply = await client.write_text("secrets/key.txt", "k\n", workspace="second")
    assert reply["code"] == "path_escape"
    assert not (second_root / "secrets").exists()


async def test_file_api_routes_by_workspace_name(files, jp_root_dir: Path, second_root: Path):
    client = await files()
    await client.write_text("where.txt", "main\n", workspace="main")
    await client.write_text("where.txt", "second\n", workspace="second")
    assert (jp_root_dir / "where.txt").read_text() == "main\n"
    assert (second_root / "where.txt").read_text() == "second\n"
    assert await client.read_text("where.txt", workspace="second") == "second\n"


async def test_unexpected_failure_is_a_bare_500(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("/very/secret/host/path exploded")

    monkeypatch.setattr(SessionService, "scan", broken)
    status, body = await api("scan", body={"text": "x", "workspace": "main"})
    assert status == 500
    assert body == {"error": {"code": "internal_error", "message": "Internal Server Error"}}
