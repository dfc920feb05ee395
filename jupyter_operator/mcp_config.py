"""``jupyter-operator mcp config --client NAME``: the snippet that connects an MCP client.

The snippet names the server's MCP endpoint (``{url}jupyter-operator/mcp``) and passes Jupyter's
token from the environment variable ``JUPYTER_TOKEN`` (or, for VS Code, a password prompt): the
token itself is never printed into a snippet, so no client's configuration file holds it.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from .cli_options import policy_options
from .mcp_relay import ENDPOINT, TOKEN_ENV

CLIENTS = ("claude-code", "codex", "cursor", "vscode")
NAME = "jupyter-operator"


def add_parser(sub: Any) -> None:
    """The ``mcp`` subcommand (``mcp config``)."""
    mcp = sub.add_parser(
        "mcp",
        help="connect MCP clients to the MCP server in Jupyter",
        description="Without an action: relay the Jupyter server's MCP server over stdio "
        "(the token from $JUPYTER_TOKEN); with --standalone ROOT, serve the same tools over "
        "stdio on the workspace ROOT without a Jupyter server, asking on the terminal.",
    )
    mcp.add_argument("--url", default=None, help="the Jupyter server's URL (relay)")
    mcp.add_argument(
        "--standalone", default=None, metavar="ROOT",
        help="no Jupyter server: serve the tools on workspace ROOT, asking a person on the "
             "terminal (/dev/tty); with no terminal, changes that ask are rejected",
    )  # fmt: skip
    policy_options(mcp)
    actions = mcp.add_subparsers(dest="mcp_command", required=False, metavar="ACTION")
    config = actions.add_parser(
        "config",
        help="print an MCP client's configuration for this server",
        description="Print the snippet that connects an MCP client to "
        "{url}jupyter-operator/mcp. The token is read from $JUPYTER_TOKEN by the "
        "client (VS Code: asked once); it is never written into the snippet.",
    )
    config.add_argument("--client", required=True, choices=CLIENTS, help="the MCP client")
    config.add_argument(
        "--url",
        default=None,
        help="the Jupyter server's URL, e.g. http://localhost:8888/ (default: the first "
        "running server found, else http://localhost:8888/)",
    )


def server_url(given: str | None) -> str:
    """The Jupyter server's base URL, ending in ``/``, without a token."""
    if given:
        return given if given.endswith("/") else given + "/"
    try:
        from jupyter_server.serverapp import list_running_servers

        for info in list_running_servers():
            url = str(info.get("url") or "")
            if url:
                return url.split("?", 1)[0].rstrip("/") + "/"
    except Exception:  # no runtime folder, unreadable files: fall back to the default
        pass
    return "http://localhost:8888/"


def snippet(client: str, url: str) -> str:
    """The text to paste (or run) for ``client``, with ``url`` the server's base URL."""
    endpoint = url + ENDPOINT
    header = f"token ${{{TOKEN_ENV}}}"
    if client == "claude-code":
        body = {"mcpServers": {NAME: {"type": "http", "url": endpoint,
                                      "headers": {"Authorization": header}}}}  # fmt: skip
        return (
            f"# .mcp.json in your project (Claude Code expands ${TOKEN_ENV} when it starts):\n"
            f"{json.dumps(body, indent=2)}\n"
        )
    if client == "codex":
        return (
            "# ~/.codex/config.toml (Codex sends $JUPYTER_TOKEN as a bearer token):\n"
            f'[mcp_servers.{NAME}]\nurl = "{endpoint}"\n'
            f'bearer_token_env_var = "{TOKEN_ENV}"\n'
        )
    if client == "cursor":
        cursor = f"token ${{env:{TOKEN_ENV}}}"
        body = {"mcpServers": {NAME: {"url": endpoint, "headers": {"Authorization": cursor}}}}
        note = f"# .cursor/mcp.json (Cursor reads ${TOKEN_ENV} from its environment):"
        return f"{note}\n{json.dumps(body, indent=2)}\n"
    body = {
        "inputs": [{"type": "promptString", "id": "jupyter-token", "password": True,
                    "description": "Jupyter server token (jupyter server list shows it)"}],
        "servers": {NAME: {"type": "http", "url": endpoint,
                           "headers": {"Authorization": "token ${input:jupyter-token}"}}},
    }  # fmt: skip
    note = "// .vscode/mcp.json (VS Code asks for the token once, keeps it in its secret store):"
    return f"{note}\n{json.dumps(body, indent=2)}\n"


def run(args: argparse.Namespace) -> int:
    """``mcp config``: print the snippet for ``args.client`` (how to set the token goes to
    stderr); ``mcp`` alone: relay the server over stdio."""
    import sys

    if args.mcp_command is None and args.standalone is not None:
        import asyncio
        from pathlib import Path

        from .mcp_standalone import serve

        return asyncio.run(serve(Path(args.standalone), args.rule, args.policy))
    if args.mcp_command is None:
        import asyncio

        from .mcp_relay import relay

        return asyncio.run(relay(server_url(args.url)))

    url = server_url(args.url)
    sys.stdout.write(snippet(args.client, url))
    if args.client != "vscode":
        print(
            f"jupyter-operator: set {TOKEN_ENV} to the server's token where the client runs "
            "(jupyter server list shows it); the snippet does not hold it.",
            file=sys.stderr,
        )
    return 0
