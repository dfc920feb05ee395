"""The README's "Coding agents over MCP" section, followed as written against a running server:
its commands run as they stand (the token exported, the snippet printed), the snippet used the
way the client reads it, and the stdio relay it names, each through the official ``mcp`` SDK."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import string
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP server needs the optional SDK: jupyter-operator[mcp]")

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation
from test_mcp import (  # noqa: F401 (fixtures: the server with the extension, its settings)
    decide,
    jp_server_config,
    mcp_config,
    operator_config,
    text_of,
    wait_for_pending,
)

REPO = Path(__file__).resolve().parents[2]


def readme_section() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return text.split("## Coding agents over MCP", 1)[1].split("\n## ", 1)[0]


def readme_commands() -> list[str]:
    """The commands of the section's code block, comments left out."""
    (block,) = re.findall(r"```\n(.*?)```", readme_section(), re.S)
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]


def shell_env(secret: str) -> dict[str, str]:
    """The environment after the README's ``export`` line, with the token filled in."""
    (export, *_) = readme_commands()
    name, value = export.removeprefix("export ").split("=", 1)
    assert value == "...", "the README's export line no longer shows where the token goes"
    # The worktree's package, and the test server's runtime folder (it lists running servers).
    return {**os.environ, name: secret, "PYTHONPATH": str(REPO)}


def run_readme_command(command: str, env: dict[str, str]) -> str:
    words = shlex.split(command)
    assert words[0] == "jupyter-operator"
    done = subprocess.run([sys.executable, "-m", "jupyter_operator", *words[1:]], env=env,
                          capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_readme_names_what_the_tools_and_commands_really_are() -> None:
    section = readme_section()
    assert readme_commands()[1] == "jupyter-operator mcp config --client claude-code"
    for tool in ("operator_wait", "undo"):
        assert f"`{tool}`" in section
    assert "jupyter-operator mcp --standalone ROOT" in section
    assert "45 s" in section  # c.OperatorMCP.wait_seconds
    from jupyter_operator.server.mcp_service import OperatorMCP

    assert OperatorMCP.class_traits()["wait_seconds"].default_value == 45.0


async def test_the_readme_steps_connect_claude_codes_snippet_over_http(
    mcp_url: str, token: str, root: Path, api: Any
) -> None:
    env = shell_env(token)
    printed = run_readme_command(readme_commands()[1], env)
    # What Claude Code reads: the JSON of .mcp.json (the comment line is for the person).
    snippet = json.loads("".join(line for line in printed.splitlines(True)
                                 if not line.startswith("#")))  # fmt: skip
    server = snippet["mcpServers"]["jupyter-operator"]
    assert token not in printed  # "the token is never written into a file"
    assert server["url"].endswith(mcp_url.split("/", 3)[3])  # the running server, found
    # Claude Code expands ${JUPYTER_TOKEN} from its environment when it starts.
    headers = {k: string.Template(v).substitute(env) for k, v in server["headers"].items()}
    (root / "notes.txt").write_text("read at once\n")
    http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=120))
    info = Implementation(name="claude-code", version="2.1")
    async with http, Client(streamable_http_client(server["url"], http_client=http),
                            client_info=info) as client:  # fmt: skip
        read = await client.call_tool("read_file", {"path": "notes.txt"})
        # "every change ... waits in the Operator panel": one session, named after the client.
        calls = [asyncio.create_task(client.call_tool("write_file", {"path": f"{n}.txt",
                                                                     "content": n}))
                 for n in ("a", "b")]  # fmt: skip
        for _ in range(200):
            (listed, *more) = await wait_for_pending(api)
            if listed["pending"] == 2:
                break
            await asyncio.sleep(0.05)
        assert not more and listed["label"] == "claude-code 2.1" and listed["pending"] == 2
        _, view = await api("sessions", listed["session"])
        ids = {i["path"]: i["id"] for i in view["items"]}
        await decide(api, f"{listed['session']}:{ids['a.txt']}", "approve")  # each on its own
        await decide(api, f"{listed['session']}:{ids['b.txt']}", "reject", "not b")
        a, b = await asyncio.gather(*calls)
        # "The history names the client of each change, and your Undo in the panel undoes it".
        _, history = await api("history")
        assert history["history"][-1]["label"] == "claude-code 2.1"
        status, _ = await api("undo", body={"workspace": "default"})
        assert status == 200 and not (root / "a.txt").exists()
        # "the agent's own undo tool only proposes the undo": nothing here is live any more,
        # so it is refused; a proposal would wait in the panel (tests/server/test_mcp.py).
        undo = await client.call_tool("undo", {})
    assert "read at once" in text_of(read)
    assert not a.is_error and b.is_error and "not b" in text_of(b)
    assert undo.is_error and "ERR_NOT_FOUND" in text_of(undo)


async def test_the_readme_relay_serves_a_stdio_client_against_the_running_server(
    mcp_url: str, token: str, root: Path, api: Any
) -> None:
    section = readme_section()
    assert "`jupyter-operator mcp` relays the endpoint over stdio" in section
    words = shlex.split("jupyter-operator mcp")
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "jupyter_operator", *words[1:]],
                                   env=shell_env(token))  # fmt: skip
    (root / "r.txt").write_text("relayed\n")
    info = Implementation(name="stdio-only", version="1")
    async with Client(params, client_info=info) as client:
        read = await client.call_tool("read_file", {"path": "r.txt"})
        call = asyncio.create_task(client.call_tool("write_file", {"path": "w.txt",
                                                                   "content": "w"}))  # fmt: skip
        (listed,) = await wait_for_pending(api)
        await decide(api, listed["session"], "approve")
        written = await call
    assert "relayed" in text_of(read)
    assert listed["label"] == "stdio-only 1"
    assert not written.is_error and (root / "w.txt").read_text() == "w"


def test_the_readme_commands_run_as_written(token: str) -> None:
    """Every command of the block runs (the export is the shell's; the rest ours)."""
    env = shell_env(token)
    for command in readme_commands()[1:]:
        assert "mcpServers" in run_readme_command(command, env)
