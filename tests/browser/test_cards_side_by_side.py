"""One proposal, drawn by the notebook's run widget and by the side panel: the same card (the
same components, classes and theme variables), in the light and the dark theme."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from browserkit import LabServer, run_palette_command, screenshot
from magic_notebooks import magic_notebook, run_both_cells
from notebook_cards import ADDED
from test_lab_panel import PANEL, card, command, open_lab, run_reply, wait_status

pytestmark = pytest.mark.timeout(240)

CONTENT = "def area(r):\n    return 3.14159 * r * r\n"

#: What must look the same: the card's frame and text, its header, its diff's added line.
STYLE = """(node) => {
  const pick = (el, props) => Object.fromEntries(props.map(p => [p, getComputedStyle(el)[p]]));
  const text = ['color', 'fontFamily', 'fontSize', 'fontWeight'];
  return {
    card: pick(node, [...text, 'borderLeftColor', 'borderLeftWidth', 'backgroundColor']),
    action: pick(node.querySelector('.jp-Operator-card-action'), text),
    status: pick(node.querySelector('.jp-Operator-status'), [...text, 'backgroundColor']),
    added: pick(node.querySelector('.jp-Operator-line-add'), ['backgroundColor', ...text]),
    approve: pick(node.querySelector('.jp-Operator-approve'), [...text, 'backgroundColor']),
  };
}"""


def _theme(page: Any, name: str, light: bool) -> None:
    run_palette_command(page, f"Use Theme: {name}", name)
    flag = "true" if light else "false"
    page.wait_for_function(f"() => document.body.dataset.jpThemeLight === '{flag}'")
    page.locator("#jupyterlab-splash").wait_for(state="detached", timeout=30_000)


def test_a_notebook_card_and_a_panel_card_look_the_same(
    lab_server: LabServer, page: Any, tmp_path: Path
) -> None:
    journal = tmp_path / "journal"
    journal.mkdir()
    reply = command("same-1", "fs.write", "circle.py", content_b64=_b64(CONTENT))
    (lab_server.root / "side-by-side.ipynb").write_text(
        json.dumps(magic_notebook(journal, "%%operator\n" + reply))
    )
    open_lab(page, lab_server, "side-by-side.ipynb")
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=60_000)
    notebook_card = run_both_cells(page)
    notebook_card.locator(ADDED, has_text="3.14159").wait_for()
    run_reply(page, reply)
    wait_status(page, "same-1", "pending")
    panel_card = card(page, "same-1")
    panel_card.locator(".jp-Operator-line-add", has_text="3.14159").wait_for()
    assert page.locator(f"{PANEL} .jp-Operator-card").count() == 1

    for name, light in (("JupyterLab Light", True), ("JupyterLab Dark", False)):
        if not light:
            _theme(page, name, light)
        mine, theirs = notebook_card.evaluate(STYLE), panel_card.evaluate(STYLE)
        assert mine == theirs, (name, mine, theirs)
        # The same words, the same buttons (the panel names its folder: the notebook's cards
        # are relative to the kernel's root).
        words = [notebook_card.locator(sel).inner_text() for sel in (
            ".jp-Operator-card-header", ".jp-Operator-card-summary", ".jp-Operator-card-actions")]
        theirs_words = [panel_card.locator(sel).inner_text() for sel in (
            ".jp-Operator-card-header", ".jp-Operator-card-summary", ".jp-Operator-card-actions")]
        assert words == theirs_words
        suffix = "light" if light else "dark"
        notebook_card.screenshot(path=str(screenshot_path(f"side-by-side-notebook-{suffix}")))
        panel_card.screenshot(path=str(screenshot_path(f"side-by-side-panel-{suffix}")))
        screenshot(page, f"side-by-side-{suffix}")
    _theme(page, "JupyterLab Light", True)


def screenshot_path(name: str) -> Path:
    from browserkit import ARTIFACTS

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / f"{name}.png"


def _b64(text: str) -> str:
    import base64

    return base64.b64encode(text.encode()).decode()
