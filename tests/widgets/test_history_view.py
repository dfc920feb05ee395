"""The history widget: entries as the panel gets them (diffs, who decided), Undo and Redo on
any entry sent as the view sends them, refusals answered with their reason."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from support.operator_replies import reply, write_block
from support.widget_front import Front

from jupyter_operator.protocol import OperatorError
from jupyter_operator.widgets.history_widget import HistoryWidget, entry_decision, history_text


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


def test_entries_carry_time_action_path_session_decision_and_diff() -> None:
    entries = [
        Entry("j1", 0.0, "w1", "fs.write", "a.txt", session="s-1", decided_by="person",
              diff="@@ -1 +1 @@\n-old\n+<b>new</b>\n"),
        Entry("j2", 60.0, "w2", "fs.write", "b.txt", decided_by="rule",
              rule="rule 2: auto fs.write b.*"),
        Entry("j3", 90.0, "w3", "fs.write", "c.txt", decided_by="rule", rule="auto=writes"),
    ]  # fmt: skip
    view = HistoryWidget(lambda: entries, undo=lambda e: f"Undone {e}")
    sent = view.history["history"]
    assert [e["path"] for e in sent] == ["a.txt", "b.txt", "c.txt"]  # oldest first, as served
    assert sent[0]["diff"] == "@@ -1 +1 @@\n-old\n+<b>new</b>\n"  # text: the view escapes
    assert sent[0]["decided_by"] == "person" and sent[1]["rule"] == "rule 2: auto fs.write b.*"
    assert all(e["undone"] is False for e in sent)
    assert entry_decision(entries[2]) == "rule: auto=writes"  # an entry an older engine wrote
    assert "s-1" in history_text(entries) and "DECISION" in history_text(entries)
    assert view._repr_mimebundle_()[0]["text/plain"] == history_text(entries)


def test_undo_refusal_is_answered_with_its_reason() -> None:
    entries = [Entry("j1", 0.0, "w1", "fs.write", "a.txt"), Entry("j2", 1.0, "w2", "fs.write",
               "a.txt")]  # fmt: skip

    def undo(entry_id: str | None) -> str:
        raise OperatorError(
            "ERR_UNDO_CONFLICT", "a later change to a.txt must be undone first: j2."
        )

    view = HistoryWidget(lambda: entries, undo=undo)
    answer = Front(view).request(kind="undo", entry_id="j1")
    said = "Cannot undo j1: a later change to a.txt must be undone first: j2."
    assert answer["error"] == said and view.history["message"] == said


def test_undo_then_redo_any_entry_against_the_engine(root: Path, make_operator) -> None:
    (root / "a.txt").write_text("one\n")
    op = make_operator()
    op.run(
        reply(write_block("w1", "a.txt", "two\n"), write_block("w2", "b.txt", "B\n"))
    ).approve_all()

    def undo(entry_id: str | None) -> str:
        return f"Undone {op.undo(entry_id).entry_id}"

    def redo(entry_id: str | None) -> str:
        return f"Redone {op.redo(entry_id).entry_id}"

    view = HistoryWidget(op.history, undo=undo, redo=redo)
    front = Front(view)
    older = view.history["history"][0]
    assert older["path"] == "a.txt"
    answer = front.request(kind="undo", entry_id=older["entry_id"])  # the older one, not the last
    assert (root / "a.txt").read_text() == "one\n" and (root / "b.txt").exists()
    assert answer["note"] == f"Undone {older['entry_id']}"
    assert view.history["history"][0]["undone"] is True  # the view redraws from this
    front.request(kind="redo", entry_id=older["entry_id"])
    assert (root / "a.txt").read_text() == "two\n"
    assert view.history["history"][0]["undone"] is False


def test_without_redo_a_redo_request_is_refused() -> None:
    entries = [Entry("j1", 0.0, "w1", "fs.write", "a.txt", undone=True)]
    view = HistoryWidget(lambda: entries, undo=lambda e: "")
    answer = Front(view).request(kind="redo", entry_id="j1")
    assert answer["error"] == "Cannot redo: not available here"
