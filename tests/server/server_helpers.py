"""Helpers for the server tests: OPERATOR_CMD builders and a WebSocket file API client."""

from __future__ import annotations

import base64
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from support.replies import b64, block, write

API = ("jupyter-operator", "api")
FILES = ("jupyter-operator", "files")

#: ``await api("scan", body={...})`` -> ``(status, json)``
Api = Callable[..., Awaitable[tuple[int, dict[str, Any]]]]


class FileClient:
    """A WebSocket file API client: ``await client.request("file_read", path="a.txt")``."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection

    async def send(self, message: Any) -> dict[str, Any]:
        """Send a frame (a dict is JSON-encoded) and return the decoded reply."""
        text = message if isinstance(message, (str, bytes)) else json.dumps(message)
        await self.connection.write_message(text, binary=isinstance(text, bytes))
        reply = await self.connection.read_message()
        assert reply is not None, "the server closed the connection"
        return json.loads(reply)

    async def request(self, type: str, **fields: Any) -> dict[str, Any]:
        """Send one request of the given type."""
        return await self.send({"type": type, **fields})

    async def write_text(self, path: str, text: str, **fields: Any) -> dict[str, Any]:
        """``file_write`` of UTF-8 text."""
        content = base64.b64encode(text.encode("utf-8")).decode("ascii")
        return await self.request("file_write", path=path, content_b64=content, **fields)

    async def read_text(self, path: str, **fields: Any) -> str:
        """``file_read`` that must succeed; returns the decoded text."""
        reply = await self.request("file_read", path=path, **fields)
        assert reply["type"] == "file_read_result", reply
        return base64.b64decode(reply["content_b64"]).decode("utf-8")

    def close(self) -> None:
        """Close the socket."""
        self.connection.close()


def cmd(id: str, action: str, **fields: str) -> str:
    """One ``OPERATOR_CMD`` block ending with a newline (``support.replies.block``)."""
    return block(id, action, **fields) + "\n"


def write_cmd(id: str, path: str, text: str) -> str:
    """An ``fs.write`` block with base64 content, ending with a newline."""
    return write(id, path, text) + "\n"


__all__ = ["API", "FILES", "Api", "FileClient", "b64", "cmd", "server_app", "write_cmd"]


def server_app(**settings: Any) -> dict[str, Any]:
    """The ``ServerApp`` settings of every server test: the extension enabled, unauthenticated
    access off (a handler without its auth decorators then fails instead of serving everyone)."""
    return {"jpserver_extensions": {"jupyter_operator": True},
            "allow_unauthenticated_access": False, **settings}  # fmt: skip


def agent_server_config(journal_dir: Path, fake: Any, transcripts_dir: Path) -> dict[str, Any]:
    """``jp_server_config`` for Ask mode: the extension against the loopback model ``fake``."""
    return {
        "ServerApp": server_app(),
        "OperatorExtension": {"journal_dir": str(journal_dir)},
        "OperatorAgent": {
            "model": "fake-model", "base_url": fake.url, "api_key": fake.key,
            "transcripts_dir": str(transcripts_dir),
        },
    }  # fmt: skip
