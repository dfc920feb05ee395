"""The results page of ``jupyter-operator view`` at scale: a 1,000-run results folder (20 tasks
x 5 models x 10 repeats, transcripts of 1 to 6 turns with a diff or a read each), written as
one HTML file and opened from disk in headless chromium. Target: load + first paint (the grid
drawn) under 2 s.

Per round, a fresh page: the first contentful paint (the page is empty until the grid is drawn,
so it is the grid's paint), the time until the grid is in the page as Playwright sees it from
outside, and the time from a click on a run until its first card is drawn. Medians and the
worst of the rounds are printed, with the time to load the folder and write the page.

Usage: ``python bench/viewer.py [--rounds 5] [--runs-per-cell 10]`` (Debian's chromium, as the
browser tests use).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent / "tests" / "browser"),
                str(HERE.parent / "tests")]  # fmt: skip

from browserkit import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from support.results_folders import results_folder  # noqa: E402

PAINT = ("new Promise(r => requestAnimationFrame(() => r(performance.getEntriesByName("
         "'first-contentful-paint').map(e => e.startTime))))")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs-per-cell", type=int, default=10)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    from jupyter_operator.experiments.viewdata import load_view
    from jupyter_operator.experiments.viewpage import page_html

    with tempfile.TemporaryDirectory() as folder:
        os.environ["JUPYTER_DATA_DIR"] = str(Path(folder) / "jupyter-data")
        out = results_folder(Path(folder) / "out", repeats=args.runs_per_cell)
        clock = time.perf_counter()
        data = load_view(out)
        loaded = time.perf_counter() - clock
        html = page_html(data)
        written = time.perf_counter() - clock - loaded
        target = Path(folder) / "results.html"
        target.write_text(html, encoding="utf-8")
        print(f"{len(data['runs'])} runs: folder read in {loaded:.2f} s, page made in "
              f"{written:.2f} s, {len(html) / 1e6:.1f} MB")  # fmt: skip
        paints, grids, opens = [], [], []
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for n in range(args.rounds):
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                clock = time.perf_counter()
                page.goto(target.as_uri(), wait_until="commit")
                page.locator(".jpo-v-grid").wait_for()
                grids.append(1000 * (time.perf_counter() - clock))
                paints.append((page.evaluate(PAINT) or [float("nan")])[0])
                page.wait_for_load_state("load")
                clock = time.perf_counter()
                page.locator("tr.jpo-v-run").nth(n * 37 % 200).click()
                page.locator(".jpo-v-transcript .jp-Operator-card").first.wait_for()
                opens.append(1000 * (time.perf_counter() - clock))
                page.close()
            browser.close()
    for name, values in (("first paint (the grid)", paints), ("grid in the page, from outside",
                         grids), ("click to a run's first card", opens)):  # fmt: skip
        print(f"{name}: median {statistics.median(values):.0f} ms, worst {max(values):.0f} ms "
              f"({args.rounds} rounds)")  # fmt: skip


if __name__ == "__main__":
    main()
