"""``{base_url}jupyter-operator/mcp``: the MCP endpoint, Streamable HTTP, behind Jupyter's auth.

The bridge is one tornado handler that hands the request to the SDK's ASGI app
(``StreamableHTTPSessionManager.handle_request``): the scope is built from tornado's request,
``receive`` gives the body read (and bounded) by tornado, and ``send`` writes status, headers and
each body chunk, flushing so server-sent events reach the client as they are made. Everything
of the protocol (both protocol eras, JSON-RPC, sessions, SSE framing, content negotiation) stays
the SDK's; what is Jupyter's stays Jupyter's: authentication (token or cookie), authorization,
the body limit, and the Origin check the MCP spec asks for against DNS rebinding (a browser page
of another origin gets 403, whatever credential it carries).
"""

from __future__ import annotations

import asyncio
import hmac
from typing import Any
from urllib.parse import urlparse

from jupyter_server.auth.decorator import authorized
from jupyter_server.utils import origin_matches_pat
from tornado import web

from .handlers import OperatorPostHandler
from .mcp_service import USER_KEY

#: Response headers the SDK sets that tornado computes itself.
HOP_HEADERS = frozenset({"content-length", "transfer-encoding", "connection"})


class McpHandler(OperatorPostHandler):
    """``GET|POST|DELETE jupyter-operator/mcp``: the SDK's Streamable HTTP transport."""

    _closed: asyncio.Event

    async def prepare(self) -> None:  # type: ignore[override]
        """Refuse a foreign Origin before anything else (token or not, see module doc)."""
        self._closed = asyncio.Event()
        if not self.origin_allowed():
            raise web.HTTPError(403, "Origin not allowed")
        if not self.check_host():  # Jupyter's DNS-rebinding check of the Host header
            raise web.HTTPError(403, "Host not allowed")
        try:
            await super().prepare()
        except web.HTTPError as exc:
            if exc.status_code != 403 or self.current_user is not None:
                raise
        if self.current_user is None:
            # MCP clients read 401 as "credentials needed" (Jupyter's API says 403).
            raise web.HTTPError(401, "Authentication required: send Authorization: token <token>")

    def origin_allowed(self) -> bool:
        """True without an Origin, for the server's own origin, or one Jupyter allows
        (``allow_origin``/``allow_origin_pat``). Unlike Jupyter's ``check_origin``, a token
        does not exempt a request: the spec asks servers to validate every Origin."""
        origin = self.request.headers.get("Origin")
        if origin is None or self.allow_origin == "*":
            return True
        if urlparse(origin.lower()).netloc == self.request.headers.get("Host", "").lower():
            return True
        if self.allow_origin:
            return bool(self.allow_origin == origin)
        return bool(self.allow_origin_pat and origin_matches_pat(self.allow_origin_pat, origin))

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """Errors in the REST API's JSON shape; a 401 says which scheme it takes."""
        if status_code == 401:
            self.set_header("WWW-Authenticate", 'token realm="jupyter-operator"')
        super().write_error(status_code, **kwargs)

    def on_connection_close(self) -> None:
        """Tell the SDK the client went away (a waiting call keeps its session)."""
        self._closed.set()
        super().on_connection_close()

    @web.authenticated
    @authorized
    async def get(self) -> None:
        """The SDK's server-to-client event stream (2025-11-25 sessions)."""
        await self._bridge()

    @web.authenticated
    @authorized
    async def post(self) -> None:
        """One JSON-RPC message, answered as JSON or as server-sent events."""
        await self._bridge()

    @web.authenticated
    @authorized
    async def delete(self) -> None:
        """The client ends its session."""
        await self._bridge()

    async def _bridge(self) -> None:
        from .errors import ApiError

        if self._received > self.body_limit:
            raise web.HTTPError(413, f"Request body exceeds {self.body_limit} bytes")
        try:
            service = self.extensionapp.mcp  # type: ignore[attr-defined]
        except ApiError as exc:
            self.set_status(exc.status)
            self.finish(exc.to_dict())
            return
        manager = await service.manager()
        await manager.handle_request(self._scope(), self._receive(), self._send)
        if not self._finished:
            self.finish()

    def _scope(self) -> dict[str, Any]:
        request = self.request
        host, _, port = (request.host or "").rpartition(":")
        return {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": request.version.removeprefix("HTTP/"),
            "method": request.method,
            "scheme": request.protocol,
            "path": request.path,
            "raw_path": request.path.encode("latin-1"),
            "query_string": request.query.encode("latin-1"),
            "root_path": "",
            "headers": [
                (k.lower().encode("latin-1"), v.encode("latin-1"))
                for k, v in request.headers.get_all()
            ],
            "client": (request.remote_ip, 0),
            "server": (host or request.host, int(port) if port.isdigit() else None),
            USER_KEY: self._principal(),  # keys the client's REST session
        }

    def _principal(self) -> str:
        """Who makes the request: the holder of the server's token when it carries the token
        (Jupyter makes up a new anonymous user for each such request), else the user's name."""
        token = self.token
        given = self.identity_provider.get_token(self)
        if token and given and hmac.compare_digest(token.encode(), given.encode()):
            return "token"
        return f"user:{getattr(self.current_user, 'username', '')}"

    def _receive(self) -> Any:
        body = b"".join(self._chunks)
        sent = False

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await self._closed.wait()
            return {"type": "http.disconnect"}

        return receive

    async def _send(self, message: dict[str, Any]) -> None:
        if self._finished:
            return
        if message["type"] == "http.response.start":
            self.set_status(message["status"])
            self.clear_header("Content-Type")
            for key, value in message.get("headers", []):
                name = key.decode("latin-1")
                if name.lower() not in HOP_HEADERS:
                    self.add_header(name, value.decode("latin-1"))
        elif message["type"] == "http.response.body":
            chunk = message.get("body", b"")
            if chunk:
                self.write(chunk)
            if message.get("more_body", False):
                try:
                    await self.flush()
                except Exception:  # the client went away: the SDK sees the disconnect
                    self._closed.set()
            else:
                self.finish()


def mcp_handlers(prefix: str = "jupyter-operator") -> list[tuple[str, type[web.RequestHandler]]]:
    """The MCP route, relative to the server's ``base_url``."""
    return [(f"/{prefix}/mcp", McpHandler)]
