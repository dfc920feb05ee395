"""The panel's Ask mode in a real JupyterLab, against the loopback OpenAI-compatible endpoint.

The server calls the model with the key from its own environment; the browser sees the
streamed reply, the cards of each turn and the Stop button, never the key.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from browserkit import LabServer, screenshot, start_server, stop_server, wait_for_launcher
from fake_openai import FakeOpenAI, Script
from magic_notebooks import magic_notebook, run_quick_cell, setup_source
from replies import b64, block

pytestmark = pytest.mark.timeout(240)

PANEL = "#jupyter-operator-panel"
ASK = f"{PANEL} .jp-Operator-ask"


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture(scope="module")
def ask_server(tmp_path_factory: pytest.TempPathFactory, fake: FakeOpenAI) -> Iterator[LabServer]:
    """JupyterLab whose Ask mode talks to ``fake``; the key is in the server's environment."""
    root = tmp_path_factory.mktemp("ask-root")
    settings = tmp_path_factory.mktemp("ask-settings")
    config = tmp_path_factory.mktemp("ask-config")
    (config / "jupyter_server_config.json").write_text(json.dumps({
        "OperatorAgent": {"model": "fake-model", "base_url": fake.url,
                          "transcripts_dir": str(tmp_path_factory.mktemp("ask-runs"))},
        "OperatorExtension": {"journal_dir": str(tmp_path_factory.mktemp("ask-journal"))},
    }))  # fmt: skip
    with pytest.MonkeyPatch.context() as env:
        env.setenv("JUPYTER_CONFIG_DIR", str(config))
        env.setenv("OPENAI_API_KEY", fake.key)
        server = start_server(root, settings, "lab")
    yield server
    stop_server(server)


def open_ask(page, server: LabServer) -> None:
    page.goto(server.page_url(f"lab/workspaces/ask-{uuid.uuid4().hex[:8]}"))
    tab = page.locator('.lm-TabBar-tab[data-id="jupyter-operator-panel"]')
    tab.wait_for(timeout=60_000)
    page.locator("#jupyterlab-splash").wait_for(state="detached", timeout=60_000)
    wait_for_launcher(page)
    if "lm-mod-current" not in (tab.get_attribute("class") or ""):
        tab.click()
    page.locator(f"{ASK} .jp-Operator-ask-summary").click()
    page.locator(f"{ASK} .jp-Operator-ask-status").filter(has_text="fake-model").wait_for()


def test_a_multi_turn_task_with_an_approval(ask_server: LabServer, page, fake: FakeOpenAI) -> None:
    (ask_server.root / "notes.txt").write_text("alpha\n")
    fake.add(
        Script("I will read the notes first.\n" + block("r1", "fs.read", path="notes.txt"),
               chunk=8, delay=0.02),
        Script("Now the plan.\n" + block("w1", "fs.write", path="plan.md",
                                           content_b64=b64("# Plan\n\n- alpha\n")), chunk=8),
        "Done: plan.md is written.",
    )  # fmt: skip
    open_ask(page, ask_server)
    page.locator(f"{ASK} .jp-Operator-ask-task").fill("Write a plan from notes.txt")
    page.locator(f"{ASK} .jp-Operator-ask-button").click()
    # prose streams in; the read's card shows its result
    page.locator(f"{ASK} .jp-Operator-ask-prose").filter(has_text="read the notes first").wait_for()
    page.locator(f'{ASK} .jp-Operator-card[data-id="r1"][data-status="done"]').wait_for()
    write = page.locator(f'{ASK} .jp-Operator-card[data-id="w1"][data-status="pending"]')
    write.wait_for(timeout=30_000)
    status = page.locator(f"{ASK} .jp-Operator-ask-status")
    assert "Turn 2/10" in status.text_content() and "waiting for you" in status.text_content()
    assert not (ask_server.root / "plan.md").exists()
    screenshot(page, "ask-mode-waiting")
    write.locator(".jp-Operator-approve").click()
    status.filter(has_text="ended").wait_for(timeout=30_000)
    page.locator(f"{ASK} .jp-Operator-ask-prose").filter(has_text="plan.md is written").wait_for()
    assert (ask_server.root / "plan.md").read_text() == "# Plan\n\n- alpha\n"
    assert "Turn 3/10" in status.text_content()
    screenshot(page, "ask-mode-done")
    assert fake.key not in page.content()
    assert fake.requests[-1]["messages"][-1]["content"].startswith("OPERATOR_RESULT")
    assert page.console_errors == []


