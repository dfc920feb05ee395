"""Real-time collaboration (jupyter-collaboration): two pages on one notebook share its room.

An approved change to a notebook open in a room is applied by the server to the room's shared
document, as cell edits in one transaction: both pages show it within a second, each page's
own typing stays, the agent shows among the notebook's collaborators, and the file the room
saves holds everything. A cell the change touches that a collaborator edited since the
preview refuses it (naming the cell); an edit elsewhere does not. Undo and redo go through
the room as well, and the history says the change landed there. A text file open in a room
gets its changes the same way, as text edits.

The server of these tests is the only one started with collaboration on (``browserkit
.collaboration_args``): every other browser test keeps JupyterLab's local documents.
"""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from browserkit import LabServer, require_chromium, screenshot, start_server, stop_server
from test_lab_open_notebooks import notebook
from test_lab_panel import b64, card, open_lab, run_reply, wait_status
from test_lab_panel_state import history_row, open_history

pytestmark = pytest.mark.timeout(300)

CELLS = ".jp-NotebookPanel:visible .jp-Cell .jp-InputArea-editor"
#: A collaborator's name on their caret (jupyter-collaboration's remote carets; CodeMirror
#: places these flags as tooltips, outside the notebook's own nodes).
AGENT = ".jp-remote-userFlag-name"
#: True when the cell ``index`` of the visible notebook shows ``text`` (checked every frame).
SHOWS = """([index, text]) => {
  const cells = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell');
  const cell = cells[index];
  return !!cell && cell.querySelector('.cm-content').innerText.trim() === text;
}"""


@pytest.fixture(scope="module")
def collab_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    """JupyterLab with real-time collaboration on (jupyter-collaboration is a test dependency:
    under CI its absence fails, elsewhere it skips with the reason)."""
    require_chromium()
    root = tmp_path_factory.mktemp("collab-root")
    settings = tmp_path_factory.mktemp("collab-settings")
    server = start_server(root, settings, "lab", collaboration=True)
    yield server
    stop_server(server)


@pytest.fixture
def pages(browser) -> Iterator[tuple[object, object]]:
    """Two collaborators: two browser contexts (two anonymous users of the server)."""
    made = []
    for _ in range(2):
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        page.console_errors = []
        made.append((context, page))
    yield made[0][1], made[1][1]
    for context, _ in made:
        context.close()


def block(cmd_id: str, action: str, **fields: str) -> str:
    lines = ["OPERATOR_CMD", "version: 1", f"id: {cmd_id}", f"action: {action}"]
    lines += [f"{key}: {value}" for key, value in fields.items()]
    return "\n".join([*lines, "END_OPERATOR_CMD"])


def replace_cell(cmd_id: str, name: str, cell: str, source: str) -> str:
    return block(cmd_id, "nb.replaceCell", notebook=name, cell_id=cell, content_b64=b64(source))


def texts(page) -> list[str]:
    return [t.strip() for t in page.locator(CELLS).all_inner_texts()]


