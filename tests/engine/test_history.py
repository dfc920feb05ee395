"""History, undo of any entry, redo: the guards, what entries record, and items kept true."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.replies import b64, block

from jupyter_operator.engine import Operator, Policy
from jupyter_operator.engine.history import UNDONE_SUMMARY
from jupyter_operator.protocol import OperatorError, codes


def write(id: str, path: str, text: str) -> str:
    return block(id, "fs.write", path=path, content_b64=b64(text)) + "\n"


def conflict(call) -> str:
    with pytest.raises(OperatorError) as info:
        call()
    assert info.value.code == codes.ERR_UNDO_CONFLICT, info.value.summary
    return info.value.message


def test_entries_record_who_decided_the_session_and_the_diff(root: Path, make_operator) -> None:
    (root / "a.txt").write_text("one\n")
    op = make_operator(session="nb-1")
    op.run(write("w1", "a.txt", "two\n")).approve("w1")
    auto = make_operator(policy=Policy(auto=("fs.write",)), session="agent")
    auto.run(write("w2", "b.txt", "new\n"))
    first, second = op.history()
    assert (first.command_id, first.session, first.decided_by, first.rule) == (
        "w1", "nb-1", "person", None
    )
    assert "-one" in first.diff and "+two" in first.diff
    assert (second.session, second.decided_by) == ("agent", "rule")
    assert "fs.write" in second.rule and "+new" in second.diff
    assert not first.undone and not first.redone
    assert set(first.to_dict()) >= {"session", "decided_by", "rule", "diff", "undone", "redone"}


def test_any_entry_can_be_undone_when_nothing_later_touched_it(root: Path, make_operator) -> None:
    op = make_operator()
    run = op.run(write("w1", "a.txt", "1") + write("w2", "b.txt", "2"))
    run.approve_all()
    op.undo("j1")  # not the latest
    assert not (root / "a.txt").exists() and (root / "b.txt").read_text() == "2"


def test_undo_names_the_later_change_to_undo_first(root: Path, make_operator) -> None:
    op = make_operator()
    op.run(write("w1", "a.txt", "1")).approve("w1")
    op.run(write("w2", "a.txt", "2")).approve("w2")
    message = conflict(lambda: op.undo("j1"))
    assert "j2" in message and "undo j2 first" in message
    assert (root / "a.txt").read_text() == "2"
    op.undo("j2")
    op.undo("j1")
    assert not (root / "a.txt").exists()


def test_a_later_delete_of_the_folder_blocks_undo(root: Path, make_operator) -> None:
    op = make_operator()
    op.run(write("w1", "sub/a.txt", "1")).approve("w1")
    op.run(block("d1", "fs.delete", path="sub")).approve("d1")
    assert "j2" in conflict(lambda: op.undo("j1"))


def test_redo_applies_an_undone_change_again(root: Path, make_operator) -> None:
    (root / "a.txt").write_text("one\n")
    op = make_operator()
    op.run(write("w1", "a.txt", "two\n")).approve("w1")
    op.run(write("w2", "new.txt", "created")).approve("w2")
    op.run(block("d1", "fs.delete", path="a.txt")).approve("d1")
    for entry_id in ("j3", "j2", "j1"):
        op.undo(entry_id)
    assert (root / "a.txt").read_text() == "one\n" and not (root / "new.txt").exists()
    assert op.redo().entry_id == "j1"  # the one undone last
    assert (root / "a.txt").read_text() == "two\n"
    entry = op.redo("j2")
    assert entry.redone and not entry.undone
    assert (root / "new.txt").read_text() == "created"
    op.redo("j3")
    assert not (root / "a.txt").exists()
    assert [(e.undone, e.redone) for e in op.history()] == [(False, True)] * 3
    # Again: a created file goes to a fresh trash slot every time it is undone.
    op.undo("j3")
    op.undo("j2")
    op.redo("j2")
    op.undo("j2")
    assert not (root / "new.txt").exists()
    conflict(lambda: op.undo("j2"))  # already undone


def test_redo_refusals(root: Path, make_operator) -> None:
    (root / "a.txt").write_text("one\n")
    op = make_operator()
    op.run(write("w1", "a.txt", "two\n")).approve("w1")
    op.run(write("w2", "a.txt", "three\n")).approve("w2")
    conflict(lambda: op.redo("j1"))  # not undone
    op.undo("j2")
    op.undo("j1")
    message = conflict(lambda: op.redo("j2"))  # j1 must come back first
    assert "redo j1 first" in message
    op.redo("j1")
    (root / "a.txt").write_text("by hand\n")
    assert "changed since" in conflict(lambda: op.redo("j2"))
    (root / "a.txt").write_text("two\n")
    op.run(write("w3", "a.txt", "four\n")).approve("w3")  # a new change after the undo
    assert "undo j3 first" in conflict(lambda: op.redo("j2"))
    assert (root / "a.txt").read_text() == "four\n"
    with pytest.raises(OperatorError) as info:
        op.redo("j99")
    assert info.value.code == codes.ERR_NOT_FOUND


def test_undo_and_redo_keep_items_and_results_true(root: Path, make_operator) -> None:
    op = make_operator()
    run = op.run(write("w1", "a.txt", "1"))
    seen: list[tuple[str, str]] = []
    run.subscribe(lambda item: seen.append((item.id, item.status)))
    item = run.approve("w1").item
    applied = item.result
    assert item.entry_id == "j1" and item.decided_by == "person"
    op.undo()
    assert item.status == "undone" and item.ok is False
    assert item.result.summary == UNDONE_SUMMARY == item.summary
    assert item.error_code == codes.ERR_UNDONE
    assert "Undone (ERR_UNDONE): the person undid this change" in run.results_text
    assert item.to_dict()["status"] == "undone"
    op.redo()
    assert item.status == "applied" and item.result == applied and item.error_code is None
    assert seen == [("w1", "applied"), ("w1", "undone"), ("w1", "applied")]


def test_undo_from_another_session_updates_the_item(root: Path, make_operator) -> None:
    run = make_operator().run(write("w1", "a.txt", "1"))
    item = run.approve("w1").item
    make_operator().undo("j1")  # as the server does, from its own session
    assert item.status == "undone"


def test_write_file_is_journaled_and_checks_notebooks(root: Path, make_operator) -> None:
    op = make_operator()
    (root / "a.txt").write_text("mine")
    entry = op.write_file("a.txt", b"theirs")
    assert (entry.action, entry.decided_by, entry.change) == ("file_write", "person", "modify")
    op.undo(entry.entry_id)
    assert (root / "a.txt").read_text() == "mine"
    for path in ("nb.ipynb", "nb.ipynb/", "nb.ipynb/.", "NB.IPYNB"):
        with pytest.raises(OperatorError) as info:
            op.write_file(path, b"not json")
        assert info.value.code == codes.ERR_INVALID_NOTEBOOK
    assert not (root / "nb.ipynb").exists()


def test_history_of_a_partly_undone_reply(root: Path, make_operator) -> None:
    op: Operator = make_operator()
    run = op.run(write("w1", "a.txt", "1") + write("w2", "b.txt", "2"))
    run.approve_all()
    op.undo("j1")
    assert [e.undone for e in op.history()] == [True, False]
    assert [i.status for i in run.items] == ["undone", "applied"]


def test_history_diffs_have_a_total_budget(root: Path, make_operator, monkeypatch) -> None:
    from jupyter_operator.workspace import journal

    op = make_operator()
    for n in range(3):
        op.run(write(f"w{n}", f"f{n}.txt", "x" * 300)).approve(f"w{n}")
    sizes = [len(e.diff) for e in op.history()]
    monkeypatch.setattr(journal, "MAX_HISTORY_DIFFS", sizes[-1] + sizes[-2])
    assert [e.diff is not None for e in op.history()] == [False, True, True]
