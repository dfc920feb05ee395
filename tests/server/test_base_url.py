"""Behind a JupyterHub-style base URL both APIs answer under it (and only under it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from server_helpers import API, Api, write_cmd


@pytest.fixture
def jp_base_url() -> str:
    return "/hub/user/some%20one/"


async def test_rest_and_files_under_hub_prefix(api: Api, files, root: Path) -> None:
    _, scanned = await api("scan", body={"text": write_cmd("w", "hub.txt", "hub\n")})
    status, body = await api(
        "sessions", scanned["session"], "decide", body={"id": "w", "decision": "approve"}
    )
    assert status == 200 and body["item"]["status"] == "applied"
    client = await files()
    assert await client.read_text("hub.txt") == "hub\n"


async def test_not_served_at_the_root(
    http_server_client: Any, jp_auth_header: Any, root: Path
) -> None:
    path = f"/{'/'.join(API)}/workspaces"
    response = await http_server_client.fetch(path, headers=jp_auth_header, raise_error=False)
    assert response.code == 404
