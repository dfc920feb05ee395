"""Real-browser fixtures: JupyterLab and Notebook 7 servers on loopback, headless chromium.

The servers run behind a non-root ``base_url`` (as under JupyterHub) with token auth on.
Chromium is the system one (``apt-get install chromium``); Playwright never downloads a browser.
Outside CI a missing chromium skips these tests with the reason; under CI it is an error.
Helpers live in ``browserkit.py`` (the Ask views' in ``ask_views.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from ask_views import start_ask_server
from browserkit import (
    CHROMIUM,
    CHROMIUM_ARGS,
    LabServer,
    require_chromium,
    start_server,
    stop_server,
)
from support.fake_openai import FakeOpenAI


@pytest.fixture(autouse=True)
def jp_asyncio_loop() -> None:
    """Replace pytest-jupyter's per-test loop here: Playwright's sync API keeps its own loop
    running in this thread, and that fixture would try to close it. No test in this folder
    uses an in-process jupyter-server."""
    return None


@pytest.fixture(autouse=True)
def jp_server_cleanup() -> None:
    """pytest-jupyter's cleanup needs that loop; no in-process server runs here."""
    return None


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    """JupyterLab with jupyter-operator installed, serving a fresh temporary root."""
    require_chromium()
    root = tmp_path_factory.mktemp("lab-root")
    settings = tmp_path_factory.mktemp("lab-settings")
    server = start_server(root, settings, "lab")
    yield server
    stop_server(server)


@pytest.fixture
def notebook_server(tmp_path: Path) -> Iterator[LabServer]:
    """Notebook 7 with jupyter-operator installed, serving a fresh temporary root."""
    require_chromium()
    root, settings = tmp_path / "root", tmp_path / "settings"
    root.mkdir()
    settings.mkdir()
    server = start_server(root, settings, app="notebook")
    yield server
    stop_server(server)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """One headless chromium for the session (Playwright's sync API)."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        instance = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    """A fresh browser page; its console errors are kept on ``page.console_errors``."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})  # type: ignore[attr-defined]
    new_page = context.new_page()
    new_page.console_errors = []
    new_page.on(
        "console", lambda m: m.type == "error" and new_page.console_errors.append(m.text)
    )
    yield new_page
    context.close()


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    """The loopback OpenAI-compatible endpoint of a module's Ask server."""
    with FakeOpenAI() as server:
        yield server


@pytest.fixture(scope="module")
def ask_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder the Ask server serves (empty; a module overrides it to start with files)."""
    return tmp_path_factory.mktemp("ask-root")


@pytest.fixture(scope="module")
def ask_server(
    tmp_path_factory: pytest.TempPathFactory, ask_root: Path, fake: FakeOpenAI
) -> Iterator[LabServer]:
    """JupyterLab whose Ask mode talks to ``fake``; the key is in the server's environment."""
    require_chromium()
    server = start_ask_server(tmp_path_factory, ask_root, fake)
    yield server
    stop_server(server)
