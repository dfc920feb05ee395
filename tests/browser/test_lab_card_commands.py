"""The panel's card commands from the keyboard: Alt+J to the next pending card, Alt+A to approve
the focused one (the focus moves on to the next), Alt+R to reject it with the reason typed (an
empty reason box takes the focus first). The shortcuts press the cards' own buttons."""

from __future__ import annotations

import pytest
from browserkit import LabServer, screenshot
from test_lab_panel import PANEL, b64, card, command, open_lab, run_reply, wait_status

pytestmark = pytest.mark.timeout(240)


def test_keyboard_moves_between_pending_cards_approves_and_rejects_with_a_reason(
    lab_server: LabServer, page
) -> None:
    root = lab_server.root
    reply = "\n".join([
        command("k1", "fs.write", "keys-one.txt", content_b64=b64("one\n")),
        command("k2", "fs.write", "keys-two.txt", content_b64=b64("two\n")),
    ])  # fmt: skip
    open_lab(page, lab_server)
    run_reply(page, reply)
    wait_status(page, "k2", "pending")
    page.locator(f"{PANEL} .jp-Operator-input").focus()  # anywhere in the panel
    page.keyboard.press("Alt+j")
    assert card(page, "k1").evaluate("node => node === document.activeElement")
    page.keyboard.press("Alt+a")
    wait_status(page, "k1", "applied")
    assert (root / "keys-one.txt").read_text() == "one\n"
    assert card(page, "k2").evaluate("node => node === document.activeElement")
    page.keyboard.press("Alt+r")  # no reason yet: its box takes the focus, nothing is decided
    reason = card(page, "k2").locator(".jp-Operator-reason")
    assert reason.evaluate("node => node === document.activeElement")
    assert card(page, "k2").get_attribute("data-status") == "pending"
    page.keyboard.type("keep two out of it")
    page.keyboard.press("Alt+r")
    wait_status(page, "k2", "rejected")
    assert not (root / "keys-two.txt").exists()
    assert "keep two out of it" in (card(page, "k2").text_content() or "")
    screenshot(page, "panel-card-keys")
    assert page.console_errors == []
