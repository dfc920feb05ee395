"""Real-browser fixtures: a JupyterLab server on loopback and headless Debian chromium.

The server runs behind a non-root ``base_url`` (as under JupyterHub) with token auth on.
Chromium is the system one (``apt-get install chromium``); Playwright never downloads a browser.
Outside CI a missing chromium skips these tests with the reason; under CI it is an error.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("JUPYTER_OPERATOR_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TOKEN = "operator-test-token"
BASE_URL = "/hub/user/tester/"
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"


@dataclass
class LabServer:
    """A running ``jupyter lab`` (or ``jupyter notebook``) process."""

    url: str  # ends with the base_url, e.g. http://127.0.0.1:PORT/hub/user/tester/
    token: str
    root: Path
    process: subprocess.Popen[bytes]

    def page_url(self, path: str) -> str:
        return f"{self.url}{path}{'&' if '?' in path else '?'}token={self.token}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _require_chromium() -> None:
    if Path(CHROMIUM).exists():
        return
    message = f"headless chromium not found at {CHROMIUM} (apt-get install chromium)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def start_server(root: Path, settings: Path, app: str = "lab") -> LabServer:
    """Start ``jupyter <app>`` on a free loopback port and wait until it answers."""
    port = _free_port()
    notification = settings / "@jupyterlab" / "apputils-extension"
    notification.mkdir(parents=True, exist_ok=True)
    (notification / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )
    env = dict(os.environ, JUPYTERLAB_SETTINGS_DIR=str(settings), JUPYTER_PLATFORM_DIRS="1")
    log = (settings / f"{app}.log").open("wb")
    process = subprocess.Popen(
        [
            sys.executable, "-m", "jupyter", app, "--no-browser", "--allow-root",
            f"--port={port}", "--ip=127.0.0.1",
            f"--IdentityProvider.token={TOKEN}",
            f"--ServerApp.base_url={BASE_URL}",
            f"--ServerApp.root_dir={root}",
            "--ServerApp.allow_unauthenticated_access=False",
        ],
        cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}{BASE_URL}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"jupyter {app} exited; see {settings / f'{app}.log'}")
        try:
            request = urllib.request.Request(
                url + "api/status", headers={"Authorization": f"token {TOKEN}"}
            )
            with urllib.request.urlopen(request, timeout=2):
                return LabServer(url=url, token=TOKEN, root=root, process=process)
        except OSError:
            time.sleep(0.3)
    process.terminate()
    raise RuntimeError(f"jupyter {app} did not answer within 60 s")


def stop_server(server: LabServer) -> None:
    server.process.terminate()
    try:
        server.process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.process.kill()


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    """JupyterLab with jupyter-operator installed, serving a fresh temporary root."""
    _require_chromium()
    root = tmp_path_factory.mktemp("lab-root")
    settings = tmp_path_factory.mktemp("lab-settings")
    server = start_server(root, settings, "lab")
    yield server
    stop_server(server)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """One headless chromium for the session (Playwright's sync API)."""
    _require_chromium()
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


def screenshot(page: object, name: str) -> Path:
    """Save a screenshot under ``artifacts/screenshots/`` (kept by CI as an artifact)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    target = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(target), full_page=False)  # type: ignore[attr-defined]
    return target


def python_executable() -> str:
    """The interpreter the kernels use (the test environment's)."""
    return shutil.which("python") or sys.executable
