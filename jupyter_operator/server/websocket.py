"""The WebSocket endpoint of the file API at ``{base_url}jupyter-operator/files``.

The handler derives from ``JupyterHandler`` (identity provider, host check) and tornado's
``WebSocketHandler`` through jupyter-server's ``WebSocketMixin`` (pings, origin check), and its
``get`` carries ``@ws_authenticated``: the same pattern as jupyter-server's own event socket.
Opening the socket needs ``read`` on ``contents``; each ``file_write`` also needs ``write``.
Messages on one connection are answered in order (tornado waits for ``on_message``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from jupyter_core.utils import ensure_async
from jupyter_server.auth.decorator import ws_authenticated
from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.base.websocket import WebSocketMixin
from jupyter_server.extension.handler import ExtensionHandlerMixin
from tornado import web
from tornado.websocket import WebSocketClosedError, WebSocketHandler

from .errors import FORBIDDEN, FileApiError
from .handlers import AUTH_RESOURCE

if TYPE_CHECKING:  # the file API (and pydantic) load with the first message
    from .fileapi import FileApi


class FileSocketHandler(ExtensionHandlerMixin, WebSocketMixin, WebSocketHandler, JupyterHandler):
    """One client connection to the file API."""

    auth_resource = AUTH_RESOURCE

    @property
    def file_api(self) -> FileApi:
        """The extension's file API service."""
        return self.extensionapp.file_api  # type: ignore[attr-defined,no-any-return]

    @property
    def max_message_size(self) -> int:
        """Frames above this size close the connection (tornado answers with code 1009)."""
        return int(self.extensionapp.max_message_size)  # type: ignore[attr-defined]

    async def pre_get(self) -> None:
        """Authorize the connection: reading the workspace's contents."""
        if not await self._allowed("read"):
            raise web.HTTPError(403)

    @ws_authenticated
    async def get(self, *args: Any, **kwargs: Any) -> None:
        """Upgrade to a WebSocket once the user is known and authorized."""
        await self.pre_get()
        result = super().get(*args, **kwargs)
        if result is not None:
            await result

    async def on_message(self, message: str | bytes) -> None:
        """Answer one request; failures become ``error`` messages and the socket stays open."""
        from .fileapi import FileWrite, error_message, parse

        request = None
        try:
            request = parse(message)
            if isinstance(request, FileWrite) and not await self._allowed("write"):
                raise FileApiError(FORBIDDEN, "This user may not write files")
            reply = await self.file_api.handle(request)
        except FileApiError as exc:
            reply = error_message(exc, request)
        try:
            await self.write_message(json.dumps(reply))
        except WebSocketClosedError:
            self.log.debug("file API client went away before its reply")

    async def _allowed(self, action: str) -> bool:
        user = self.current_user
        if not user:
            return False
        return bool(
            await ensure_async(self.authorizer.is_authorized(self, user, action, AUTH_RESOURCE))
        )
