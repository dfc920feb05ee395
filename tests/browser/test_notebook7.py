"""Smoke test: the Operator panel and its commands load and work in Notebook 7."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(180)

PANEL = "#jupyter-operator-panel"


@pytest.fixture(autouse=True)
def jp_asyncio_loop() -> None:
    """Replace pytest-jupyter's autouse loop fixture (it would close Playwright's running loop)."""
    return None


@pytest.fixture(autouse=True)
def jp_server_cleanup() -> None:
    """pytest-jupyter's cleanup needs that loop; no in-process server runs in these tests."""
    return None


def _fixtures():
    from test_lab_panel import _browser_conftest  # same folder, on sys.path under pytest

    return _browser_conftest()


def run_palette_command(page, text: str, item: str) -> None:
    from test_lab_panel import run_palette_command as run

    run(page, text, item)


@pytest.fixture
def notebook_server(tmp_path: Path):
    fixtures = _fixtures()
    fixtures._require_chromium()
    root = tmp_path / "root"
    settings = tmp_path / "settings"
    root.mkdir()
    settings.mkdir()
    server = fixtures.start_server(root, settings, app="notebook")
    yield server
    fixtures.stop_server(server)


def test_panel_and_cell_command_in_notebook7(notebook_server, page) -> None:
    root = notebook_server.root
    (root / "hello.txt").write_text("hello from notebook 7\n")
    source = "\n".join(
        [
            "%%operator",
            "OPERATOR_CMD",
            "version: 1",
            "id: nb7-read",
            "action: fs.read",
            "path: hello.txt",
            "END_OPERATOR_CMD",
        ]
    )
    notebook = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "id": "c1",
                "metadata": {},
                "source": source,
                "outputs": [],
            }
        ],
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (root / "nb7.ipynb").write_text(json.dumps(notebook))
    # The file browser page loads the plugin too; it must not fail there.
    page.goto(notebook_server.page_url("tree"))
    page.locator(".jp-DirListing-item", has_text="nb7.ipynb").wait_for(timeout=60_000)
    assert not [e for e in page.console_errors if "operator" in e.lower()]

    page.goto(notebook_server.page_url("notebooks/nb7.ipynb"))
    page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=60_000)

    # The palette command opens the panel in Notebook 7's right side area.
    run_palette_command(page, "Operator: Open panel", "Operator: Open panel")
    page.locator(f"{PANEL} .jp-Operator-input").wait_for(state="visible")

    # The cell toolbar button sends the cell's commands to the server behind the base_url.
    page.locator(".jp-Notebook .jp-Cell .jp-InputArea-editor").first.click()
    page.locator('.jp-cell-toolbar [data-command="jupyter-operator:run-cell"]').first.click()
    card = page.locator(f'{PANEL} .jp-Operator-card[data-id="nb7-read"][data-status="done"]')
    card.wait_for()
    assert "hello from notebook 7" in card.text_content()
    assert "source" in page.locator(f"{PANEL} .jp-Operator-source").text_content()
    _fixtures().screenshot(page, "notebook7-panel")
    assert not [e for e in page.console_errors if "operator" in e.lower()]
