"""In a real JupyterLab: an approved 1-cell change to an open 200-cell notebook, from the click
on Approve until the new source shows in the open cell, against JupyterLab pasting the same
source into that cell (the whole text as one input over the selected source, as a paste
delivers it) until it shows, in one run.

The change goes to the open notebook's model (``labextension/src/livecells.ts``): at the click
the page checks the guard (the touched cell's source sha256) and applies the cell edits the
card was planned with, while the decision travels to the server, which confirms the same edits
(the page's report, ``live``, then records it); the paste is JupyterLab's own path (CodeMirror's
input to the shared model and back to the view). The change is watched for from the click on,
not from the decision's answer. Target: the change at most 1.2x
the paste and at most 150 ms. Kinds alternate in every round; medians per round and the best
round are printed. Windowed rendering is off (every cell is in the page, as the person scrolled
to it).

The click is one raw input on the button the pointer rests on and has pressed (the release,
which fires the click), as the paste is one raw input over the source already selected (a
locator's click would add the driver's own checks, and timing the press as well a second
driver round trip, to one side only). ``--timings`` adds
where the time goes by the page's own clock (``performance.now()``, no driver in between):
from the click event, the decision's request sent, its answer's headers, the change shown, the
page's report (``live``) sent and answered; from the paste's input event, the paste shown;
for both, the frame that draws it (``painted``).

Usage: ``python bench/live_notebook_browser.py [--rounds 3] [--runs 8] [--timings]`` (needs
the extension built and Debian's chromium, as the browser tests do).
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
STEPS: dict[str, list[float]] = {}  # with --timings: each step's time after the click, ms
CELLS = 200
TARGET = 100  # the cell both paths change
#: With ``--timings``: where the page's clock says the time went (performance.now(), ms).
PROBE = """(() => {
  const t = (window.__liveTimes = { marks: [] });
  const mark = name => t.marks.push([name, performance.now()]);
  document.addEventListener('click', e => {
    if (e.target.closest && e.target.closest('.jp-Operator-approve')) {
      t.marks = [];
      mark('click');
    }
  }, true);
  document.addEventListener('beforeinput', () => { t.marks = []; mark('paste'); }, true);
  const fetch0 = window.fetch;
  window.fetch = async function (input, init) {
    const url = typeof input === 'string' ? input : input.url;
    const name = /\\/decide/.test(url) ? 'decide' : /\\/live\\b/.test(url) ? 'live' : null;
    if (name) mark(name + ' sent');
    const response = await fetch0.call(this, input, init);
    if (name) {
      mark(name + ' headers');
      response.clone().text().then(() => mark(name + ' body'));
    }
    return response;
  };
  const observer = new MutationObserver(() => {
    const cells = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell');
    const cell = cells[window.__liveTarget];
    const text = cell && cell.querySelector('.cm-content').innerText.trim();
    if (text && text !== t.last) {
      t.last = text;
      mark('shown ' + text);
      requestAnimationFrame(() => mark('painted'));  // the frame that draws it
    }
  });
  document.addEventListener('DOMContentLoaded', () =>
    observer.observe(document.body, { subtree: true, childList: true, characterData: true }));
})()"""
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
    page_clock(page, "paste", text)
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
    # The click is one raw input at the button's place, as the paste is one raw input: the
    # driver's checks before a locator's click are not part of the page's path.
    # The pointer rests on the button first, as the paste's text is selected first.
    # (in view first: with no model configured, the Ask view's Add model form is open above)
    card.locator(".jp-Operator-approve").scroll_into_view_if_needed()
    box = card.locator(".jp-Operator-approve").bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()  # pressed, not yet clicked: the click event comes with the release
    # No driver waiter on the decision's request here: the driver would handle that response's
    # event before the page's answer to the wait below, adding the request's round trip to the
    # change's time (``--timings`` has the decision's times, by the page's clock).
    started = time.perf_counter()
    page.mouse.up()  # the one raw input that clicks, as the paste is one raw input
    # Watched from the click on: the page shows the change before the decision's answer.
    elapsed = wait_shows(page, text, started)
    page.locator(f'{PANEL} .jp-Operator-card[data-id="live-{n}"][data-status="applied"]'
                 ).wait_for()  # fmt: skip
    page_clock(page, "click", text)
    return elapsed


def page_clock(page, start: str, text: str) -> None:
    """With ``--timings``: each step's time after ``start`` (the click or the paste's input),
    by the page's own clock (no driver between the page and the figures)."""
    marks = page.evaluate("() => window.__liveTimes ? window.__liveTimes.marks : []")
    started = dict(marks).get(start)
    for name, at in marks if started is not None else []:
        if name == f"shown {text}":
            STEPS.setdefault(f"{start}: shown", []).append(at - started)
        elif name != start and not name.startswith("shown "):
            STEPS.setdefault(f"{start}: {name}", []).append(at - started)


def spread(times: list[float]) -> str:
    """The range of one round's times, ms."""
    return f"{min(times) * 1000:.0f}-{max(times) * 1000:.0f}"


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--timings", action="store_true",
                        help="also print where the time goes, by the page's clock")
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
                if args.timings:
                    page.add_init_script(PROBE + f";window.__liveTarget = {TARGET};")
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
                    ratio = c / p
                    ok = ratio <= 1.2 and c <= 0.150
                    print(f"round {round_no}: approve to visible median {c * 1000:.0f} ms "
                          f"({spread(changes)}), paste to visible median {p * 1000:.0f} ms "
                          f"({spread(pastes)}), ratio {ratio:.2f} "
                          f"({'within' if ok else 'OVER'} 1.2x and 150 ms)")  # fmt: skip
                    if STEPS:
                        steps = sorted((statistics.median(v[-args.runs:]), k)
                                       for k, v in STEPS.items())  # fmt: skip
                        print("  by the page's clock (medians, ms): " + ", ".join(
                            f"{k} {v:.0f}" for v, k in steps))  # fmt: skip
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
