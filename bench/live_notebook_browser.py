"""In a real JupyterLab: an approved 1-cell change to an open 200-cell notebook, from the click
on Approve until the new source shows in the open cell, against JupyterLab pasting the same
source into that cell (the whole text as one input over the selected source, as a paste
delivers it) until it shows, in one run.

The change goes to the open notebook's model (``labextension/src/livecells.ts``): the decision's
round trip to the server, which answers with the cell edits, the guard (the touched cell's
source sha256), then one transaction on the shared model; the paste is JupyterLab's own path
(CodeMirror's input to the shared model and back to the view). Target: the change at most 1.2x
the paste and at most 150 ms. Kinds alternate in every round; medians per round and the best
round are printed. Windowed rendering is off (every cell is in the page, as the person scrolled
to it).

Usage: ``python bench/live_notebook_browser.py [--rounds 3] [--runs 8]`` (needs the extension
built and Debian's chromium, as the browser tests do).
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
DECIDE: list[float] = []  # click until the decision's answer arrived (the server's part)
CELLS = 200
TARGET = 100  # the cell both paths change
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


def wait_shows(page, text: str, started: float) -> float:
    handle = page.wait_for_function(SHOWS, arg=[TARGET, text], polling="raf", timeout=30_000)
    handle.dispose()
    return time.perf_counter() - started


def cell_editor(page):
    return page.locator(".jp-NotebookPanel:visible .jp-Cell").nth(TARGET).locator(".cm-content")


def paste(page, n: int) -> float:
    text = f"x{TARGET} = {n}"
    cell_editor(page).click()
    page.keyboard.press("Control+a")
    started = time.perf_counter()
    page.keyboard.insert_text(text)  # what a paste delivers: one input of the whole text
    elapsed = wait_shows(page, text, started)
    # Saved (not measured): the next change is previewed on the file, which must hold the
    # pasted source, else its guard rightly refuses it as stale.
    page.keyboard.press("Control+s")
    page.wait_for_function("() => !document.querySelector('.lm-DockPanel-tabBar "
                           ".lm-mod-current.jp-mod-dirty')")  # fmt: skip
    return elapsed


def approve(page, n: int) -> float:
    text = f"x{TARGET} = {n}"
    reply = (f"OPERATOR_CMD\nversion: 1\nid: live-{n}\naction: nb.replaceCell\n"
             f"notebook: live.ipynb\ncell_id: c{TARGET}\n"
             f"content_b64: {base64.b64encode(text.encode()).decode()}\nEND_OPERATOR_CMD")
    page.locator(f"{PANEL} .jp-Operator-input").fill(reply)
    page.locator(f"{PANEL} .jp-Operator-run").click()
    card = page.locator(f'{PANEL} .jp-Operator-card[data-id="live-{n}"][data-status="pending"]')
    card.wait_for()
    with page.expect_response(lambda r: "/decide" in r.url):
        started = time.perf_counter()
        card.locator(".jp-Operator-approve").click()
    DECIDE.append(time.perf_counter() - started)
    elapsed = wait_shows(page, text, started)
    page.locator(f'{PANEL} .jp-Operator-card[data-id="live-{n}"][data-status="applied"]'
                 ).wait_for()  # fmt: skip
    return elapsed


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
        (root / "live.ipynb").write_text(notebook())
        server = start_server(root, settings, "lab")
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                context = browser.new_context(viewport={"width": 1400, "height": 900})
                page = context.new_page()
                page.goto(server.page_url("lab/workspaces/bench/tree/live.ipynb"))
                page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=90_000)
                if not page.locator(f"{PANEL} .jp-Operator-input").is_visible():
                    page.locator('.lm-TabBar-tab[data-id="jupyter-operator-panel"]').click()
                page.locator(f"{PANEL} .jp-Operator-input").wait_for(state="visible")
                cell_editor(page).scroll_into_view_if_needed()
                paste(page, 0)  # warm both paths up (not measured)
                approve(page, 1)
                count, best = 2, None
                for round_no in range(1, args.rounds + 1):
                    changes, pastes = [], []
                    for _ in range(args.runs):
                        changes.append(approve(page, count))
                        pastes.append(paste(page, count + 1))
                        count += 2
                    c, p = statistics.median(changes), statistics.median(pastes)
                    d = statistics.median(DECIDE[-args.runs:])
                    ratio = c / p
                    ok = ratio <= 1.2 and c <= 0.150
                    print(f"round {round_no}: approve to visible median {c * 1000:.0f} ms, "
                          f"paste to visible median {p * 1000:.0f} ms, ratio {ratio:.2f} "
                          f"({'within' if ok else 'OVER'} 1.2x and 150 ms); of it, click to "
                          f"the decision's answer {d * 1000:.0f} ms")  # fmt: skip
                    if best is None or ratio < best[0]:
                        best = (ratio, c, p)
                assert best is not None
                print(f"best round: approve {best[1] * 1000:.0f} ms, paste {best[2] * 1000:.0f} "
                      f"ms, ratio {best[0]:.2f} (target <= 1.2x and <= 150 ms)")
                browser.close()
        finally:
            stop_server(server)


if __name__ == "__main__":
    main()
