"""Every control of the Operator panel has an aria-label: the panel's own controls, Ask with its
"Add model" form and budget, the cards and their decisions, the results and the history."""

from __future__ import annotations

import pytest
from browserkit import LabServer
from test_lab_panel import PANEL, b64, command, open_lab, run_reply, wait_status

pytestmark = pytest.mark.timeout(240)

#: The panel's controls that have neither aria-label nor aria-labelledby.
UNLABELLED = """() => {
  const root = document.querySelector('#jupyter-operator-panel');
  const found = [];
  for (const node of root.querySelectorAll('button, input, select, textarea, summary')) {
    if (!node.getAttribute('aria-label') && !node.getAttribute('aria-labelledby')) {
      const names = node.className.split(' ').filter(c => c.startsWith('jp-Operator'));
      const text = (node.textContent || '').trim().slice(0, 30);
      found.push(`${node.tagName.toLowerCase()}.${names.join('.')} ${text}`);
    }
  }
  return found;
}"""


def test_every_panel_control_has_an_aria_label(lab_server: LabServer, page) -> None:
    reply = "\n".join([
        command("l1", "fs.write", "labels.txt", content_b64=b64("one\n")),
        command("l2", "fs.read", "labels.txt"),
    ])  # fmt: skip
    open_lab(page, lab_server)
    run_reply(page, reply)
    wait_status(page, "l1", "pending")
    ask = page.locator(f"{PANEL} .jp-Operator-ask")
    if not ask.evaluate("details => details.open"):  # Lab may have opened it on Add model
        ask.locator(".jp-Operator-ask-summary").click()
    if page.locator(f"{PANEL} .jp-Operator-ask-addform").is_hidden():
        page.get_by_role("button", name="Add a model endpoint").click()
    for details in page.locator(f"{PANEL} details").all():  # every folded part unfolded
        if not details.evaluate("node => node.open"):
            details.locator("summary").first.click()
    found = page.evaluate(UNLABELLED)
    assert found == [], "\n".join(found)
