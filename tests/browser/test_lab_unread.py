"""A reply longer than the scanned 200,000 characters: the panel says, in a warning banner, how
many commands in the cut part did not run, and the results tell the model to send them again."""

from __future__ import annotations

import pytest
from browserkit import LabServer, screenshot
from support.replies import b64
from test_lab_panel import PANEL, command, open_lab, wait_status

pytestmark = pytest.mark.timeout(240)


def test_commands_cut_off_are_said_in_a_banner(lab_server: LabServer, page) -> None:
    (lab_server.root / "kept.txt").write_text("kept\n")
    early = "\n".join(command(f"e{n}", "fs.write", f"e{n}.txt", content_b64=b64("e"))
                      for n in range(3))  # fmt: skip
    late = command("r1", "fs.read", "kept.txt")
    open_lab(page, lab_server)
    # A 240 KB reply: set at once (typing it through fill() takes minutes), as a paste does.
    page.locator(f"{PANEL} .jp-Operator-input").evaluate(
        "(box, text) => { box.value = text; box.dispatchEvent(new Event('input')); }",
        early + "\n" + "filler line\n" * 20_000 + late,
    )
    page.locator(f"{PANEL} .jp-Operator-run").click()
    wait_status(page, "r1", "done")
    banner = page.locator(f"{PANEL} .jp-Operator-banner")
    banner.wait_for(timeout=30_000)
    text = banner.text_content()
    assert "3 OPERATOR_CMD markers" in text and "did not" in text
    screenshot(page, "lab-panel-unread-banner")
    results = page.locator(f"{PANEL} .jp-Operator-results-text").input_value()
    assert results.startswith("Note: only the last 200,000 characters of your reply")
    assert not (lab_server.root / "e0.txt").exists()
