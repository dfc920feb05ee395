"""Undo of a whole run: every change it applied, in one step, newest first, or nothing at all."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cell_notebooks import cells_of, standard
from support.replies import b64, block

from jupyter_operator.engine import undo as undo_module
from jupyter_operator.protocol import OperatorError, codes


def _reply() -> str:
    return "\n".join([
        block("w1", "fs.write", path="notes.txt", content_b64=b64("new notes\n")),
        block("w2", "fs.write", path="made/new.txt", content_b64=b64("created\n")),
        block("d1", "fs.delete", path="old.txt"),
        block("c1", "nb.replaceCell", notebook="nb.ipynb", cell_id="calc",
              content_b64=b64("y = x + 2")),
        block("w3", "fs.write", path="notes.txt", content_b64=b64("newer notes\n")),
    ])  # fmt: skip


@pytest.fixture
def applied(root: Path, make_operator):
    """An operator whose one run changed three files and a cell (notes.txt twice)."""
    (root / "notes.txt").write_text("notes\n")
    (root / "old.txt").write_text("old\n")
    (root / "nb.ipynb").write_text(standard())
    op = make_operator(extensions=("nb",))
    run = op.run(_reply())
    for item in run.items:
        assert run.approve(item.id).item.status == "applied", item.summary
    return op, run


def _disk(root: Path) -> dict[str, bytes | None]:
    names = ("notes.txt", "made/new.txt", "old.txt", "nb.ipynb")
    return {n: (root / n).read_bytes() if (root / n).exists() else None for n in names}


def test_undo_of_a_run_restores_every_file_and_cell_newest_first(root: Path, applied) -> None:
    op, run = applied
    ids = [e.entry_id for e in op.history()]
    planned = op.undo_group(ids, preview=True)
    assert [e.command_id for e in planned] == ["w3", "c1", "d1", "w2", "w1"]
    assert (root / "notes.txt").read_text() == "newer notes\n"  # a preview changes nothing
    done = op.undo_group(ids)
    assert [e.command_id for e in done] == ["w3", "c1", "d1", "w2", "w1"]
    assert (root / "notes.txt").read_text() == "notes\n"
    assert not (root / "made").exists()  # the folder the write created goes too
    assert (root / "old.txt").read_text() == "old\n"
    assert ("calc", "code", "y = x + 1") in cells_of(root / "nb.ipynb")
    assert all(e.undone for e in op.history())
    assert {i.status for i in run.items} == {"undone"}


def test_a_file_changed_since_refuses_the_whole_run(root: Path, applied) -> None:
    op, run = applied
    (root / "made" / "new.txt").write_text("the person's edit\n")
    before = _disk(root)
    with pytest.raises(OperatorError) as caught:
        op.undo_group([e.entry_id for e in op.history()])
    assert caught.value.code == codes.ERR_UNDO_CONFLICT
    assert "made/new.txt changed after" in caught.value.message
    assert "Nothing was changed" in caught.value.message
    assert _disk(root) == before
    assert not any(e.undone for e in op.history())
    assert {i.status for i in run.items} == {"applied"}


def test_a_later_change_outside_the_run_refuses_it(root: Path, applied) -> None:
    op, _ = applied
    ids = [e.entry_id for e in op.history()]
    later = op.run(block("x1", "fs.write", path="old.txt", content_b64=b64("again\n")))
    later.approve("x1")
    before = _disk(root)
    with pytest.raises(OperatorError) as caught:
        op.undo_group(ids)
    assert caught.value.code == codes.ERR_UNDO_CONFLICT
    assert "changed again by j6 (fs.write old.txt), outside this run" in caught.value.message
    assert _disk(root) == before


def test_a_failure_half_way_applies_again_what_was_undone(
    root: Path, applied, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk changes between the checks and the undo: the run is undone entirely or not
    at all (the undos done are redone)."""
    op, _ = applied
    before = _disk(root)
    real = undo_module.undo
    calls = []

    def flaky(ws, journal, entry_id=None):
        calls.append(entry_id)
        if len(calls) == 3:
            raise OperatorError(codes.ERR_UNDO_CONFLICT, "old.txt exists again.")
        return real(ws, journal, entry_id)

    monkeypatch.setattr(undo_module, "undo", flaky)
    with pytest.raises(OperatorError) as caught:
        op.undo_group([e.entry_id for e in op.history()])
    assert "applied again; nothing was changed" in caught.value.message
    assert _disk(root) == before
    assert not any(e.undone for e in op.history())


