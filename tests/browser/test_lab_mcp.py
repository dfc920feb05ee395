"""An MCP client's change in a real JupyterLab: the official ``mcp`` SDK calls ``write_file``
against the lab server's MCP endpoint, the proposal appears in the Operator panel named after
the client (a chip on its card, a notification), the person approves it there, and the client's
call returns the real result."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from browserkit import LabServer, require_chromium, screenshot, start_server, stop_server
from test_lab_panel import PANEL, open_lab

pytest.importorskip("mcp", reason="the MCP server needs the optional SDK: jupyter-operator[mcp]")

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def mcp_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    """A JupyterLab of these tests' own: the panel shows a client's call only when nothing else
    waits for the person on display, and the shared server holds what other tests left pending."""
    require_chromium()
    server = start_server(tmp_path_factory.mktemp("mcp-root"),
                          tmp_path_factory.mktemp("mcp-settings"), "lab")  # fmt: skip
    yield server
    stop_server(server)


class ToolCall(threading.Thread):
    """One tool call of an SDK client, made in a thread of its own (with its own event loop:
    Playwright's sync API keeps one running in the test's thread)."""

    def __init__(self, server: LabServer, tool: str, arguments: dict[str, Any],
                 name: str = "claude-code 2.1", mode: str = "legacy") -> None:  # fmt: skip
        super().__init__(daemon=True)
        self.url = f"{server.url}jupyter-operator/mcp"
        self.token, self.tool, self.arguments = server.token, tool, arguments
        self.name, self.mode = name, mode
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
        name, version = self.name.split()
        info = Implementation(name=name, version=version)
        async with http, Client(streamable_http_client(self.url, http_client=http),
                                client_info=info, mode=self.mode) as client:  # fmt: skip
            return await client.call_tool(self.tool, self.arguments)


def test_an_mcp_clients_write_is_approved_in_the_panel(mcp_lab: LabServer, page) -> None:
    target = mcp_lab.root / "mcp-notes" / "hello.md"
    open_lab(page, mcp_lab)
    content = "# Hello\nfrom an agent\n"
    call = ToolCall(mcp_lab, "write_file", {"path": "mcp-notes/hello.md", "content": content})
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


def test_a_clients_next_call_joins_its_session_on_display_and_the_history_names_it(
    mcp_lab: LabServer, page
) -> None:
    open_lab(page, mcp_lab)
    # The 2026-07-28 protocol has no MCP session: the client is known by name and version,
    # so its two calls (two connections) are one session of the panel.
    first = ToolCall(mcp_lab, "write_file", {"path": "joined/one.txt", "content": "1\n"},
                     name="codex 0.9", mode="2026-07-28")  # fmt: skip
    first.start()
    cards = page.locator(f"{PANEL} .jp-Operator-card", has=page.locator(
        ".jp-Operator-card-source", has_text="codex 0.9 via MCP"))  # fmt: skip
    cards.first.wait_for(timeout=30_000)
    assert cards.count() == 1
    second = ToolCall(mcp_lab, "write_file", {"path": "joined/two.txt", "content": "2\n"},
                      name="codex 0.9", mode="2026-07-28")  # fmt: skip
    second.start()
    # The session on display takes the new call as a second card (no other session listed).
    page.wait_for_function(
        "() => document.querySelectorAll('#jupyter-operator-panel .jp-Operator-card').length === 2",
        timeout=30_000,
    )
    assert "joined/two.txt" in cards.nth(1).locator(".jp-Operator-card-path").text_content()
    assert page.locator(f"{PANEL} .jp-Operator-proposal").count() == 0
    screenshot(page, "lab-panel-mcp-one-session-per-client")
    # Each call is decided on its own: the second first.
    cards.nth(1).locator(".jp-Operator-approve").click()
    second.join(timeout=60)
    assert not second.is_alive() and second.error is None, second.error
    assert first.is_alive()  # the first call still waits for its own decision
    cards.nth(0).locator(".jp-Operator-reject").click()
    first.join(timeout=60)
    assert first.error is None and first.result.is_error
    assert (mcp_lab.root / "joined" / "two.txt").read_text() == "2\n"
    assert not (mcp_lab.root / "joined" / "one.txt").exists()
    # The History names the client of the change.
    page.locator(f"{PANEL} .jp-Operator-history summary").click()
    page.locator(f"{PANEL} .jp-Operator-history-meta",
                 has_text="proposed by codex 0.9 via MCP").first.wait_for(timeout=30_000)
