"""The approval cards in a real JupyterLab and Notebook 7: run %%operator, see the diff (the
panel's CodeMirror diff view), decide with the mouse and the keyboard, reload, theme."""

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
from notebook_cards import ADDED, button, card_by_id, results_box, status_is

CONTENT = 'hello from the browser\n<img src=x onerror="window.__operatorPwned = 1">\n'


def _block(id: str, path: str, content: str) -> str:
    payload = base64.b64encode(content.encode()).decode()
    return (f"OPERATOR_CMD\nversion: 1\nid: {id}\naction: fs.write\npath: {path}\n"
            f"content_b64: {payload}\nEND_OPERATOR_CMD\n")  # fmt: skip


def _notebook(journal: Path) -> dict:
    reply = "I will create the file.\n\n" + _block("browser-1", "browser-test.txt", CONTENT)
    return magic_notebook(journal, "%%operator\n" + reply)


pytestmark = pytest.mark.timeout(240)


def _run_both_cells(page: Any) -> Any:
    """Run the setup cell and the %%operator cell; return the mutation card."""
    return run_both_cells(page)


def _approve_button(card: Any) -> Any:
    return button(card, "Approve")


def _wait_for_file(path: Path, timeout: float = 30) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            return path.read_text()
        time.sleep(0.2)
    raise AssertionError(f"{path.name} was not written within {timeout} s")


def _open(page: Any, server: Any, name: str) -> None:
    # A workspace of its own: the shared server would otherwise restore the tabs (and any
    # dialogs) other tests left behind.
    page.goto(server.page_url(f"lab/workspaces/{name.removesuffix('.ipynb')}/tree/{name}"))
    # Typing before the kernel is connected loses the keystrokes: wait for "| Idle" first.
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=60_000)


def _theme(page: Any, name: str, light: bool) -> None:
    page.locator(".lm-MenuBar-itemLabel", has_text="Settings").click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Theme$")).hover()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(rf"^{name}$")).click()
    flag = "true" if light else "false"
    page.locator(f"body[data-jp-theme-light='{flag}']").wait_for(state="attached", timeout=30_000)
    page.locator("#jupyterlab-splash").wait_for(state="detached", timeout=30_000)


