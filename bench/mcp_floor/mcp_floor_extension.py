"""A bench-only jupyter-server extension: the floor the MCP SDK sets under any tool call.

``bench/mcp.py`` loads it beside jupyter_operator (its folder is put on the server's path, not
``bench/``, whose ``mcp.py`` would shadow the SDK). It adds one tool to the operator's own MCP
server, ``bench_noop``, which answers the text of ``big.txt`` (read once, when the server starts)
without planning anything: the same endpoint, the same bridge, the same SDK server and client,
the same 100 KB answer as ``read_file`` of that file, and none of our planning. ``read_file``
against it is what our part costs; ``bench_noop`` against ``GET /api/contents`` is what the SDK
and the bridge cost whatever a tool does.
"""

from __future__ import annotations

import os
from typing import Any

NOOP = "bench_noop"


def _jupyter_server_extension_points() -> list[dict[str, Any]]:
    return [{"module": "mcp_floor_extension"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    from jupyter_operator.server.mcp_service import McpService

    with open(os.path.join(serverapp.root_dir, "big.txt"), encoding="utf-8") as file:
        text = file.read()
    list_tools, call_tool = McpService._list_tools, McpService._call_tool

    async def _list_tools(self: McpService, ctx: Any, params: Any) -> Any:
        import mcp_types as types

        listed = await list_tools(self, ctx, params)
        schema = {"type": "object", "properties": {}}
        listed.tools.append(types.Tool(name=NOOP, description="big.txt, nothing planned",
                                       input_schema=schema))  # fmt: skip
        return listed

    async def _call_tool(self: McpService, ctx: Any, params: Any) -> Any:
        if params.name != NOOP:
            return await call_tool(self, ctx, params)
        import mcp_types as types

        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    McpService._list_tools = _list_tools  # type: ignore[method-assign]
    McpService._call_tool = _call_tool  # type: ignore[method-assign]