def wait_cells(page, expected: list[str], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while texts(page) != expected:
        assert time.monotonic() < deadline, f"the notebook shows {texts(page)}"
        time.sleep(0.1)


def type_at_end(page, index: int, text: str) -> None:
    """A collaborator types at the end of a cell."""
    page.locator(CELLS).nth(index).click()
    page.keyboard.press("Control+End")
    page.keyboard.type(text)


def open_both(server: LabServer, pages: tuple[object, object], name: str,
              cells: list[str]) -> None:  # fmt: skip
    for page in pages:
        open_lab(page, server, name)
        wait_cells(page, cells)


def no_dialog(page) -> None:
    page.wait_for_timeout(500)  # a "File changed on disk" dialog would open by now
    assert page.locator(".jp-Dialog").count() == 0, page.locator(".jp-Dialog").inner_text()


def sources_on_disk(path: Path) -> list[str]:
    notebook_node = nbformat.read(path, as_version=4)
    nbformat.validate(notebook_node)  # the file the room saved is a valid notebook
    return [cell.source for cell in notebook_node.cells]


def wait_disk(path: Path, expected: list[str], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if sources_on_disk(path) == expected:
                return
        except (ValueError, OSError, nbformat.ValidationError):
            pass  # being written
        assert time.monotonic() < deadline, f"the file holds {sources_on_disk(path)}"
        time.sleep(0.2)


def history_routes(server: LabServer) -> dict[str, str]:
    request = urllib.request.Request(server.url + "jupyter-operator/api/history?workspace=default",
                                     headers={"Authorization": f"token {server.token}"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        history = json.load(answer)["history"]
    return {entry["command_id"]: entry["route"] for entry in history}


def test_an_approved_change_reaches_every_collaborator_at_once(collab_server, pages) -> None:
    """The change is applied in the room: the other page shows it within a second, both
    pages' own typing stays, the agent is among the collaborators, the history says "room",
    undo and redo go through the room, and the saved file is valid and holds everything."""
    alice, bob = pages
    path = collab_server.root / "shared.ipynb"
    path.write_text(notebook("a = 1", "b = 2", "c = 3"))
    open_both(collab_server, pages, "shared.ipynb", ["a = 1", "b = 2", "c = 3"])
    type_at_end(alice, 0, "  # alice")
    type_at_end(bob, 2, "  # bob")
    typed = ["a = 1  # alice", "b = 2", "c = 3  # bob"]
    wait_cells(alice, typed)
    wait_cells(bob, typed)

    run_reply(alice, replace_cell("r-1", "shared.ipynb", "cell-1", "b = 20"))
    wait_status(alice, "r-1", "pending")
    started = time.perf_counter()
    card(alice, "r-1").locator(".jp-Operator-approve").click()
    bob.wait_for_function(SHOWS, arg=[1, "b = 20"], polling="raf", timeout=10_000).dispose()
    seen = time.perf_counter() - started
    assert seen < 1.0, f"the other collaborator saw the change after {seen:.2f} s"
    changed = ["a = 1  # alice", "b = 20", "c = 3  # bob"]
    wait_cells(bob, changed)
    wait_cells(alice, changed)
    wait_status(alice, "r-1", "applied")
    assert "in the shared notebook" in card(alice, "r-1").text_content()
    agent = bob.locator(AGENT, has_text="Operator")  # the agent among the collaborators
    agent.first.wait_for(state="attached", timeout=10_000)
    # in its colour, its caret at the end of the cell it wrote
    assert "rgb(123, 63, 181)" in (agent.first.locator("xpath=..").get_attribute("style") or "")
    assert bob.locator(CELLS).nth(1).locator(
        ".jp-remote-cursor[style*='rgb(123, 63, 181)']").count() == 1  # fmt: skip
    no_dialog(alice)
    no_dialog(bob)
    assert history_routes(collab_server)["r-1"] == "room"
    screenshot(bob, "lab-collaboration-change-in-the-other-page")
    screenshot(alice, "lab-collaboration-change-approved")

    open_history(alice)
    row = history_row(alice, "r-1")
    assert "applied in the shared notebook" in row.locator(
        ".jp-Operator-history-meta").text_content()  # fmt: skip
    row.locator(".jp-Operator-history-undo").click()
    wait_status(alice, "r-1", "undone")
    wait_cells(bob, typed)
    wait_cells(alice, typed)
    history_row(alice, "r-1").locator(".jp-Operator-history-redo").click()
    wait_status(alice, "r-1", "applied")
    wait_cells(bob, changed)
    no_dialog(bob)

    alice.locator(CELLS).first.click()
    alice.keyboard.press("Control+s")
    wait_disk(path, changed)
    no_dialog(alice)
    screenshot(alice, "lab-collaboration-saved")


def test_a_stale_touched_cell_is_refused_an_untouched_edit_is_not(collab_server, pages) -> None:
    """The guard compares against the room's cells: a collaborator who edited the cell the
    change replaces since its preview refuses it (the cell is named); one who edited another
    cell does not, and their typing stays."""
    alice, bob = pages
    path = collab_server.root / "guarded.ipynb"
    path.write_text(notebook("a = 1", "b = 2", "c = 3"))
    open_both(collab_server, pages, "guarded.ipynb", ["a = 1", "b = 2", "c = 3"])

    run_reply(alice, replace_cell("s-1", "guarded.ipynb", "cell-1", "b = 20"))
    wait_status(alice, "s-1", "pending")
    type_at_end(bob, 1, "  # bob was here")
    wait_cells(alice, ["a = 1", "b = 2  # bob was here", "c = 3"])
    card(alice, "s-1").locator(".jp-Operator-approve").click()
    wait_status(alice, "s-1", "stale")
    assert "cell-1" in card(alice, "s-1").text_content()
    wait_cells(bob, ["a = 1", "b = 2  # bob was here", "c = 3"])  # nothing changed
    screenshot(alice, "lab-collaboration-stale-cell-refused")

    run_reply(alice, replace_cell("s-2", "guarded.ipynb", "cell-2", "c = 30"))
    wait_status(alice, "s-2", "pending")
    type_at_end(bob, 0, "  # and here")
    wait_cells(alice, ["a = 1  # and here", "b = 2  # bob was here", "c = 3"])
    card(alice, "s-2").locator(".jp-Operator-approve").click()
    wait_status(alice, "s-2", "applied")
    final = ["a = 1  # and here", "b = 2  # bob was here", "c = 30"]
    wait_cells(bob, final)
    wait_cells(alice, final)
    wait_disk(path, final)  # the room saves it


def test_approve_and_run_clears_the_old_outputs_with_the_change(collab_server, pages) -> None:
    """Approve & Run of a replaced cell in a room: its old outputs go in the same transaction
    as the new source, so the other collaborator never sees the new source beside the old
    source's outputs; then the cell runs."""
    alice, bob = pages
    path = collab_server.root / "outputs.ipynb"
    content = json.loads(notebook("a = 1", "print('OLD-OUTPUT')"))
    content["cells"][1]["outputs"] = [{"output_type": "stream", "name": "stdout",
                                       "text": "OLD-OUTPUT\n"}]  # fmt: skip
    content["cells"][1]["execution_count"] = 7
    path.write_text(json.dumps(content, indent=1) + "\n")
    open_both(collab_server, pages, "outputs.ipynb", ["a = 1", "print('OLD-OUTPUT')"])
    old_output = bob.locator(".jp-NotebookPanel:visible .jp-OutputArea-output",
                             has_text="OLD-OUTPUT")  # fmt: skip
    old_output.first.wait_for(timeout=10_000)

    run_reply(alice, replace_cell("o-1", "outputs.ipynb", "cell-1", "b = 20"))
    wait_status(alice, "o-1", "pending")
    card(alice, "o-1").locator(".jp-Operator-approve-run").click()
    bob.wait_for_function(SHOWS, arg=[1, "b = 20"], polling="raf", timeout=10_000).dispose()
    assert old_output.count() == 0, "the other page showed the new source with the old output"
    wait_cells(alice, ["a = 1", "b = 20"])
    assert alice.locator(".jp-NotebookPanel:visible .jp-OutputArea-output",
                         has_text="OLD-OUTPUT").count() == 0  # fmt: skip
    assert history_routes(collab_server)["o-1"] == "room"
    no_dialog(bob)
    screenshot(bob, "lab-collaboration-approve-and-run")


#: The visible text editor's content (a text file open in the room).
EDITOR = ".jp-FileEditor:visible .cm-content"


def editor_text(page) -> str:
    return page.evaluate("""(selector) => {
      const editors = [...document.querySelectorAll(selector)];
      const editor = editors.find(n => n.offsetParent !== null);
      return editor ? [...editor.querySelectorAll('.cm-line')].map(l => l.textContent).join('\\n')
                    : null;
    }""", ".jp-FileEditor .cm-content")


def wait_text(page, expected: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while editor_text(page) != expected:
        assert time.monotonic() < deadline, f"the editor shows {editor_text(page)!r}"
        time.sleep(0.1)


def type_at_line_end(page, line: int, text: str) -> None:
    """A collaborator types at the end of a line of the text file (not saved)."""
    page.locator(f"{EDITOR} .cm-line").nth(line).click()
    page.keyboard.press("End")
    page.keyboard.type(text)


def test_a_text_file_in_a_room_gets_the_change_as_edits_and_keeps_the_typing(
    collab_server, pages
) -> None:
    """A ``.py`` open in two pages: the approved change reaches the other page as text edits in
    the room (no reload, no "changed on disk" dialog), a collaborator's unsaved typing stays,
    the history says "room", undo goes through the room, and typing in the lines since the
    preview refuses a change as stale."""
    alice, bob = pages
    path = collab_server.root / "shared.py"
    path.write_text("a = 1\nb = 2\nc = 3\n")
    for page in pages:
        open_lab(page, collab_server, "shared.py")
        wait_text(page, "a = 1\nb = 2\nc = 3\n")
    type_at_line_end(bob, 2, "  # bob")
    typed = "a = 1\nb = 2\nc = 3  # bob\n"
    wait_text(alice, typed)

    edits = b64(json.dumps({"version": 1, "edits": [
        {"op": "replaceFirst", "find": "b = 2", "text": "b = 20"}]}))  # fmt: skip
    run_reply(alice, block("t-1", "fs.applyEdits", path="shared.py", edits_b64=edits))
    wait_status(alice, "t-1", "pending")
    card(alice, "t-1").locator(".jp-Operator-approve").click()
    changed = "a = 1\nb = 20\nc = 3  # bob\n"
    wait_text(bob, changed, timeout=10)
    wait_text(alice, changed)
    wait_status(alice, "t-1", "applied")
    assert "in the shared file" in card(alice, "t-1").text_content()
    bob.locator(AGENT, has_text="Operator").first.wait_for(state="attached", timeout=10_000)
    no_dialog(alice)
    no_dialog(bob)
    assert history_routes(collab_server)["t-1"] == "room"
    screenshot(bob, "lab-collaboration-text-file-change")

    open_history(alice)
    history_row(alice, "t-1").locator(".jp-Operator-history-undo").click()
    wait_status(alice, "t-1", "undone")
    wait_text(bob, typed)
    wait_text(alice, typed)
    alice.wait_for_timeout(2000)  # the room saves; the page reloads nothing from the file
    wait_text(alice, typed)
    no_dialog(bob)

    run_reply(alice, block("t-2", "fs.applyEdits", path="shared.py", edits_b64=edits))
    wait_status(alice, "t-2", "pending")
    type_at_line_end(bob, 0, "  # again")
    wait_text(bob, "a = 1  # again\nb = 2\nc = 3  # bob\n", timeout=10)
    wait_text(alice, "a = 1  # again\nb = 2\nc = 3  # bob\n")
    card(alice, "t-2").locator(".jp-Operator-approve").click()  # not held for Bob's typing
    wait_status(alice, "t-2", "stale")
    assert "edited in the shared file" in card(alice, "t-2").text_content()
    wait_text(bob, "a = 1  # again\nb = 2\nc = 3  # bob\n")  # nothing changed
