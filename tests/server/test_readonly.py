"""A read-only user (hub RBAC): reads work, every change is refused, nothing is written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from jupyter_server.auth.authorizer import Authorizer
from server_helpers import Api, server_app, write_cmd


class ReadOnlyAuthorizer(Authorizer):
    """Allows ``read`` on every resource and nothing else."""

    def is_authorized(self, handler: Any, user: Any, action: str, resource: str) -> bool:
        return action == "read"


@pytest.fixture
def jp_server_config(journal_dir: Path) -> dict[str, Any]:
    return {
        "ServerApp": server_app(authorizer_class=ReadOnlyAuthorizer),
        "OperatorExtension": {"journal_dir": str(journal_dir)},
    }


async def test_reads_allowed_changes_refused(api: Api, root: Path) -> None:
    assert (await api("workspaces"))[0] == 200
    assert (await api("history"))[0] == 200
    status, body = await api("scan", body={"text": write_cmd("w", "a.txt", "x\n")})
    assert status == 403 and body["error"]["code"] == "forbidden"
    status, body = await api("undo", body={})
    assert status == 403
    assert (await api("redo", body={}))[0] == 403
    assert (await api("sessions"))[0] == 200
    assert not (root / "a.txt").exists()


async def test_file_api_reads_but_does_not_write(files, root: Path) -> None:
    (root / "r.txt").write_text("readable")
    client = await files()
    assert await client.read_text("r.txt") == "readable"
    reply = await client.write_text("r.txt", "changed")
    assert reply["type"] == "error" and reply["code"] == "forbidden"
    assert (root / "r.txt").read_text() == "readable"
