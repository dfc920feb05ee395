"""The notebook cards with the lab extension disabled (``jupyter labextension disable
jupyter-operator``): what VS Code and Colab rely on, since the cards are an anywidget module
shipped in the Python package and need no lab extension."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browserkit import LabServer, require_chromium, screenshot, start_server, stop_server
from magic_notebooks import magic_notebook, run_both_cells
from notebook_cards import ADDED, button, card_by_id, status_is
from support.replies import b64, block

pytestmark = pytest.mark.timeout(240)


@pytest.fixture
def lab_without_extension(tmp_path: Path) -> Iterator[LabServer]:
    """JupyterLab whose page config disables the jupyter-operator lab extension."""
    require_chromium()
    root, settings, config = tmp_path / "root", tmp_path / "settings", tmp_path / "config"
    for folder in (root, settings, config / "labconfig"):
        folder.mkdir(parents=True)
    # What `jupyter labextension disable jupyter-operator` writes, in a config folder of its
    # own (the environment's stays as it is for the other tests).
    (config / "labconfig" / "page_config.json").write_text(
        json.dumps({"disabledExtensions": {"jupyter-operator": True}})
    )
    server = start_server(root, settings, "lab", extra_env={"JUPYTER_CONFIG_DIR": str(config)})
    yield server
    stop_server(server)


def test_cards_render_and_decide_with_the_lab_extension_disabled(
    lab_without_extension: LabServer, page: Any, tmp_path: Path
) -> None:
    server = lab_without_extension
    journal = tmp_path / "journal"
    journal.mkdir()
    reply = block("nx-1", "fs.write", path="no-extension.txt", content_b64=b64("made\n"))
    notebook = magic_notebook(journal, "%%operator\n" + reply)
    (server.root / "no-extension.ipynb").write_text(json.dumps(notebook))
    page.goto(server.page_url("lab/tree/no-extension.ipynb"))
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=60_000)
    # The lab extension really is off: JupyterLab lists it as disabled, and no panel exists.
    disabled = page.evaluate(
        "JSON.parse(document.getElementById('jupyter-config-data').textContent)"
        ".disabledExtensions"
    )
    assert "jupyter-operator" in json.dumps(disabled)
    assert page.locator("#jupyter-operator-panel").count() == 0

    card = run_both_cells(page)
    card.locator(ADDED, has_text="made").wait_for()
    screenshot(page, "notebook-card-without-lab-extension")
    button(card, "Approve").click()
    status_is(card, "applied")
    deadline = time.monotonic() + 30
    while not (server.root / "no-extension.txt").exists():
        assert time.monotonic() < deadline, "the file was not written"
        time.sleep(0.2)
    assert (server.root / "no-extension.txt").read_text() == "made\n"
    assert card_by_id(page, "nx-1").get_attribute("data-status") == "applied"
