"""``jupyter-operator mcp --standalone ROOT``: the MCP tools over stdio with no Jupyter server,
driven by the official ``mcp`` SDK's stdio client (which starts the server in a session of its
own: no controlling terminal). A scripted asker stands in for the person where one is asked."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP server needs the optional SDK: jupyter-operator[mcp]")

from mcp import Client, StdioServerParameters
from mcp_types import Implementation

#: A server whose person is a script: approves paths starting with "yes", else rejects with a
#: reason naming the client and the item, and notes every question in ROOT/../asked.jsonl.
SCRIPTED = """
import asyncio, json, sys
from pathlib import Path
from jupyter_operator.mcp_standalone import serve

root = Path(sys.argv[1])

async def asker(client, item):
    with open(root.parent / "asked.jsonl", "a") as notes:
        notes.write(json.dumps({"client": client, "action": item.action, "path": item.path,
                                "diff": item.diff}) + "\\n")
    if (item.path or "").startswith("yes"):
        return "approve", None
    return "reject", f"no from the script to {client} for {item.id}"

sys.exit(asyncio.run(serve(root, asker=asker)))
"""


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """The usual configuration, from a Jupyter config folder of the test's own."""
    config = tmp_path / "jupyter-config"
    config.mkdir()
    settings = {"OperatorExtension": {"journal_dir": str(tmp_path / "journal"),
                                      "policy_rules": ["auto fs.write notes/**"]}}  # fmt: skip
    (config / "jupyter_server_config.json").write_text(json.dumps(settings))
    return {**os.environ, "JUPYTER_CONFIG_DIR": str(config), "JUPYTER_CONFIG_PATH": "",
            "PYTHONPATH": str(Path(__file__).resolve().parents[2])}  # fmt: skip


def text_of(result: Any) -> str:
    return "\n".join(part.text for part in result.content)


def client(params: StdioServerParameters) -> Client:
    return Client(params, client_info=Implementation(name="stdio-agent", version="4"),
                  mode="legacy")  # fmt: skip


async def test_the_same_tools_are_served_and_a_scripted_person_decides(
    root: Path, env: dict[str, str]
) -> None:
    (root / "old.txt").write_text("old\n")
    params = StdioServerParameters(command=sys.executable,
                                   args=["-c", SCRIPTED, str(root)], env=env)  # fmt: skip
    async with client(params) as mcp:
        tools = {tool.name for tool in (await mcp.list_tools()).tools}
        read = await mcp.call_tool("read_file", {"path": "old.txt"})
        approved = await mcp.call_tool("write_file", {"path": "yes.txt", "content": "Y\n"})
        rejected = await mcp.call_tool("write_file", {"path": "no.txt", "content": "N\n"})
        by_rule = await mcp.call_tool("write_file", {"path": "notes/a.md", "content": "a\n"})
        escape = await mcp.call_tool("write_file", {"path": "../out.txt", "content": "x"})
        undo = await mcp.call_tool("undo", {})  # the client's last change: notes/a.md
        calls = await asyncio.gather(*(mcp.call_tool("write_file", {"path": f"yes-{n}.txt",
                                                                    "content": f"{n}"})
                                       for n in range(3)))  # fmt: skip
    from jupyter_operator.server.mcp_tools import TOOLS

    assert {tool.name for tool in TOOLS} | {"undo", "operator_wait", "operator_status"} == tools
    assert "old" in text_of(read)
    assert not approved.is_error, text_of(approved)
    assert (root / "yes.txt").read_text() == "Y\n"
    assert rejected.is_error and "no from the script to stdio-agent 4" in text_of(rejected)
    assert not (root / "no.txt").exists()
    # The usual configuration's rule decided without asking (c.OperatorExtension.policy_rules).
    assert not by_rule.is_error and (root / "notes" / "a.md").read_text() == "a\n"
    assert escape.is_error and "ERR_PATH_ESCAPE" in text_of(escape)
    assert not (root.parent / "out.txt").exists()
    # The undo was asked like any change (a delete of the file the write made), and refused.
    assert undo.is_error and "no from the script" in text_of(undo)
    assert (root / "notes" / "a.md").exists()
    assert all(not call.is_error for call in calls) and (root / "yes-2.txt").exists()
    notes = (root.parent / "asked.jsonl").read_text()
    asked = [json.loads(line) for line in notes.splitlines()]
    assert [(a["action"], a["path"]) for a in asked[:3]] == [
        ("fs.write", "yes.txt"), ("fs.write", "no.txt"), ("fs.delete", "notes/a.md")]
    assert {a["client"] for a in asked} == {"stdio-agent 4"} and "+Y" in asked[0]["diff"]


async def test_without_a_terminal_a_change_that_asks_is_rejected_with_the_reason(
    root: Path, env: dict[str, str], tmp_path: Path
) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "jupyter_operator", "mcp", "--standalone", str(root),
              "--rule", "auto fs.write scratch/**"],
        env=env,
    )  # fmt: skip
    (root / "r.txt").write_text("read me\n")
    async with client(params) as mcp:
        read = await mcp.call_tool("read_file", {"path": "r.txt"})
        asked = await mcp.call_tool("write_file", {"path": "w.txt", "content": "w"})
        shell = await mcp.call_tool("shell", {"command": "touch made-by-shell"})
        by_config = await mcp.call_tool("write_file", {"path": "notes/n.md", "content": "n"})
        by_option = await mcp.call_tool("write_file", {"path": "scratch/s.md", "content": "s"})
    assert "read me" in text_of(read)
    assert asked.is_error and "nobody can be asked" in text_of(asked)
    assert "--rule" in text_of(asked)
    assert shell.is_error and not (root / "made-by-shell").exists()
    assert not (root / "w.txt").exists()
    assert not by_config.is_error and (root / "notes" / "n.md").read_text() == "n"
    assert not by_option.is_error and (root / "scratch" / "s.md").read_text() == "s"
    # The changes are in the workspace's one history, labelled with the client.
    from jupyter_operator.engine import Operator

    history = Operator(root, journal_dir=tmp_path / "journal").history()
    assert [(e.path, e.label) for e in history] == [("notes/n.md", "stdio-agent 4"),
                                                   ("scratch/s.md", "stdio-agent 4")]


def test_a_root_that_is_not_a_folder_is_refused(tmp_path: Path, env: dict[str, str]) -> None:
    import subprocess

    done = subprocess.run([sys.executable, "-m", "jupyter_operator", "mcp", "--standalone",
                           str(tmp_path / "missing")], env=env, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=120)  # fmt: skip
    assert done.returncode == 2 and "is not a folder" in done.stderr


async def test_the_terminal_asker_shows_the_diff_made_visible_and_reads_the_answer() -> None:
    import io
    from types import SimpleNamespace

    from jupyter_operator.mcp_standalone import TerminalAsker

    item = SimpleNamespace(id="mcp-1", action="fs.write", path="a.txt", summary="write a.txt",
                           diff="+evil \x1b[2J\n", shell=None, foreign=None, execution=None,
                           rule=None)  # fmt: skip
    for typed, expected in (("y\n", ("approve", None)), ("\n", ("reject", None)),
                            ("not now\n", ("reject", "not now")), ("", ("reject", None))):
        tty = io.StringIO()
        answer = await TerminalAsker(tty, io.StringIO(typed))("agent\x1b]0;x 1", item)
        assert answer == expected, typed
        shown = tty.getvalue()
        assert "\x1b" not in shown and "<U+001B>" in shown  # escapes reach no terminal raw
        assert "via MCP proposes" in shown and "Apply mcp-1? [y/N/reason]" in shown