def test_approve_in_jupyterlab(lab_server: Any, page: Any, tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    journal.mkdir()
    (lab_server.root / "operator-card.ipynb").write_text(json.dumps(_notebook(journal)))
    target = lab_server.root / "browser-test.txt"
    _open(page, lab_server, "operator-card.ipynb")
    card = _run_both_cells(page)
    card.locator(ADDED, has_text="hello from the browser").wait_for()
    # The file's markup is shown as text, never as an element.
    assert "<img src=x onerror=" in card.locator(ADDED).nth(1).inner_text()
    assert card.locator(".jp-Operator-diff img").count() == 0
    assert card.locator(".jp-Operator-status").inner_text() == "Waiting for you"
    assert card.locator(".jp-Operator-card-rule").inner_text() == "asked by default: ask"
    assert not target.exists()
    screenshot(page, "notebook-card")

    approve = _approve_button(card)
    approve.click()

    assert _wait_for_file(target) == CONTENT
    status_is(card, "applied")
    assert card.locator(".jp-Operator-status").inner_text() == "Applied"
    assert card.locator(".jp-Operator-card-rule").is_hidden()  # a person decided: no rule
    assert approve.is_hidden()
    results = results_box(page)
    results.wait_for(timeout=30_000)
    assert "id: browser-1\nok: true" in results.input_value()
    assert page.evaluate("window.__operatorPwned === undefined")
    # Copy goes through the browser's Clipboard API.
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.locator(".jp-Operator-run-widget .jp-Operator-copy").click()
    deadline = time.monotonic() + 15
    while "id: browser-1" not in page.evaluate("navigator.clipboard.readText()"):
        assert time.monotonic() < deadline, "Copy did not reach the clipboard"
        time.sleep(0.2)
    assert page.evaluate("navigator.clipboard.readText()") == results.input_value()
    screenshot(page, "notebook-card-applied")

    # The same card in the dark theme (the colours come from JupyterLab's theme variables).
    def text_lightness() -> float:
        # The mean of the card's text colour channels: dark text in a light theme, light in dark.
        return page.evaluate(
            "(() => { const c = getComputedStyle(document.querySelector("
            "'.jp-Operator-run-widget .jp-Operator-card-summary')).color.match(/[\\d.]+/g);"
            " return (+c[0] + +c[1] + +c[2]) / 765; })()"
        )

    assert text_lightness() < 0.4
    _theme(page, "JupyterLab Dark", light=False)
    assert text_lightness() > 0.6
    screenshot(page, "notebook-card-dark")
    # The server (and its settings) is shared with other browser tests: back to the default.
    _theme(page, "JupyterLab Light", light=True)


def test_keyboard_decides_the_focused_card_and_the_page_reloads(
    lab_server: Any, page: Any, tmp_path: Path
) -> None:
    """Focus a card, J to the next, R rejects with the typed reason; saved and reloaded, the
    widget is drawn again from the kernel's state, and A approves the card still waiting."""
    journal = tmp_path / "journal"
    journal.mkdir()
    reply = _block("k-1", "keys-1.txt", "one\n") + _block("k-2", "keys-2.txt", "two\n")
    notebook = magic_notebook(journal, "%%operator\n" + reply)
    (lab_server.root / "keys.ipynb").write_text(json.dumps(notebook))
    _open(page, lab_server, "keys.ipynb")
    first = _run_both_cells(page)
    second = card_by_id(page, "k-2")
    assert "A approve" in first.locator(".jp-Operator-card-header").get_attribute("title")
    # Buttons are labelled for assistive technology; the run says its status politely.
    assert first.get_attribute("aria-label") == "fs.write k-1"
    assert page.locator(".jp-Operator-run-widget [role='status']").first.inner_text().startswith(
        "2 commands"
    )
    first.focus()
    page.keyboard.press("j")
    assert second.evaluate("node => node === document.activeElement")
    second.locator(".jp-Operator-reason").fill("not this one")
    second.focus()
    page.keyboard.press("r")
    status_is(second, "rejected")
    assert not (lab_server.root / "keys-2.txt").exists()

    # Saved and reloaded with k-1 still waiting: the widget is drawn again from the kernel.
    saved = lab_server.root / "keys.ipynb"
    before = saved.stat().st_mtime_ns
    page.keyboard.press("Control+s")
    deadline = time.monotonic() + 30
    while saved.stat().st_mtime_ns == before:
        assert time.monotonic() < deadline, "the notebook was not saved"
        time.sleep(0.2)
    page.reload()
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=60_000)
    first = card_by_id(page, "k-1")
    status_is(first, "pending", timeout=60_000)
    status_is(card_by_id(page, "k-2"), "rejected")
    first.focus()
    page.keyboard.press("a")
    status_is(first, "applied")
    assert (lab_server.root / "keys-1.txt").read_text() == "one\n"
    assert not (lab_server.root / "keys-2.txt").exists()
    assert "not this one" in results_box(page).input_value()
    screenshot(page, "notebook-card-after-reload")


def test_approve_in_notebook7(notebook_server: Any, page: Any, tmp_path: Path) -> None:
    """The same card and click in Notebook 7 (no JupyterLab-only pieces are needed)."""
    root, journal = notebook_server.root, tmp_path / "journal"
    journal.mkdir()
    (root / "operator-card.ipynb").write_text(json.dumps(_notebook(journal)))
    page.goto(notebook_server.page_url("notebooks/operator-card.ipynb"))
    # Notebook 7 shows the kernel state in the toolbar; wait for it before typing.
    page.get_by_text("Kernel status: Idle").first.wait_for(state="attached", timeout=60_000)
    card = _run_both_cells(page)
    card.locator(ADDED, has_text="hello from the browser").wait_for()
    _approve_button(card).click()
    assert _wait_for_file(root / "browser-test.txt") == CONTENT
    status_is(card, "applied")
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
    _open(page, lab_server, "leaked-call.ipynb")
    card = _run_both_cells(page)
    foreign = card.locator(".jp-Operator-foreign")
    assert "own tool-call format (Hermes/Qwen <tool_call> JSON: write_file)" in foreign.inner_text()
    assert "path: from-leak.txt" in foreign.locator(".jp-Operator-foreign-block").inner_text()
    card.locator(ADDED, has_text="translated").wait_for()
    assert not target.exists()
    screenshot(page, "notebook-card-leaked-call")
    _approve_button(card).click()
    assert _wait_for_file(target) == "translated\n"
    results = results_box(page)
    results.wait_for(timeout=30_000)
    assert "was a tool call in your own format" in results.input_value()
