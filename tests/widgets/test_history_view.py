"""The history widget: rows with diffs, Undo on any entry, refusals shown with their reason."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from operator_replies import reply, write_block

from jupyter_operator.engine import Operator
from jupyter_operator.protocol import OperatorError
from jupyter_operator.widgets.history import HistoryView, entry_decision, history_text


@dataclass(frozen=True)
class Entry:
    """A history entry as the journal gives it (the fields the widget reads)."""

    entry_id: str
    time: float
    command_id: str
    action: str
    path: str
    undone: bool = False
    session: str | None = None
    decided_by: str | None = None
    rule: str | None = None
    diff: str | None = None


def test_rows_show_time_action_path_session_decision_and_a_folded_diff() -> None:
    entries = [
        Entry("j1", 0.0, "w1", "fs.write", "a.txt", session="s-1", decided_by="person",
              diff="@@ -1 +1 @@\n-old\n+<b>new</b>\n"),
        Entry("j2", 60.0, "w2", "fs.write", "b.txt", decided_by="rule",
              rule="rule 2: auto fs.write b.*"),
        Entry("j3", 90.0, "w3", "fs.write", "c.txt", decided_by="rule", rule="auto=writes"),
    ]  # fmt: skip
    view = HistoryView(lambda: entries, undo=lambda e: f"Undone {e}")
    rows = [child.children[0].value for child in view.children[1:-1]]
    assert "c.txt" in rows[0] and "b.txt" in rows[1] and "a.txt" in rows[2]  # newest first
    assert "session s-1" in rows[2] and "decided by person" in rows[2]
    assert "decided by rule 2: auto fs.write b.*" in rows[1]
    assert "<details><summary>Diff</summary>" in rows[2]  # collapsed until opened
    assert "&lt;b&gt;new&lt;/b&gt;" in rows[2] and "<b>new" not in rows[2]
    assert entry_decision(entries[2]) == "rule: auto=writes"  # an entry an older engine wrote
    assert "s-1" in history_text(entries) and "DECISION" in history_text(entries)


def test_undo_refusal_is_shown_with_its_reason() -> None:
    entries = [Entry("j1", 0.0, "w1", "fs.write", "a.txt"), Entry("j2", 1.0, "w2", "fs.write",
               "a.txt")]  # fmt: skip

    def undo(entry_id: str) -> str:
        raise OperatorError(
            "ERR_UNDO_CONFLICT", "a later change to a.txt must be undone first: j2."
        )

    view = HistoryView(lambda: entries, undo=undo)
    undo_j1 = view.rows["j1"][1]
    undo_j1.click()
    assert "Cannot undo j1: a later change to a.txt must be undone first: j2." in (
        view.message.value
    )
    assert "jpo-warn" in view.message.value


def test_undo_then_redo_any_entry_against_the_engine(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    op = Operator(root, journal_dir=tmp_path / "journal")
    op.run(
        reply(write_block("w1", "a.txt", "two\n"), write_block("w2", "b.txt", "B\n"))
    ).approve_all()
    state: dict[str, list[Any]] = {}

    def undo(entry_id: str) -> str:
        entry = op.undo(entry_id)
        return f"Undone {entry.entry_id}"

    def redo(entry_id: str) -> str:  # what the journal's redo does, for the widget's sake
        state.setdefault("redone", []).append(entry_id)
        return f"Redone {entry_id}"

    view = HistoryView(op.history, undo=undo, redo=redo)
    older = view.entries[0]
    assert older.path == "a.txt"
    view.rows[older.entry_id][1].click()  # Undo the older entry, not the last one
    assert (root / "a.txt").read_text() == "one\n" and (root / "b.txt").exists()
    assert f"Undone {older.entry_id}" in view.message.value
    undo_button, redo_button = view.rows[older.entry_id][1:]
    assert undo_button.disabled and not redo_button.disabled
    assert "undone" in view.rows[older.entry_id][0].value
    redo_button.click()
    assert state["redone"] == [older.entry_id]


def test_without_redo_the_redo_buttons_stay_disabled() -> None:
    entries = [replace(Entry("j1", 0.0, "w1", "fs.write", "a.txt"), undone=True)]
    view = HistoryView(lambda: entries, undo=lambda e: "")
    assert view.rows["j1"][2].disabled and view.rows["j1"][1].disabled
