"""An approved change to a notebook open in a page goes to that page's notebook, not the disk
(``engine/live_route.py``): the file stays as it was, the journal records the change, and the
page's answer (applied, stale, gone, silent) ends the item."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.replies import b64, block

from jupyter_operator.engine import live_route
from jupyter_operator.notebooks.cell_edits import source_hash
from jupyter_operator.protocol import OperatorError, codes


class Pages:
    """The server's open-page registry as the engine sees it: the open notebooks, and what
    each page shows after the changes sent to it."""

    def __init__(self, *open_paths: Path) -> None:
        self.open = set(open_paths)
        self.shown: dict[Path, tuple[str | None, bytes]] = {}

    def holds(self, path: Path) -> bool:
        return path in self.open

    def expect(self, path: Path, disk_sha256: str | None, data: bytes) -> None:
        self.shown[path] = (disk_sha256, data)

    def expected(self, path: Path, disk_sha256: str | None) -> bytes | None:
        found = self.shown.get(path)
        return found[1] if found and found[0] == disk_sha256 else None


@pytest.fixture
def op(make_operator, nb_path: Path):
    op = make_operator(extensions=("nb",))
    op.pages = Pages(nb_path.resolve())
    return op


@pytest.fixture(autouse=True)
def no_timer(monkeypatch) -> None:
    monkeypatch.setattr(live_route, "wait", lambda run, item: None)


def replace_calc(op, id: str = "c1"):
    run = op.run(block(id, "nb.replaceCell", notebook="nb.ipynb", cell_id="calc",
                       content="y = x + 2"))  # fmt: skip
    run.approve(id)
    return run, run.item(id)


def test_an_open_notebook_gets_cell_edits_and_the_file_is_not_written(op, nb_path) -> None:
    before = nb_path.read_bytes()
    run, item = replace_calc(op)
    assert (item.status, item.summary) == ("running", live_route.WAITING)
    assert nb_path.read_bytes() == before  # the page applies it; the disk is the page's to save
    live = item.to_dict()["live"]
    assert live["route"] == "page" and live["notebook"] == "nb.ipynb"
    assert live["ops"] == [{"op": "set", "id": "calc", "fields": {"source": "y = x + 2"}}]
    assert live["guards"] == {"calc": source_hash("y = x + 1")}

    run.finish_live("c1", {"state": "applied"})
    assert item.status == "applied" and item.result.ok
    assert "in the open notebook" in item.result.summary
    assert nb_path.read_bytes() == before
    [entry] = op.history()
    assert entry.route == "page" and entry.entry_id == item.entry_id


def test_a_cell_edited_in_the_page_since_the_preview_is_refused_by_name(op, nb_path) -> None:
    run, item = replace_calc(op)
    run.finish_live("c1", {"state": "stale", "cell": "calc"})
    assert item.status == "stale" and item.result.code == codes.ERR_STALE_PREVIEW
    assert "cell calc of nb.ipynb was edited in the open notebook" in item.result.summary
    assert op.history() == []


def test_a_page_that_let_go_of_the_notebook_sends_the_change_to_the_disk(op, nb_path) -> None:
    run, item = replace_calc(op)
    op.pages.open.clear()
    run.finish_live("c1", {"state": "silent"})
    assert item.status == "applied"
    assert "y = x + 2" in nb_path.read_text()
    assert [e.route for e in op.history()] == ["disk"]


def test_a_silent_page_that_holds_the_notebook_is_never_written_under(op, nb_path) -> None:
    before = nb_path.read_bytes()
    run, item = replace_calc(op)
    run.finish_live("c1", {"state": "silent"})
    assert item.status == "failed" and item.result.code == codes.ERR_PAGE_UNAVAILABLE
    assert nb_path.read_bytes() == before


def test_a_whole_notebook_write_is_routed_as_cell_edits(op, nb_path) -> None:
    text = nb_path.read_text().replace("y = x + 1", "y = x * 3")
    run = op.run(block("w1", "fs.write", path="nb.ipynb", content_b64=b64(text)))
    run.approve("w1")
    item = run.item("w1")
    assert item.status == "running"
    assert item.live["ops"] == [{"op": "set", "id": "calc", "fields": {"source": "y = x * 3"}}]


def test_a_closed_notebook_is_written_to_the_disk_as_before(op, nb_path) -> None:
    op.pages.open.clear()
    _run, item = replace_calc(op)
    assert item.status == "applied" and item.live is None
    assert "y = x + 2" in nb_path.read_text()


def test_answers_for_an_item_that_no_longer_waits_change_nothing(op, nb_path) -> None:
    run, item = replace_calc(op)
    run.finish_live("c1", {"state": "applied"})
    made = run.finish_live("c1", {"state": "stale", "cell": "calc"})
    assert made.outcome == "already_decided" and item.status == "applied"


def test_undo_and_redo_of_a_change_go_to_the_page_cell_exact(op, nb_path) -> None:
    before = nb_path.read_bytes()
    run, item = replace_calc(op)
    run.finish_live("c1", {"state": "applied"})
    entry, edits = op.history_in_page(None, "undo")
    assert entry.entry_id == item.entry_id and edits["direction"] == "undo"
    assert edits["ops"] == [{"op": "set", "id": "calc", "fields": {"source": "y = x + 1"}}]
    assert edits["guards"] == {"calc": source_hash("y = x + 2")}  # what the change left
    assert not op.history()[0].undone  # nothing is marked until the page answers

    undone = op.settle_in_page(entry.entry_id, "undo", {"state": "applied"})
    assert undone.undone and item.status == "undone"
    assert nb_path.read_bytes() == before  # never the disk while a page holds it

    entry, edits = op.history_in_page(None, "redo")
    assert edits["ops"] == [{"op": "set", "id": "calc", "fields": {"source": "y = x + 2"}}]
    redone = op.settle_in_page(entry.entry_id, "redo", {"state": "applied"})
    assert not redone.undone and item.status == "applied"


def test_an_undo_whose_cell_was_edited_since_is_refused_by_name(op, nb_path) -> None:
    run, item = replace_calc(op)
    run.finish_live("c1", {"state": "applied"})
    entry, _edits = op.history_in_page(None, "undo")
    with pytest.raises(OperatorError) as raised:
        op.settle_in_page(entry.entry_id, "undo", {"state": "stale", "cell": "calc"})
    assert raised.value.code == codes.ERR_UNDO_CONFLICT and "cell calc" in raised.value.message
    assert not op.history()[0].undone and item.status == "applied"
    with pytest.raises(OperatorError) as raised:
        op.settle_in_page(entry.entry_id, "undo", {"state": "gone"})
    assert raised.value.code == codes.ERR_PAGE_UNAVAILABLE


def test_a_notebook_no_page_holds_is_undone_on_the_disk(op, nb_path) -> None:
    op.pages.open.clear()
    replace_calc(op)
    assert op.history_in_page(None, "undo") is None
    op.undo()
    assert "y = x + 1" in nb_path.read_text()


def test_approve_and_run_clears_the_old_outputs_in_the_same_step(make_operator, nb_path) -> None:
    from jupyter_operator.execution import DeferredRunner

    op = make_operator(extensions=("nb",), runner=DeferredRunner())
    op.pages = Pages(nb_path.resolve())
    run = op.run(block("r1", "nb.replaceCell", notebook="nb.ipynb", cell_id="load",
                       content_b64=b64("x = 2\nprint(x)")))  # fmt: skip
    assert run.item("r1").proposal.cells["cells"][1]["stale_outputs"] == 1
    run.approve("r1", and_run=True)
    item = run.item("r1")
    [op_set] = item.live["ops"]
    assert op_set["fields"] == {"source": "x = 2\nprint(x)", "outputs": [],
                                "execution_count": None}  # fmt: skip
    run.finish_live("r1", {"state": "applied"})
    assert item.status == "running" and item.execution is not None  # the cell runs now
    # What runs is the source the page shows, not the older file's.
    assert item.execution.request.source == "x = 2\nprint(x)"
    assert "outputs stale" not in item.result.summary


def test_the_next_change_builds_on_what_the_page_shows_until_the_person_saves(op, nb_path):
    run, _item = replace_calc(op)
    run.finish_live("c1", {"state": "applied"})
    # The page shows "y = x + 2"; the file still has "y = x + 1" (the person has not saved).
    run = op.run(block("c2", "nb.replaceCell", notebook="nb.ipynb", cell_id="calc",
                       content="y = x + 3"))  # fmt: skip
    item = run.item("c2")
    assert '-    "y = x + 2"\n' in item.diff  # previewed on the page's cells, not the file
    run.approve("c2")
    assert item.live["guards"] == {"calc": source_hash("y = x + 2")}
    # Once the person saves, the file is the page's again and the base.
    nb_path.write_text(nb_path.read_text().replace("y = x + 1", "y = x + 2  # saved"))
    run = op.run(block("c3", "nb.replaceCell", notebook="nb.ipynb", cell_id="calc",
                       content="y = x + 4"))  # fmt: skip
    assert '-    "y = x + 2  # saved"\n' in run.item("c3").diff


def test_a_pending_change_carries_the_edits_the_engine_sends_to_the_page(make_operator,
                                                                         nb_path) -> None:
    """The page applies a pending change's plan at the click on Approve and keeps it only
    when the engine routes exactly those edits to it: the plan is the same edits, guards
    included, for Approve and for Approve & Run (whose clearing the page adds itself)."""
    from jupyter_operator.execution import DeferredRunner

    op = make_operator(extensions=("nb",), runner=DeferredRunner())
    op.pages = Pages(nb_path.resolve())
    run = op.run(block("p1", "nb.replaceCell", notebook="nb.ipynb", cell_id="calc",
                       content="y = x + 2"))  # fmt: skip
    plan = run.item("p1").to_dict()["plan"]
    assert plan == {"ops": [{"op": "set", "id": "calc", "fields": {"source": "y = x + 2"}}],
                    "guards": {"calc": source_hash("y = x + 1")}}  # fmt: skip
    run.approve("p1", and_run=True)
    item = run.item("p1")
    assert item.to_dict()["plan"] is None  # decided: nothing left to apply first
    assert item.live["guards"] == plan["guards"]
    assert item.live["ops"] == [{"op": "set", "id": "calc", "fields": {
        "source": "y = x + 2", "outputs": [], "execution_count": None}}]
    # Approve & Run's clearing went to the item's copy, never into the proposal's own edits.
    assert item.proposal.edits["ops"] == plan["ops"]


def test_a_change_to_a_file_that_is_not_a_notebook_has_no_plan(op, root) -> None:
    (root / "notes.txt").write_text("a\n", encoding="utf-8")
    run = op.run(block("t1", "fs.write", path="notes.txt", content_b64=b64("b\n")))
    item = run.item("t1")
    assert item.needs_approval and item.to_dict()["plan"] is None


class Rooms:
    """Rooms that say whether any is open (``holding_any``) and count what they were asked."""

    def __init__(self, holding_any: bool, *held: Path) -> None:
        self.holding_any = holding_any
        self.held = set(held)
        self.asked: list[object] = []

    def holds(self, path: Path) -> bool:
        self.asked.append(path)
        return path in self.held

    def holding(self, folder: Path, files: list[Path]) -> Path | None:
        self.asked.append(folder)
        return next((file for file in files if file in self.held), None)


def test_with_no_room_open_a_write_lists_nothing_and_asks_nothing(make_operator, root,
                                                                   monkeypatch) -> None:
    """Every disk write asks whether a room holds what it changes; a holder that knows no room
    is open is not asked, and the folder is not listed for it."""
    op = make_operator()
    (root / "dir").mkdir()
    (root / "dir" / "in.txt").write_text("x\n")
    listed: list[str] = []
    real = op.workspace.files_below

    def files_below(path: str):
        listed.append(path)
        return real(path)

    monkeypatch.setattr(op.workspace, "files_below", files_below)
    op.rooms = Rooms(False, root.resolve() / "dir" / "in.txt")
    assert live_route.room_file(op, "dir") is None
    assert live_route.room_file(op, "dir/in.txt") is None
    assert (listed, op.rooms.asked) == ([], [])

    op.rooms.holding_any = True  # the same rooms once one is open: asked, and it holds the file
    assert live_route.room_file(op, "dir") == "dir/in.txt"
    assert live_route.room_file(op, "dir/in.txt") == "dir/in.txt"
    assert listed == ["dir", "dir/in.txt"] and len(op.rooms.asked) == 2
