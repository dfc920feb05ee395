"""An MCP client's change in a real JupyterLab: the official ``mcp`` SDK calls ``write_file``
against the lab server's MCP endpoint, the proposal appears in the Operator panel named after
the client (a chip on its card, a notification), the person approves it there, and the client's
call returns the real result."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from browserkit import LabServer, screenshot
from test_lab_panel import PANEL, open_lab

pytest.importorskip("mcp", reason="the MCP server needs the optional SDK: jupyter-operator[mcp]")

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation

pytestmark = pytest.mark.timeout(240)


class ToolCall(threading.Thread):
    """One tool call of an SDK client, made in a thread of its own (with its own event loop:
    Playwright's sync API keeps one running in the test's thread)."""

    def __init__(self, server: LabServer, tool: str, arguments: dict[str, Any]) -> None:
        super().__init__(daemon=True)
        self.url = f"{server.url}jupyter-operator/mcp"
        self.token, self.tool, self.arguments = server.token, tool, arguments
        self.result: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.result = asyncio.run(self._call())
        except BaseException as exc:  # reported by the test
            self.error = exc

    async def _call(self) -> Any:
        http = httpx2.AsyncClient(headers={"Authorization": f"token {self.token}"},
                                  timeout=httpx2.Timeout(30, read=120))  # fmt: skip
        info = Implementation(name="claude-code", version="2.1")
        async with http, Client(streamable_http_client(self.url, http_client=http),
                                client_info=info, mode="legacy") as client:  # fmt: skip
            return await client.call_tool(self.tool, self.arguments)


def test_an_mcp_clients_write_is_approved_in_the_panel(lab_server: LabServer, page) -> None:
    target = lab_server.root / "mcp-notes" / "hello.md"
    open_lab(page, lab_server)
    content = "# Hello\nfrom an agent\n"
    call = ToolCall(lab_server, "write_file", {"path": "mcp-notes/hello.md", "content": content})
    call.start()

    # The panel finds the waiting call, shows it (nothing else waits on display) and names
    # the client on its card; a notification says who proposes what.
    source = f"{PANEL} .jp-Operator-card-source"
    chip = page.locator(source, has_text="claude-code 2.1 via MCP")
    chip.wait_for(timeout=30_000)
    card = page.locator(f"{PANEL} .jp-Operator-card", has=page.locator(".jp-Operator-card-source"))
    assert card.get_attribute("data-status") == "pending"
    assert "mcp-notes/hello.md" in card.locator(".jp-Operator-card-path").text_content()
    toast = page.locator(".Toastify__toast", has_text="claude-code 2.1 via MCP proposes a change")
    toast.wait_for(timeout=10_000)
    tab = page.locator('.lm-TabBar-tab[data-id="jupyter-operator-panel"]')
    assert tab.get_attribute("data-operator-proposals") == "1"  # the badge on the panel's tab
    assert not target.exists()  # nothing is written before the person approves
    assert call.is_alive()  # the client's call waits for the decision
    # (the toast slides in from the right: the screenshot waits until it is all in view)
    toast.evaluate("t => new Promise(done => { const check = () => "
                   "t.getBoundingClientRect().right <= innerWidth ? done() : "
                   "requestAnimationFrame(check); check(); })")  # fmt: skip
    screenshot(page, "lab-panel-mcp-proposal")

    card.locator(".jp-Operator-approve").click()
    page.locator(f'{PANEL} .jp-Operator-card[data-status="applied"]',
                 has=page.locator(".jp-Operator-card-source")).wait_for()  # fmt: skip
    call.join(timeout=60)
    assert not call.is_alive() and call.error is None, call.error
    result = call.result
    text = "\n".join(part.text for part in result.content)
    assert not result.is_error, text
    assert result.structured_content["status"] == "done"
    assert "new file, +2 -0 lines" in text  # the engine's own summary of the write
    assert target.read_text() == content
    # Decided, it no longer waits: the tab's badge goes.
    page.wait_for_function(
        "() => !document.querySelector("
        "'.lm-TabBar-tab[data-id=\"jupyter-operator-panel\"]').hasAttribute('data-operator-proposals')"
    )
    screenshot(page, "lab-panel-mcp-approved")