def test_stop_in_the_middle_of_a_reply(ask_server: LabServer, page, fake: FakeOpenAI) -> None:
    fake.add(Script("word " * 2000, chunk=5, delay=0.01))
    open_ask(page, ask_server)
    page.locator(f"{ASK} .jp-Operator-ask-task").fill("Talk for a while")
    page.locator(f"{ASK} .jp-Operator-ask-button").click()
    page.locator(f"{ASK} .jp-Operator-ask-prose").filter(has_text="word word word").wait_for()
    page.locator(f"{ASK} .jp-Operator-ask-stop").click()
    status = page.locator(f"{ASK} .jp-Operator-ask-status")
    status.filter(has_text="Stopped by the person").wait_for(timeout=30_000)
    shown = page.locator(f"{ASK} .jp-Operator-ask-prose").text_content() or ""
    assert shown.count("word") < 2000
    screenshot(page, "ask-mode-stopped")


def _agent_notebook(fake: FakeOpenAI, host: Path) -> dict:
    setup = setup_source(
        host / "journal",
        f"os.environ['JUPYTER_OPERATOR_TRANSCRIPT_DIR'] = {str(host / 'runs')!r}",
        f"%operator model fake-model --base-url {fake.url}",
    )
    cells = ["%%operator_agent --max-turns 5\nWrite a plan.", "6 * 7"]
    return magic_notebook(host / "journal", *cells, setup=setup)


def test_the_notebook_runs_a_multi_turn_task_against_the_endpoint(
    ask_server: LabServer, page, fake: FakeOpenAI, tmp_path: Path
) -> None:
    import re

    fake.add(
        Script("I will write the plan now.\n" + block("nb-w1", "fs.write", path="nb-plan.md",
                                                      content_b64=b64("# Plan\n")), chunk=8),
        "Done: nb-plan.md is written.",
    )  # fmt: skip
    (ask_server.root / "agent.ipynb").write_text(json.dumps(_agent_notebook(fake, tmp_path)))
    page.goto(ask_server.page_url("lab/workspaces/agent-nb/tree/agent.ipynb"))
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=60_000)
    run_quick_cell(page, 0)
    run_quick_cell(page, 1)
    view = page.locator(".jpo-agent")
    view.get_by_text("I will write the plan now.").wait_for(timeout=60_000)
    card = view.locator(".jpo-card.jpo-kind-mutation")
    card.wait_for(timeout=60_000)
    assert "waiting for you" in view.locator(".jpo-agent-bar").inner_text()
    assert "turn 1/5" in view.locator(".jpo-agent-bar").inner_text()
    # the kernel answers another cell while the run waits for the decision
    run_quick_cell(page, 2)
    page.locator(".jp-Notebook .jp-Cell").nth(2).locator(".jp-OutputArea").get_by_text(
        "42"
    ).wait_for(timeout=30_000)
    assert not (ask_server.root / "nb-plan.md").exists()
    screenshot(page, "agent-notebook-waiting")
    card.locator("button.jupyter-button", has_text=re.compile(r"^\s*Approve\s*$")).click()
    view.get_by_text("ended: done").wait_for(timeout=30_000)
    assert (ask_server.root / "nb-plan.md").read_text() == "# Plan\n"
    view.get_by_text("Done: nb-plan.md is written.").wait_for()
    screenshot(page, "agent-notebook-done")
    assert fake.key not in page.content()
