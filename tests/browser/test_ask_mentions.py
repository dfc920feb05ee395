"""Context by mention in a real JupyterLab: ``@`` in the Ask box completes a workspace file,
the server reads it through the jail and sends it to the model, and the card lists it."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import pytest
from browserkit import LabServer, screenshot, start_server, stop_server, wait_for_launcher
from support.fake_openai import FakeOpenAI

pytestmark = pytest.mark.timeout(240)

PANEL = "#jupyter-operator-panel"
ASK = f"{PANEL} .jp-Operator-ask"


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture(scope="module")
def ask_server(tmp_path_factory: pytest.TempPathFactory, fake: FakeOpenAI) -> Iterator[LabServer]:
    """JupyterLab whose Ask mode talks to ``fake``, with a file to mention and one protected."""
    root = tmp_path_factory.mktemp("mention-root")
    (root / "data").mkdir()
    (root / "data" / "recipe.txt").write_text("the secret ingredient is cumin\n")
    (root / ".git").mkdir()
    (root / ".git" / "recipe-config").write_text("never listed\n")
    settings = tmp_path_factory.mktemp("mention-settings")
    config = tmp_path_factory.mktemp("mention-config")
    (config / "jupyter_server_config.json").write_text(json.dumps({
        "OperatorAgent": {"model": "fake-model", "base_url": fake.url,
                          "transcripts_dir": str(tmp_path_factory.mktemp("mention-runs"))},
        "OperatorExtension": {"journal_dir": str(tmp_path_factory.mktemp("mention-journal"))},
    }))  # fmt: skip
    with pytest.MonkeyPatch.context() as env:
        env.setenv("JUPYTER_CONFIG_DIR", str(config))
        env.setenv("OPENAI_API_KEY", fake.key)
        server = start_server(root, settings, "lab")
    yield server
    stop_server(server)


def test_a_file_picked_after_at_goes_to_the_model_and_is_listed_on_the_card(
    ask_server: LabServer, page, fake: FakeOpenAI
) -> None:
    fake.add("The notes say cumin.")
    page.goto(ask_server.page_url(f"lab/workspaces/mention-{uuid.uuid4().hex[:8]}"))
    tab = page.locator('.lm-TabBar-tab[data-id="jupyter-operator-panel"]')
    tab.wait_for(timeout=60_000)
    page.locator("#jupyterlab-splash").wait_for(state="detached", timeout=60_000)
    wait_for_launcher(page)
    if "lm-mod-current" not in (tab.get_attribute("class") or ""):
        tab.click()
    page.locator(f"{ASK} .jp-Operator-ask-summary").click()
    page.locator(f"{ASK} .jp-Operator-ask-status").filter(has_text="fake-model").wait_for()

    box = page.locator(f"{ASK} .jp-Operator-ask-task")
    box.click()
    box.press_sequentially("What does @reci")
    choice = page.locator(f'{ASK} .jp-Operator-mention-choice[data-token="data/recipe.txt"]')
    choice.wait_for()
    # the protected folder is never offered, whatever matches the query
    assert page.locator(f"{ASK} .jp-Operator-mention-choice").all_inner_texts() == [
        "data/recipe.txt"
    ]
    screenshot(page, "ask-mention-completion")
    box.press("Enter")  # picks the highlighted file
    assert box.input_value() == "What does @data/recipe.txt "
    box.press_sequentially("say?")
    page.locator(f"{ASK} .jp-Operator-ask-button").click()

    attached = page.locator(f"{ASK} .jp-Operator-ask-attached")
    attached.filter(has_text="data/recipe.txt (31 characters)").wait_for()
    page.locator(f"{ASK} .jp-Operator-ask-prose").filter(has_text="The notes say cumin").wait_for()
    sent = fake.requests[-1]["messages"][-1]["content"]
    assert sent.startswith("What does @data/recipe.txt say?")
    assert "The file data/recipe.txt:\n```\nthe secret ingredient is cumin\n```" in sent
    # the box keeps what the person typed (asking again attaches the file afresh)
    assert box.input_value() == "What does @data/recipe.txt say?"
    screenshot(page, "ask-mention-attached")
