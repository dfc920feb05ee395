"""The Ask views in a real JupyterLab: a server whose Ask mode talks to the loopback
OpenAI-compatible endpoint (``support.fake_openai``), and opening the view. The fixtures
(``fake``, ``ask_root``, ``ask_server``) are in this folder's conftest."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from browserkit import LabServer, start_server, wait_for_launcher
from support.fake_openai import FakeOpenAI

PANEL = "#jupyter-operator-panel"
ASK = f"{PANEL} .jp-Operator-ask"


def start_ask_server(
    tmp_path_factory: pytest.TempPathFactory, root: Path, fake: FakeOpenAI
) -> LabServer:
    """JupyterLab serving ``root`` whose Ask mode uses ``fake``; the key is in the server's
    environment only, the journal and transcripts in folders of their own."""
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
        return start_server(root, settings, "lab")


def open_ask(page, server: LabServer) -> None:
    """A fresh JupyterLab workspace with the Operator panel's Ask view open and ready."""
    page.goto(server.page_url(f"lab/workspaces/ask-{uuid.uuid4().hex[:8]}"))
    tab = page.locator('.lm-TabBar-tab[data-id="jupyter-operator-panel"]')
    tab.wait_for(timeout=60_000)
    page.locator("#jupyterlab-splash").wait_for(state="detached", timeout=60_000)
    wait_for_launcher(page)
    if "lm-mod-current" not in (tab.get_attribute("class") or ""):
        tab.click()
    page.locator(f"{ASK} .jp-Operator-ask-summary").click()
    page.locator(f"{ASK} .jp-Operator-ask-status").filter(has_text="fake-model").wait_for()
