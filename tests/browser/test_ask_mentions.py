"""Context by mention in a real JupyterLab: ``@`` in the Ask box completes a workspace file,
the server reads it through the jail and sends it to the model, and the card lists it."""

from __future__ import annotations

from pathlib import Path

import pytest
from ask_views import ASK, open_ask
from browserkit import LabServer, screenshot
from support.fake_openai import FakeOpenAI

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def ask_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A file to mention, and one in a protected folder that is never offered."""
    root = tmp_path_factory.mktemp("mention-root")
    (root / "data").mkdir()
    (root / "data" / "recipe.txt").write_text("the secret ingredient is cumin\n")
    (root / ".git").mkdir()
    (root / ".git" / "recipe-config").write_text("never listed\n")
    return root


def test_a_file_picked_after_at_goes_to_the_model_and_is_listed_on_the_card(
    ask_server: LabServer, page, fake: FakeOpenAI
) -> None:
    fake.add("The notes say cumin.")
    open_ask(page, ask_server)

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
