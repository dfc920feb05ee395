"""Fixtures for the server extension: a real in-process jupyter-server with auth switched on.

The server runs behind pytest-jupyter's deliberately awkward ``base_url`` (``/a%40b/``), so
any URL joined by hand in the extension breaks these tests. Unauthenticated access is off, so
a handler without its auth decorators fails to serve instead of serving everyone.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from server_helpers import API, FILES, Api, FileClient, server_app
from tornado.httpclient import HTTPClientError, HTTPResponse


@pytest.fixture
def journal_dir(tmp_path: Path) -> Path:
    """The undo journal, outside the served root (never the user's real data dir)."""
    path = tmp_path / "journal"
    path.mkdir()
    return path


@pytest.fixture
def operator_config() -> dict[str, Any]:
    """Extra ``OperatorExtension`` settings; override in a module or parametrize indirectly."""
    return {}


@pytest.fixture
def jp_server_config(journal_dir: Path, operator_config: dict[str, Any]) -> dict[str, Any]:
    """Enable the extension with unauthenticated access off."""
    return {
        "ServerApp": server_app(),
        "OperatorExtension": {"journal_dir": str(journal_dir), **operator_config},
    }


@pytest.fixture
def root(jp_root_dir: Path, jp_serverapp: Any) -> Path:
    """The ``default`` workspace (the server's root_dir), with the server already running."""
    return jp_root_dir


@pytest.fixture
def api(jp_fetch: Any, root: Path) -> Api:
    """Call the REST API: ``await api("scan", body={...})`` -> ``(status, json)``; never raises."""

    async def call(
        *parts: str, body: Any = None, method: str | None = None, **kwargs: Any
    ) -> tuple[int, dict[str, Any]]:
        verb = method or ("GET" if body is None else "POST")
        if body is not None and not isinstance(body, (str, bytes)):
            body = json.dumps(body)
        try:
            response: HTTPResponse = await jp_fetch(*API, *parts, method=verb, body=body, **kwargs)
        except HTTPClientError as exc:
            assert exc.response is not None, exc
            response = exc.response
        assert response.headers["Content-Type"].startswith("application/json")
        return response.code, json.loads(response.body)

    return call


@pytest.fixture
def files(jp_ws_fetch: Any, root: Path) -> Callable[[], Awaitable[FileClient]]:
    """Open file API connections (authenticated with the server's token)."""
    opened: list[FileClient] = []

    async def connect(**kwargs: Any) -> FileClient:
        client = FileClient(await jp_ws_fetch(*FILES, **kwargs))
        opened.append(client)
        return client

    yield connect
    for client in opened:
        client.close()


@pytest.fixture
def mcp_url(jp_http_port: int, jp_base_url: str, root: Path, jp_fetch: Any) -> str:
    """The MCP endpoint of the running test server (``jp_fetch`` makes it listen)."""
    return f"http://127.0.0.1:{jp_http_port}{jp_base_url}jupyter-operator/mcp"


@pytest.fixture
def token(jp_serverapp: Any) -> str:
    """The running server's token (what ``jupyter server list`` shows)."""
    return str(jp_serverapp.identity_provider.token)
