"""Helpers for the real-browser tests: JupyterLab / Notebook 7 servers, chromium, screenshots.

A plain module (not the conftest) so test modules can import it by name: no test folder is a
package, so every ``conftest.py`` is loaded under the same module name.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

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
    port: int = 0

    def page_url(self, path: str) -> str:
        return f"{self.url}{path}{'&' if '?' in path else '?'}token={self.token}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def require_chromium() -> None:
    if Path(CHROMIUM).exists():
        return
    message = f"headless chromium not found at {CHROMIUM} (apt-get install chromium)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def collaboration_installed() -> bool:
    """Whether jupyter-collaboration's server extension is in this environment."""
    return importlib.util.find_spec("jupyter_server_ydoc") is not None


#: What jupyter-collaboration adds to JupyterLab: its server extensions and lab extensions.
COLLABORATION_SERVER = ("jupyter_server_ydoc", "jupyter_server_fileid")
COLLABORATION_LAB = ("@jupyter/collaboration-extension", "@jupyter/docprovider-extension")


def collaboration_args(collaboration: bool) -> list[str]:
    """The switch of real-time collaboration for a server: installing jupyter-collaboration
    turns it on for every JupyterLab of the environment, so a server is started with it off
    (its own supported switch, ``disable_rtc``: the pages keep the local documents and no
    room is opened; ``without_collaboration`` removes its extensions too) unless it is the
    point of the test."""
    if collaboration:
        if not collaboration_installed():
            message = "jupyter-collaboration is not installed (pip install -e '.[test]')"
            if os.environ.get("CI"):
                pytest.fail(message)
            pytest.skip(message)
        return ["--YDocExtension.disable_rtc=False"]
    return ["--YDocExtension.disable_rtc=True"] if collaboration_installed() else []


def without_collaboration(settings: Path) -> dict[str, str]:
    """The environment of a server that runs as if jupyter-collaboration were not installed:
    a config folder of its own, first on ``JUPYTER_CONFIG_PATH`` (above the environment's,
    below a test's own ``JUPYTER_CONFIG_DIR``), with what ``jupyter server extension disable``
    and ``jupyter labextension disable`` write for its extensions: so the pages keep
    JupyterLab's own file browser, drive and top bar, exactly as without it."""
    if not collaboration_installed():
        return {}
    config = settings / "without-collaboration"
    (config / "labconfig").mkdir(parents=True, exist_ok=True)
    (config / "jupyter_server_config.json").write_text(json.dumps(
        {"ServerApp": {"jpserver_extensions": dict.fromkeys(COLLABORATION_SERVER, False)}}))
    (config / "labconfig" / "page_config.json").write_text(json.dumps(
        {"disabledExtensions": dict.fromkeys(COLLABORATION_LAB, True)}))  # fmt: skip
    paths = [str(config), *filter(None, [os.environ.get("JUPYTER_CONFIG_PATH")])]
    return {"JUPYTER_CONFIG_PATH": os.pathsep.join(paths)}


def start_server(
    root: Path, settings: Path, app: str = "lab", port: int | None = None,
    extra_env: dict[str, str] | None = None, extra_args: list[str] | None = None,
    collaboration: bool = False,
) -> LabServer:
    """Start ``jupyter <app>`` on a loopback port (a free one unless given) and wait until it
    answers. Restarting on the same port keeps the page's origin (and its local storage).
    ``extra_args`` are added to the command line (extension configuration, for instance).
    Real-time collaboration is off unless ``collaboration`` (``collaboration_args``)."""
    port = port or free_port()
    notification = settings / "@jupyterlab" / "apputils-extension"
    notification.mkdir(parents=True, exist_ok=True)
    (notification / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )
    env = {**os.environ, "JUPYTERLAB_SETTINGS_DIR": str(settings), "JUPYTER_PLATFORM_DIRS": "1",
           **({} if collaboration else without_collaboration(settings)), **(extra_env or {})}
    log = (settings / f"{app}.log").open("wb")
    process = subprocess.Popen(
        [
            sys.executable, "-m", "jupyter", app, "--no-browser", "--allow-root",
            f"--port={port}", "--ip=127.0.0.1",
            f"--IdentityProvider.token={TOKEN}",
            f"--ServerApp.base_url={BASE_URL}",
            f"--ServerApp.root_dir={root}",
            "--ServerApp.allow_unauthenticated_access=False",
            *collaboration_args(collaboration),
            *(extra_args or []),
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
                return LabServer(url=url, token=TOKEN, root=root, process=process, port=port)
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


def screenshot(page: object, name: str) -> Path:
    """Save a screenshot under ``artifacts/screenshots/`` (kept by CI as an artifact)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    target = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(target), full_page=False)  # type: ignore[attr-defined]
    return target


def python_executable() -> str:
    """The interpreter the kernels use (the test environment's)."""
    return shutil.which("python") or sys.executable


def wait_for_launcher(page) -> None:
    """Wait until Lab has added and activated the Launcher of an empty main area.

    Lab adds it only once its file browser has restored, which can be seconds after the
    splash screen goes under load, and activating it takes the keyboard focus: keys a test
    types meanwhile land in the Launcher. Two animation frames: Lumino posts the activation
    and runs it on the next frame.
    """
    page.locator(".jp-Launcher").first.wait_for(state="attached", timeout=60_000)
    page.evaluate(
        "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"
    )


def run_palette_command(page, text: str, item: str) -> None:
    """Run a command through the palette (Ctrl+Shift+C), filtering by ``text``.

    Retried: the modal palette closes when focus moves while the page is still settling.
    """
    palette = page.locator(".lm-CommandPalette-input")
    for _ in range(5):
        if not palette.is_visible():
            page.keyboard.press("Control+Shift+C")
        try:
            palette.wait_for(state="visible", timeout=5_000)
            palette.fill(text, timeout=5_000)
            # Click the item found rather than pressing Enter: Enter runs whichever item the
            # palette's fuzzy ranking put first, which is not always the one asked for.
            entry = page.locator(".lm-CommandPalette-item", has_text=item).first
            entry.wait_for(timeout=5_000)
            entry.click(timeout=5_000)
            return
        except PlaywrightTimeoutError:
            if palette.is_visible():
                page.keyboard.press("Escape")
    raise AssertionError(f"the command palette did not run {text!r}")


def show_operator_panel(page) -> None:
    """Show the Operator panel in the left sidebar, whatever layout the page restored.

    The saved layout decides which sidebar tab is current after a load, and JupyterLab saves
    it a moment after a change, so a reload may bring back another tab (or none). Clicking a
    tab that is already current would close the sidebar, hence the check, retried while the
    shell is still settling.
    """
    tab = page.locator('.lm-TabBar-tab[data-id="jupyter-operator-panel"]')
    tab.wait_for(timeout=60_000)
    page.locator("#jupyterlab-splash").wait_for(state="detached", timeout=60_000)
    panel = page.locator("#jupyter-operator-panel")
    for _ in range(5):
        if "lm-mod-current" not in (tab.get_attribute("class") or ""):
            tab.click()
        try:
            panel.wait_for(state="visible", timeout=5_000)
            return
        except PlaywrightTimeoutError:
            continue
    panel.wait_for(state="visible", timeout=5_000)
