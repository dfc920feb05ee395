"""``jupyter-operator mcp``: the MCP server of a running Jupyter server, relayed over stdio.

For clients that only launch stdio servers. The relay is an SDK server on stdin/stdout whose
tools are the Jupyter server's: it opens one SDK client to ``{url}jupyter-operator/mcp`` (the
token from ``$JUPYTER_TOKEN``, never from a file or the command line) when the stdio client
first asks, naming itself with that client's ``clientInfo`` so the panel shows who proposes,
and forwards tool listings and calls, progress notifications included. Nothing is decided or
run here: the Jupyter server does both.
"""

from __future__ import annotations

import os
import sys
from typing import Any

#: The environment variable that holds the Jupyter server's token (never a file or argv).
TOKEN_ENV = "JUPYTER_TOKEN"
#: The server's MCP endpoint, under its base URL.
ENDPOINT = "jupyter-operator/mcp"


async def relay(url: str) -> int:
    """Serve stdio until the client closes it; 2 when ``$JUPYTER_TOKEN`` is not set."""
    token = os.environ.get(TOKEN_ENV, "")
    if not token:
        print(f"jupyter-operator: set {TOKEN_ENV} to the Jupyter server's token", file=sys.stderr)
        return 2
    import anyio
    import httpx2
    import mcp_types as types
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    async with anyio.create_task_group() as tasks:
        connected, done = anyio.Event(), anyio.Event()
        upstream: list[Any] = []  # the client, or the error that kept it from connecting
        started: list[bool] = []

        async def hold(info: Any) -> None:
            # The client lives in a task of its own: its scopes are entered and left there.
            headers = {"Authorization": f"token {token}"}
            timeout = httpx2.Timeout(30, read=300)
            try:
                async with httpx2.AsyncClient(headers=headers, timeout=timeout) as http:
                    transport = streamable_http_client(url + ENDPOINT, http_client=http)
                    async with Client(transport, client_info=info) as client:
                        upstream.append(client)
                        connected.set()
                        await done.wait()
            except Exception as exc:  # unreachable server, refused token: the caller says so
                if not upstream:
                    upstream.append(exc)
                    connected.set()
                else:
                    raise

        async def connect(ctx: Any) -> Any:
            if not started:
                started.append(True)
                params = getattr(ctx.session, "client_params", None)
                info = getattr(params, "client_info", None) or types.Implementation(
                    name="MCP client (stdio relay)", version=""
                )
                tasks.start_soon(hold, info)
            await connected.wait()
            if isinstance(upstream[0], Exception):
                raise RuntimeError(
                    f"cannot reach the Jupyter server's MCP server at {url + ENDPOINT}"
                )
            return upstream[0]

        async def list_tools(ctx: Any, params: Any) -> Any:
            return await (await connect(ctx)).list_tools()

        async def call_tool(ctx: Any, params: Any) -> Any:
            async def progress(done: float, total: float | None, message: str | None) -> None:
                await ctx.session.report_progress(done, total, message)

            client = await connect(ctx)
            return await client.call_tool(
                params.name, dict(params.arguments or {}), progress_callback=progress
            )

        server = Server("jupyter-operator", on_list_tools=list_tools, on_call_tool=call_tool)
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
        done.set()
    return 0
