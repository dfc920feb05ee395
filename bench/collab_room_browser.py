"""In a collaborative room (jupyter-collaboration): an approved 1-cell change to a 200-cell
notebook open in two pages, from the click on Approve in the first page until the new source
shows in the second page, against the first page's person pasting the same source into that
cell (one input over the selected source) until it shows in the second page, in one run.

The change goes to the room on the server (``server/rooms.py``): the decision's round trip,
the guard checked against the room's cell, one transaction on the shared document, which the
room broadcasts; the paste is the collaborator's own path (CodeMirror's input to the page's
shared model, its update to the room, the room's broadcast). Both end in the second page's
view. Target: the change at most 1.5x the paste. Kinds alternate in every round; medians per
round and the best round are printed. Windowed rendering is off (every cell is in the page).

Usage: ``python bench/collab_room_browser.py [--rounds 3] [--runs 8]`` (needs the extension
built, jupyter-collaboration installed (the test extra) and Debian's chromium, as the browser
tests do).
"""

from __future__ import annotations

import argparse
import base64
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "tests" / "browser"), str(HERE.parent / "tests")]

from browserkit import CHROMIUM, CHROMIUM_ARGS, start_server, stop_server  # noqa: E402

PANEL = "#jupyter-operator-panel"
CELLS = 200
TARGET = 100  # the cell both paths change
TARGET_RATIO = 1.5
SHOWS = """([index, text]) => {
  const cells = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell');
  const cell = cells[index];
  return !!cell && cell.querySelector('.cm-content').innerText.trim() === text;
}"""


def notebook() -> str:
    cells = [{"cell_type": "code", "id": f"c{i}", "metadata": {}, "outputs": [],
              "execution_count": None, "source": f"x{i} = {i}"} for i in range(CELLS)]  # fmt: skip
    return json.dumps({"cells": cells, "metadata": {"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5})  # fmt: skip


def source(n: int) -> str:
    return f"x{TARGET} = {n:06d}"  # the same size for both kinds


def wait_shows(page, text: str, started: float) -> float:
    handle = page.wait_for_function(SHOWS, arg=[TARGET, text], polling="raf", timeout=30_000)
    handle.dispose()
    return time.perf_counter() - started


def cell_editor(page):
    return page.locator(".jp-NotebookPanel:visible .jp-Cell").nth(TARGET).locator(".cm-content")


def paste(first, second, n: int) -> float:
    """The first page's person pastes; measured until the second page shows it."""
    text = source(n)
    cell_editor(first).click()
    first.keyboard.press("Control+a")
    started = time.perf_counter()
    first.keyboard.insert_text(text)  # what a paste delivers: one input of the whole text
    return wait_shows(second, text, started)


def approve(first, second, n: int) -> float:
    """An approved change from the first page's panel; measured until the second shows it."""
    text = source(n)
    reply = (f"OPERATOR_CMD\nversion: 1\nid: room-{n}\naction: nb.replaceCell\n"
             f"notebook: room.ipynb\ncell_id: c{TARGET}\n"
             f"content_b64: {base64.b64encode(text.encode()).decode()}\nEND_OPERATOR_CMD")
    first.locator(f"{PANEL} .jp-Operator-input").fill(reply)
    first.locator(f"{PANEL} .jp-Operator-run").click()
    card = first.locator(f'{PANEL} .jp-Operator-card[data-id="room-{n}"][data-status="pending"]')
    card.wait_for()
    started = time.perf_counter()
    card.locator(".jp-Operator-approve").click()
    elapsed = wait_shows(second, text, started)
    first.locator(f'{PANEL} .jp-Operator-card[data-id="room-{n}"][data-status="applied"]'
                  ).wait_for()  # fmt: skip
    return elapsed


def open_page(browser, server) -> object:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.goto(server.page_url(f"lab/workspaces/bench-{id(context)}/tree/room.ipynb"))
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=90_000)
    page.wait_for_function(SHOWS, arg=[TARGET, f"x{TARGET} = {TARGET}"], timeout=60_000)
    cell_editor(page).scroll_into_view_if_needed()
    return page


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root, settings = Path(folder) / "root", Path(folder) / "settings"
        root.mkdir()
        tracker = settings / "@jupyterlab" / "notebook-extension"
        tracker.mkdir(parents=True)
        (tracker / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
        (root / "room.ipynb").write_text(notebook())
        server = start_server(root, settings, "lab", collaboration=True)
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                first, second = open_page(browser, server), open_page(browser, server)
                if not first.locator(f"{PANEL} .jp-Operator-input").is_visible():
                    first.locator('.lm-TabBar-tab[data-id="jupyter-operator-panel"]').click()
                first.locator(f"{PANEL} .jp-Operator-input").wait_for(state="visible")
                paste(first, second, 0)  # warm both paths up (not measured)
                approve(first, second, 1)
                count, best = 2, None
                for round_no in range(1, args.rounds + 1):
                    changes, pastes = [], []
                    for _ in range(args.runs):
                        changes.append(approve(first, second, count))
                        pastes.append(paste(first, second, count + 1))
                        count += 2
                    c, p = statistics.median(changes), statistics.median(pastes)
                    ratio = c / p
                    print(f"round {round_no}: approved change visible in the second page, "
                          f"median {c * 1000:.0f} ms; the collaborator's paste, median "
                          f"{p * 1000:.0f} ms; ratio {ratio:.2f} "
                          f"({'within' if ratio <= TARGET_RATIO else 'OVER'} "
                          f"{TARGET_RATIO}x)")  # fmt: skip
                    if best is None or ratio < best[0]:
                        best = (ratio, c, p)
                assert best is not None
                print(f"best round: change {best[1] * 1000:.0f} ms, paste {best[2] * 1000:.0f} "
                      f"ms, ratio {best[0]:.2f} (target <= {TARGET_RATIO}x)")
                browser.close()
        finally:
            stop_server(server)


if __name__ == "__main__":
    main()
