"""An approved change to a notebook open in JupyterLab shows at the click: the page applies the
edits the card was planned with to its own notebook while the decision travels, and the
engine's answer decides. Confirmed, the change stays (the history says "open notebook"); a
refusal after the page's own check passed (here: the item was decided elsewhere meanwhile)
puts the touched cells back exactly; a save made while the decision travels waits for it and
writes only what the engine confirmed. The file beneath the page is never written by the
change itself."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from test_lab_cell_runs import block
from test_lab_open_notebooks import cell_texts, is_dirty, no_dialog, wait_cells
from test_lab_panel import b64, card, command, open_lab, run_reply, screenshot, wait_status

pytestmark = pytest.mark.timeout(300)

#: Cells with what a refused change must leave exactly so: outputs, counts, metadata, order.
CELLS = [
    {"cell_type": "code", "id": "first", "metadata": {"tags": ["keep"]}, "source": "a = 1",
     "outputs": [{"output_type": "stream", "name": "stdout", "text": "one\n"}],
     "execution_count": 1},
    {"cell_type": "code", "id": "second", "metadata": {"tags": ["two"], "x": {"k": 1}},
     "source": "b = 2",
     "outputs": [{"output_type": "execute_result", "data": {"text/plain": "2"},
                  "metadata": {}, "execution_count": 2}],
     "execution_count": 2},
    {"cell_type": "markdown", "id": "third", "metadata": {}, "source": "# notes"},
    {"cell_type": "code", "id": "fourth", "metadata": {}, "source": "d = 4", "outputs": [],
     "execution_count": None},
]  # fmt: skip


def write_notebook(path: Path) -> None:
    nb = nbformat.from_dict({"cells": CELLS, "metadata": {"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5})  # fmt: skip
    path.write_text(nbformat.writes(nb) + "\n")


def changed(path: Path) -> str:
    """The notebook with every kind of cell edit: the second cell rewritten (its outputs
    cleared), the markdown cell deleted, the last cell moved first, a new cell inserted."""
    nb = nbformat.read(path, as_version=4)
    second = nb.cells[1]
    second.source, second.outputs, second.execution_count = "b = 20", [], None
    new = nbformat.v4.new_code_cell("n = 0")
    new.id = "inserted"
    nb.cells = [nb.cells[3], nb.cells[0], new, second]
    return nbformat.writes(nb) + "\n"


def saved_cells(path: Path) -> list[dict]:
    return [{key: cell.get(key) for key in ("id", "cell_type", "source", "metadata", "outputs",
                                            "execution_count")}
            for cell in nbformat.read(path, as_version=4).cells]  # fmt: skip


def shown(page) -> list[str]:
    return [t.strip() for t in cell_texts(page)]


def output_texts(page) -> list[str]:
    return [t.strip() for t in page.locator(
        ".jp-NotebookPanel:visible .jp-Cell .jp-OutputArea-output").all_inner_texts()]  # fmt: skip


class HeldDecisions:
    """Holds each decision request of the page until ``release`` (the decision in flight for
    as long as the test needs); ``elsewhere`` first decides the item from another client."""

    def __init__(self, page, server) -> None:
        self.routes: list = []
        self.server = server
        page.route(re.compile(r"/sessions/[^/?]+/decide\b"),
                   lambda route: self.routes.append(route))  # fmt: skip

    def wait(self, page) -> None:
        deadline = time.monotonic() + 30
        while not self.routes:
            if time.monotonic() > deadline:
                screenshot(page, "lab-open-notebook-first-no-decision")
                raise AssertionError("no decision was sent")
            page.wait_for_timeout(50)

    def elsewhere(self, decision: str) -> None:
        """Another client decides the item meanwhile (the REST API, as a second page would)."""
        request = self.routes[0].request
        body = {**request.post_data_json, "decision": decision}
        call = urllib.request.Request(request.url, data=json.dumps(body).encode(), method="POST",
                                      headers={"Authorization": f"token {self.server.token}",
                                               "Content-Type": "application/json"})  # fmt: skip
        with urllib.request.urlopen(call, timeout=10):
            pass

    def release(self) -> None:
        self.routes.pop(0).continue_()


def history_routes(server) -> dict[str, str]:
    request = urllib.request.Request(server.url + "jupyter-operator/api/history?workspace=default",
                                     headers={"Authorization": f"token {server.token}"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        history = json.load(answer)["history"]
    return {entry["command_id"]: entry["route"] for entry in history}


def propose(page, lab_server, name: str, cmd_id: str) -> tuple[Path, str]:
    path = lab_server.root / name
    write_notebook(path)
    open_lab(page, lab_server, name)
    wait_cells(page, ["a = 1", "b = 2", "# notes", "d = 4"])
    on_disk = path.read_text()
    run_reply(page, command(cmd_id, "fs.write", name, content_b64=b64(changed(path))))
    wait_status(page, cmd_id, "pending")
    return path, on_disk


def test_approve_shows_the_change_before_the_answer_and_the_engine_confirms_it(
    lab_server, page
) -> None:
    path, on_disk = propose(page, lab_server, "first.ipynb", "first-1")
    held = HeldDecisions(page, lab_server)
    card(page, "first-1").locator(".jp-Operator-approve").click()
    held.wait(page)
    # The decision has not reached the server, and the change already shows.
    wait_cells(page, ["d = 4", "a = 1", "n = 0", "b = 20"])
    assert card(page, "first-1").get_attribute("data-status") == "pending"
    screenshot(page, "lab-open-notebook-first-shown-before-the-answer")
    held.release()
    wait_status(page, "first-1", "applied")
    assert "in the open notebook" in card(page, "first-1").text_content()
    wait_cells(page, ["d = 4", "a = 1", "n = 0", "b = 20"])  # confirmed: it stays
    assert history_routes(lab_server)["first-1"] == "page"
    assert path.read_text() == on_disk  # the person saves it, as after any edit of theirs
    assert is_dirty(page)
    no_dialog(page)
    screenshot(page, "lab-open-notebook-first-confirmed")


def test_a_refusal_after_the_page_applied_first_puts_the_cells_back_exactly(
    lab_server, page
) -> None:
    path, on_disk = propose(page, lab_server, "refused.ipynb", "refused-1")
    before_outputs = output_texts(page)
    held = HeldDecisions(page, lab_server)
    card(page, "refused-1").locator(".jp-Operator-approve").click()
    held.wait(page)
    wait_cells(page, ["d = 4", "a = 1", "n = 0", "b = 20"])  # applied first
    held.elsewhere("reject")  # decided elsewhere meanwhile: the engine refuses this approval
    held.release()
    wait_cells(page, ["a = 1", "b = 2", "# notes", "d = 4"])
    assert output_texts(page) == before_outputs
    refusal = page.locator("#jupyter-operator-panel").get_by_text("already decided (rejected)")
    refusal.wait_for()  # the refusal shows as it always did
    # and the card shows the decision made elsewhere, not "Waiting for you" beside it
    page.locator('#jupyter-operator-panel .jp-Operator-card[data-id="refused-1"]'
                 '[data-status="rejected"]').wait_for(timeout=10_000)  # fmt: skip
    screenshot(page, "lab-open-notebook-first-refused")
    assert path.read_text() == on_disk
    assert "refused-1" not in history_routes(lab_server)
    # Saved now, the notebook is exactly the one the person had: cells, outputs, counts,
    # metadata and order.
    page.locator(".jp-NotebookPanel:visible .jp-Cell").first.click()
    page.keyboard.press("Control+s")
    deadline = time.monotonic() + 30
    while is_dirty(page):
        assert time.monotonic() < deadline, "the notebook was not saved"
        page.wait_for_timeout(100)
    assert saved_cells(path) == [{key: cell.get(key) for key in (
        "id", "cell_type", "source", "metadata", "outputs", "execution_count")}
        for cell in CELLS]  # fmt: skip
    no_dialog(page)


@pytest.mark.parametrize("outcome", ["confirmed", "refused"])
def test_a_save_while_the_decision_travels_writes_only_what_the_engine_confirmed(
    lab_server, page, outcome: str
) -> None:
    path, on_disk = propose(page, lab_server, f"saving-{outcome}.ipynb", f"save-{outcome}")
    held = HeldDecisions(page, lab_server)
    card(page, f"save-{outcome}").locator(".jp-Operator-approve").click()
    held.wait(page)
    wait_cells(page, ["d = 4", "a = 1", "n = 0", "b = 20"])
    page.locator(".jp-NotebookPanel:visible .jp-Cell").first.click()
    saved_at = path.stat().st_mtime_ns
    page.keyboard.press("Control+s")  # the person saves while the engine decides
    page.wait_for_timeout(1_500)
    assert path.read_text() == on_disk, "an undecided change reached the disk"
    if outcome == "refused":
        held.elsewhere("reject")
    held.release()
    if outcome == "confirmed":
        wait_status(page, "save-confirmed", "applied")
    else:
        page.locator("#jupyter-operator-panel").get_by_text("already decided (rejected)").wait_for()
    deadline = time.monotonic() + 30
    while path.stat().st_mtime_ns == saved_at or is_dirty(page):
        assert time.monotonic() < deadline, "the held save never happened"
        page.wait_for_timeout(100)
    expected = ["d = 4", "a = 1", "n = 0", "b = 20"] if outcome == "confirmed" else [
        "a = 1", "b = 2", "# notes", "d = 4"]  # fmt: skip
    assert [cell["source"] for cell in saved_cells(path)] == expected
    assert shown(page) == expected
    no_dialog(page)


@pytest.mark.parametrize("outcome", ["confirmed", "refused"])
def test_approve_and_run_runs_the_cell_only_once_the_engine_confirmed(
    lab_server, page, outcome: str
) -> None:
    """Approve & Run shows the new source (its old outputs cleared) at the click, but the
    kernel runs nothing until the engine confirmed; refused, nothing runs and the cell is
    back with its old source and outputs."""
    name = f"run-{outcome}.ipynb"
    path = lab_server.root / name
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "print('old')", id="only", execution_count=7,
        outputs=[nbformat.v4.new_output("stream", name="stdout", text="old\n")])])  # fmt: skip
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}  # fmt: skip
    path.write_text(nbformat.writes(nb) + "\n")
    open_lab(page, lab_server, name)
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=60_000)
    wait_cells(page, ["print('old')"])
    cmd_id = f"and-run-{outcome}"
    run_reply(page, block(cmd_id, "nb.replaceCell", notebook=name, cell_id="only",
                          content_b64=b64("print('ran')")))  # fmt: skip
    wait_status(page, cmd_id, "pending")
    held = HeldDecisions(page, lab_server)
    card(page, cmd_id).locator(".jp-Operator-approve-run").click()
    held.wait(page)
    wait_cells(page, ["print('ran')"])
    page.wait_for_timeout(1_500)  # a run started before the answer would show by now
    assert output_texts(page) == [], "the cell ran before the engine confirmed the change"
    if outcome == "refused":
        held.elsewhere("reject")
    held.release()
    if outcome == "confirmed":
        wait_status(page, cmd_id, "applied")
        page.locator(".jp-NotebookPanel:visible .jp-OutputArea-output",
                     has_text="ran").wait_for(timeout=60_000)  # fmt: skip
    else:
        page.locator("#jupyter-operator-panel").get_by_text(
            "already decided (rejected)").wait_for()  # fmt: skip
        wait_cells(page, ["print('old')"])
        page.wait_for_timeout(1_500)
        assert output_texts(page) == ["old"]  # nothing ran; the old output is back
    screenshot(page, f"lab-open-notebook-first-approve-and-run-{outcome}")
