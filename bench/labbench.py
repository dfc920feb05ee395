"""What the real-browser benches share: a JupyterLab server on a private folder with chromium,
a notebook's JSON, and rounds that alternate our path with the baseline's.

A plain module beside the benches (they run as scripts, with this folder on ``sys.path``); it
reuses the browser tests' server and chromium set-up (``tests/browser/browserkit.py``).
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "tests" / "browser"), str(HERE.parent / "tests")]

from browserkit import CHROMIUM, CHROMIUM_ARGS, start_server, stop_server  # noqa: E402

PANEL = "#jupyter-operator-panel"
VIEWPORT = {"width": 1400, "height": 900}


def notebook_json(sources: Mapping[str, str]) -> str:
    """An nbformat 4.5 Python notebook of code cells (cell id -> source), as text."""
    cells = [{"cell_type": "code", "id": cell_id, "metadata": {}, "outputs": [],
              "execution_count": None, "source": source}
             for cell_id, source in sources.items()]  # fmt: skip
    return json.dumps({"cells": cells, "metadata": {"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5})  # fmt: skip


@contextmanager
def lab_browser(files: Mapping[str, str], *, collaboration: bool = False,
                windowing: bool = True) -> Iterator[tuple[Any, Any]]:  # fmt: skip
    """A JupyterLab server on a private folder holding ``files`` and a chromium: yields
    ``(server, browser)``. ``windowing=False`` turns the notebook's virtual scrolling off, so
    every cell of a long notebook is in the page (a bench that watches one cell needs it)."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        root, settings = Path(folder) / "root", Path(folder) / "settings"
        root.mkdir()
        settings.mkdir()
        if not windowing:
            tracker = settings / "@jupyterlab" / "notebook-extension"
            tracker.mkdir(parents=True)
            (tracker / "tracker.jupyterlab-settings").write_text(
                json.dumps({"windowingMode": "none"}))  # fmt: skip
        for name, text in files.items():
            (root / name).write_text(text)
        server = start_server(root, settings, "lab", collaboration=collaboration)
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                try:
                    yield server, browser
                finally:
                    browser.close()
        finally:
            stop_server(server)


def show_panel(page: Any) -> None:
    """The Operator panel in view (its tab clicked unless the layout restored it)."""
    if not page.locator(f"{PANEL} .jp-Operator-input").is_visible():
        page.locator('.lm-TabBar-tab[data-id="jupyter-operator-panel"]').click()
    page.locator(f"{PANEL} .jp-Operator-input").wait_for(state="visible")


def alternate(rounds: int, runs: int, ours: Callable[[int], float],
              baseline: Callable[[int], float],
              report: Callable[[int, float, float], float],
              start: int = 0) -> tuple[float, float, float]:  # fmt: skip
    """``rounds`` of ``runs`` pairs, ours then the baseline's in every pair (so a slower moment
    of the machine falls on both); ``report(round, our median, baseline median)`` prints a
    round and returns its score (lower is better). Returns the best round's (score, ours,
    baseline). Each call gets a fresh number (from ``start``) to make its change unique."""
    count, best = start, None
    for round_no in range(1, rounds + 1):
        mine, theirs = [], []
        for _ in range(runs):
            mine.append(ours(count))
            theirs.append(baseline(count + 1))
            count += 2
        ours_median, baseline_median = statistics.median(mine), statistics.median(theirs)
        score = report(round_no, ours_median, baseline_median)
        if best is None or score < best[0]:
            best = (score, ours_median, baseline_median)
    assert best is not None
    return best
