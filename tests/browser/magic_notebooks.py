"""Notebooks whose first cell loads the extension from this checkout, and running their cells in
a real JupyterLab (shared by the browser tests of cards, JSON runs, string commands, edits,
cell diffs and Ask mode)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def setup_source(journal: Path, *more: str) -> str:
    """The first cell: import the code under test, keep the journal in ``journal``, load the
    extension, then ``more`` lines."""
    return "\n".join([
        "import os, sys",
        f"sys.path.insert(0, {str(REPO)!r})",  # the kernel imports this checkout, installed or not
        f"os.environ['JUPYTER_OPERATOR_JOURNAL_DIR'] = {str(journal)!r}",
        "%load_ext jupyter_operator",
        *more,
    ])  # fmt: skip


def magic_notebook(journal: Path, *cells: str, setup: str | None = None) -> dict[str, Any]:
    """A notebook of code cells: the setup cell (``setup_source(journal)`` unless given), then
    ``cells``."""
    sources = [setup if setup is not None else setup_source(journal), *cells]
    return {
        "cells": [
            {"cell_type": "code", "id": f"c{i}", "metadata": {}, "source": src, "outputs": [],
             "execution_count": None}
            for i, src in enumerate(sources)
        ],
        "metadata": {"kernelspec": KERNELSPEC},
        "nbformat": 4,
        "nbformat_minor": 5,
    }  # fmt: skip


def run_cell(page: Any, n: int) -> None:
    """Run cell ``n`` (click it, Shift+Enter)."""
    page.locator(".jp-Notebook .jp-Cell").nth(n).locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")


def run_quick_cell(page: Any, n: int = 0) -> None:
    """Run cell ``n``, a quick one that is safe to run twice, until its prompt has a count.

    A Shift+Enter sent while the kernel connection is still being set up is lost even after
    the status says idle (more often on a busy machine), so it is sent again.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    cell = page.locator(".jp-Notebook .jp-Cell").nth(n)
    ran = cell.locator(".jp-InputPrompt", has_text=re.compile(r"\[\d+\]:"))
    for _ in range(4):
        run_cell(page, n)
        try:
            ran.wait_for(timeout=15_000)
            return
        except PlaywrightTimeout:  # lost keystroke: try again
            continue
    ran.wait_for(timeout=15_000)


def run_both_cells(
    page: Any, card: str = ".jp-Operator-run-widget .jp-Operator-card[data-kind='mutation']"
) -> Any:
    """Run the setup cell, then the second cell once; return the first ``card`` it shows."""
    run_quick_cell(page)
    run_cell(page, 1)
    found = page.locator(card).first
    found.wait_for(timeout=60_000)
    return found