class Held:
    """A page that holds nb.ipynb open."""

    def holds(self, path: Path) -> bool:
        return path.name == "nb.ipynb"

    def expect(self, path: Path, disk: str | None, data: bytes) -> None:
        self.shown = (path.name, data)


def test_a_notebook_open_in_a_page_has_the_run_undone_through_that_page(
    root: Path, applied
) -> None:
    op, _ = applied
    op.pages = Held()
    before = _disk(root)
    ids = [e.entry_id for e in op.history()]
    assert len(op.undo_group(ids, preview=True)) == 5  # the preview lists it as any run
    with pytest.raises(OperatorError) as caught:  # never to the disk beneath the page
        op.undo_group(ids)
    assert caught.value.code == codes.ERR_PAGE_UNAVAILABLE
    assert "undo the run from that page" in caught.value.message
    planned, changes = op.undo_group_in_page(ids)
    assert [c["notebook"] for c in changes] == ["nb.ipynb"]
    assert changes[0]["ops"] == [{"op": "set", "id": "calc", "fields": {"source": "y = x + 1"}}]
    assert _disk(root) == before  # nothing changed until the page answers
    with pytest.raises(OperatorError) as caught:
        op.settle_group_in_page(ids, {"state": "stale", "cell": "calc"})
    assert caught.value.code == codes.ERR_UNDO_CONFLICT and _disk(root) == before
    done = op.settle_group_in_page(ids, {"state": "applied"})
    assert [e.entry_id for e in done] == [e.entry_id for e in planned]
    assert all(e.undone for e in op.history())
    assert (root / "notes.txt").read_text() == "notes\n"
    assert ("calc", "code", "y = x + 2") in cells_of(root / "nb.ipynb")  # the page holds it
    assert op.pages.shown[0] == "nb.ipynb"


def test_a_cell_change_the_page_holds_is_not_checked_against_the_disk(
    root: Path, applied
) -> None:
    """A change that landed in the open notebook is not on the disk until the person saves:
    the page's guard stands for the disk's, so the run is not refused as changed since."""
    op, _ = applied
    (root / "nb.ipynb").write_text(standard())  # the disk as before the change
    op.pages = Held()
    ids = [e.entry_id for e in op.history()]
    _, changes = op.undo_group_in_page(ids)
    assert len(changes) == 1
    op.settle_group_in_page(ids, {"state": "applied"})
    assert (root / "notes.txt").read_text() == "notes\n"


def test_nothing_left_to_undo(applied) -> None:
    op, _ = applied
    ids = [e.entry_id for e in op.history()]
    op.undo_group(ids)
    with pytest.raises(OperatorError) as caught:
        op.undo_group(ids)
    assert caught.value.code == codes.ERR_NOT_FOUND


def test_a_file_changed_between_the_pages_answer_and_the_disk_says_what_the_page_did(
    root: Path, applied
) -> None:
    """The page applied the cells, then the disk refuses (a file changed in between): nothing
    is undone on the server, and the error tells the person how to bring the cells back."""
    op, _ = applied
    op.pages = Held()
    ids = [e.entry_id for e in op.history()]
    op.undo_group_in_page(ids)
    (root / "old.txt").write_text("back again\n")  # the deleted file exists again
    with pytest.raises(OperatorError) as caught:
        op.settle_group_in_page(ids, {"state": "applied"})
    assert caught.value.code == codes.ERR_UNDO_CONFLICT
    assert "press Ctrl+Z in the notebook" in caught.value.message
    assert not any(e.undone for e in op.history())
    assert (root / "notes.txt").read_text() == "newer notes\n"
