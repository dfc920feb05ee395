"""Exact rules in the real JupyterLab panel: every card says which rule decided it, or why it
asks (a server started with a rules file outside its root)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from browserkit import LabServer, screenshot, start_server, stop_server
from test_lab_panel import PANEL, card, command, open_lab, run_reply, wait_status

pytestmark = pytest.mark.timeout(240)

NOTEBOOK = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
RULES = """\
# rules for the demo workspace
deny fs.delete **
auto fs.write notes/**
ask **/*.ipynb
"""


@pytest.fixture(scope="module")
def rules_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    root = tmp_path_factory.mktemp("rules-root")
    settings = tmp_path_factory.mktemp("rules-settings")
    rules = tmp_path_factory.mktemp("rules-config") / "operator.rules"  # outside the root
    rules.write_text(RULES)
    server = start_server(root, settings, "lab",
                          extra_args=[f"--OperatorExtension.policy_file={rules}"])  # fmt: skip
    yield server
    stop_server(server)


def test_every_card_shows_its_rule(page, rules_server: LabServer) -> None:
    root = rules_server.root
    (root / "old.txt").write_text("old\n")
    open_lab(page, rules_server)
    run_reply(page, "\n".join([
        "I will tidy up.",
        command("d1", "fs.delete", "old.txt"),
        command("w1", "fs.write", "notes/today.md", content="Today"),
        command("w2", "fs.write", "analysis.ipynb", content=NOTEBOOK),
        command("w3", "fs.write", "todo.txt", content="buy milk"),
    ]))  # fmt: skip
    wait_status(page, "d1", "denied")
    wait_status(page, "w1", "applied")
    wait_status(page, "w2", "pending")
    wait_status(page, "w3", "pending")

    def rule_line(cmd_id: str) -> str:
        return card(page, cmd_id).locator(".jp-Operator-card-rule").inner_text()

    assert rule_line("d1") == "denied by rule 1: deny fs.delete **"
    assert rule_line("w1") == "auto-approved by rule 2: auto fs.write notes/**"
    assert rule_line("w2") == "asked by rule 3: ask **/*.ipynb"
    assert rule_line("w3") == "asked by default: ask"
    assert (root / "old.txt").exists() and (root / "notes" / "today.md").read_text() == "Today"
    assert not (root / "todo.txt").exists()
    # The summary line tells a rule's refusal apart from a person's.
    summary = page.locator(f"{PANEL} .jp-Operator-run-status").inner_text()
    assert summary == "4 commands, 2 waiting for approval, 1 applied, 1 denied by a rule."
    page.locator(f"{PANEL} .jp-Operator-card").first.scroll_into_view_if_needed()
    screenshot(page, "rules-panel-cards")

    # A person's decision replaces the rule's note: nothing claims a rule approved it.
    card(page, "w3").locator(".jp-Operator-approve").click()
    wait_status(page, "w3", "applied")
    assert card(page, "w3").locator(".jp-Operator-card-rule").is_hidden()
    assert (root / "todo.txt").read_text() == "buy milk"
    assert not page.console_errors  # type: ignore[attr-defined]
