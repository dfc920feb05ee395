"""The approval card in a real JupyterLab: run %%operator, see the diff, click Approve."""

from __future__ import annotations

import base64
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from browserkit import screenshot
from magic_notebooks import magic_notebook, run_both_cells

CONTENT = 'hello from the browser\n<img src=x onerror="window.__operatorPwned = 1">\n'


def _notebook(journal: Path) -> dict:
    payload = base64.b64encode(CONTENT.encode()).decode()
    reply = (
        "I will create the file.\n\nOPERATOR_CMD\nversion: 1\nid: browser-1\n"
        f"action: fs.write\npath: browser-test.txt\ncontent_b64: {payload}\nEND_OPERATOR_CMD"
    )
    return magic_notebook(journal, "%%operator\n" + reply)


pytestmark = pytest.mark.timeout(240)


def _run_both_cells(page: Any) -> Any:
    """Run the setup cell and the %%operator cell; return the mutation card."""
    return run_both_cells(page)


def _approve_button(card: Any) -> Any:
    # Text match, not the accessible name: the icon's CSS glyph is part of that name.
    return card.locator("button.jupyter-button", has_text=re.compile(r"^\s*Approve\s*$"))


def _wait_for_file(path: Path, timeout: float = 30) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            return path.read_text()
        time.sleep(0.2)
    raise AssertionError(f"{path.name} was not written within {timeout} s")


def test_approve_in_jupyterlab(lab_server: Any, page: Any, tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    journal.mkdir()
    (lab_server.root / "operator-card.ipynb").write_text(json.dumps(_notebook(journal)))
    target = lab_server.root / "browser-test.txt"

    # A workspace of its own: the shared server would otherwise restore the tabs (and any
    # dialogs) other tests left behind.
    page.goto(lab_server.page_url("lab/workspaces/operator-card/tree/operator-card.ipynb"))
    # Typing before the kernel is connected loses the keystrokes: wait for "| Idle" first.
    status = page.locator("#jp-main-statusbar")
    status.get_by_text("Idle").wait_for(timeout=60_000)
    card = _run_both_cells(page)
    diff = card.locator(".jpo-diff")
    diff.locator(".jpo-row.jpo-add", has_text="hello from the browser").wait_for()
    # The file's markup is shown as text, never as an element.
    assert "<img src=x onerror=" in diff.locator(".jpo-row.jpo-add").nth(1).inner_text()
    assert diff.locator("img").count() == 0
    assert card.locator(".jpo-badge").inner_text() == "Waiting for you"
    assert card.locator(".jpo-rule").inner_text() == "asked by default: ask"  # why it asks
    assert not target.exists()
    screenshot(page, "notebook-card")

    approve = _approve_button(card)
    approve.click()

    assert _wait_for_file(target) == CONTENT
    card.locator(".jpo-badge.jpo-s-applied").wait_for(timeout=30_000)
    assert card.locator(".jpo-badge").inner_text() == "Applied"
    assert card.locator(".jpo-rule").count() == 0  # a person decided: no rule is claimed
    assert approve.is_hidden()
    results = page.locator(".jpo-results textarea")
    results.wait_for(timeout=30_000)
    assert "id: browser-1\nok: true" in results.input_value()
    assert page.evaluate("window.__operatorPwned === undefined")
    # Copy goes through the browser's Clipboard API (see widgets/copybox.py).
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.locator(".jpo-results button.jupyter-button", has_text="Copy").click()
    deadline = time.monotonic() + 15
    while "id: browser-1" not in page.evaluate("navigator.clipboard.readText()"):
        assert time.monotonic() < deadline, "Copy did not reach the clipboard"
        time.sleep(0.2)
    assert page.evaluate("navigator.clipboard.readText()") == results.input_value()
    screenshot(page, "notebook-card-applied")

    # The same card in the dark theme (the colours come from JupyterLab's theme variables).
    page.locator(".lm-MenuBar-itemLabel", has_text="Settings").click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Theme$")).hover()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^JupyterLab Dark$")).click()
    page.locator("body[data-jp-theme-light='false']").wait_for(state="attached", timeout=30_000)
    card_background = card.evaluate("e => getComputedStyle(e).backgroundColor")
    assert card_background not in ("rgb(255, 255, 255)", "rgba(0, 0, 0, 0)")
    screenshot(page, "notebook-card-dark")
    # The server (and its settings) is shared with other browser tests: back to the default.
    page.locator(".lm-MenuBar-itemLabel", has_text="Settings").click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Theme$")).hover()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^JupyterLab Light$")).click()
    page.locator("body[data-jp-theme-light='true']").wait_for(state="attached", timeout=30_000)


def test_approve_in_notebook7(notebook_server: Any, page: Any, tmp_path: Path) -> None:
    """The same card and click in Notebook 7 (no JupyterLab-only pieces are needed)."""
    root, journal = notebook_server.root, tmp_path / "journal"
    journal.mkdir()
    (root / "operator-card.ipynb").write_text(json.dumps(_notebook(journal)))
    page.goto(notebook_server.page_url("notebooks/operator-card.ipynb"))
    # Notebook 7 shows the kernel state in the toolbar; wait for it before typing.
    page.get_by_text("Kernel status: Idle").first.wait_for(state="attached", timeout=60_000)
    card = _run_both_cells(page)
    card.locator(".jpo-diff .jpo-row.jpo-add", has_text="hello from the browser").wait_for()
    _approve_button(card).click()
    assert _wait_for_file(root / "browser-test.txt") == CONTENT
    card.locator(".jpo-badge.jpo-s-applied").wait_for(timeout=30_000)
    screenshot(page, "notebook7-card-applied")


def test_a_pasted_reply_with_a_leaked_tool_call(lab_server: Any, page: Any, tmp_path: Path) -> None:
    """A reply in the model's own tool-call format: the card says so, shows the translation,
    and Approve writes it."""
    journal = tmp_path / "journal"
    journal.mkdir()
    reply = ('Creating the file.\n<tool_call>\n{"name": "write_file", "arguments": '
             '{"path": "from-leak.txt", "content": "translated\\n"}}\n</tool_call>')  # fmt: skip
    notebook = magic_notebook(journal, "%%operator\n" + reply)
    (lab_server.root / "leaked-call.ipynb").write_text(json.dumps(notebook))
    target = lab_server.root / "from-leak.txt"
    page.goto(lab_server.page_url("lab/workspaces/leaked-call/tree/leaked-call.ipynb"))
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=60_000)
    card = _run_both_cells(page)
    foreign = card.locator(".jpo-foreign")
    assert "own tool-call format (Hermes/Qwen <tool_call> JSON: write_file)" in foreign.inner_text()
    assert "path: from-leak.txt" in foreign.locator("pre").inner_text()
    card.locator(".jpo-diff .jpo-row.jpo-add", has_text="translated").wait_for()
    assert not target.exists()
    screenshot(page, "notebook-card-leaked-call")
    _approve_button(card).click()
    assert _wait_for_file(target) == "translated\n"
    results = page.locator(".jpo-results textarea")
    results.wait_for(timeout=30_000)
    assert "was a tool call in your own format" in results.input_value()
