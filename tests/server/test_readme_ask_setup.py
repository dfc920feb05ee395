"""What the README tells a new user about giving the panel's Ask a model, checked against the
names the server and the model client really read."""

from __future__ import annotations

import re
from pathlib import Path

from jupyter_operator.agent import openai_chat
from jupyter_operator.server.agent_handlers import OperatorAgent

README = Path(__file__).resolve().parents[2] / "README.md"


def first_part() -> str:
    """The README up to its first rule: the set-up commands and what follows them at once."""
    return README.read_text(encoding="utf-8").split("\n---\n", 1)[0]


def test_the_set_up_commands_stay_first() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert lines[2] == "```bash" and lines[3].startswith("bash scripts/lab.sh")
    assert lines[4].startswith("bash scripts/test.sh")


def test_how_to_give_ask_a_model_is_said_near_the_top_with_the_real_names() -> None:
    top = first_part()
    assert "Ask a model" in top, "the README's first part does not say how to give Ask a model"
    for variable in (openai_chat.ENV_MODEL, openai_chat.ENV_API_KEY, openai_chat.ENV_BASE_URL):
        assert f"export {variable}=" in top, f"the README does not show {variable}"
    named = set(re.findall(r"c\.OperatorAgent\.(\w+)", top))
    assert {"model", "base_url", "api_key"} <= named
    unknown = named - set(OperatorAgent.class_trait_names(config=True))
    assert not unknown, f"the README names settings the server does not have: {unknown}"
    assert "No model configured on the server" in top  # what the panel says (ask.ts)


def test_the_no_config_path_names_the_panels_real_controls() -> None:
    """A person goes from lab.sh to asking with the panel alone: the README names the buttons
    the panel really has."""
    top = first_part()
    source = (README.parent / "labextension" / "src" / "askmodels.ts").read_text(encoding="utf-8")
    for control in ("Add model", "Save model"):
        assert f"**{control}**" in top and f"'{control}'" in source, control
    assert "c.OperatorAgent.prices" in top and "prices" in OperatorAgent.class_trait_names()
    assert "--endpoint NAME" in top and "%operator model NAME" in top
