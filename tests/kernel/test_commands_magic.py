"""String commands in a real IPython shell: ``%op`` and ``%%operator --dialect commands``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from support.sandboxing import needs_sandbox
from support.widget_front import Front

from jupyter_operator.kernel.commands import command_session
from jupyter_operator.kernel.magics import last_view
from jupyter_operator.widgets.run_widget import RunWidget


def cell(ip: Any, line: str, body: str) -> Front:
    """Run a string-command cell; its cards, driven as the view drives them."""
    ip.run_cell_magic("operator", line, body)
    view = last_view()
    assert isinstance(view, RunWidget) and view.run["dialect"] == "commands"
    return Front(view)


def batch_of(front: Front) -> Any:
    return front.widget.engine_run.batch


def test_cell_runs_commands_and_waits_for_the_card(ip: Any, workspace: Path) -> None:
    (workspace / "notes.md").write_text("# Notes\n\n## Setup\n\n<b>bold</b> text\n", "utf-8")
    front = cell(ip, f"--dialect commands --root {workspace}",
                 "/open notes.md#setup\n/write new.md\nhello\n/end\n/ls")  # fmt: skip
    batch = batch_of(front)
    assert [r.status for r in batch.replies] == ["done", "pending"]
    assert not (workspace / "new.md").exists()
    # The document is a read card (its text, shown as text); the change is an approval card,
    # and the command behind it waits for it.
    items = front.widget.run["items"]
    assert [i["status"] for i in items] == ["done", "pending", "waiting"]
    assert "<b>bold</b> text" in items[0]["details"]
    write = items[1]
    assert write["kind"] == "mutation" and "+hello" in write["diff"]
    front.decide(write["id"])
    assert (workspace / "new.md").read_text() == "hello\n"
    assert [r.status for r in batch.replies] == ["done", "done", "done"]
    assert batch.replies[2].body.startswith("Listing ./\n---\n")
    items = front.widget.run["items"]
    assert [i["status"] for i in items] == ["done", "applied", "done"]
    assert "Written: new.md (6 bytes, 1 line)" in front.widget.run["results_text"]
    assert front.widget.run["previews"] == {}  # nothing left to decide


def test_reject_from_the_card_with_a_reason(ip: Any, workspace: Path) -> None:
    front = cell(ip, f"--dialect=commands --root={workspace}", "/write a.md\nx\n/end")
    item = front.widget.run["items"][0]
    front.decide(item["id"], "reject", reason="not today")
    body = batch_of(front).replies[0].body
    assert body == "ERROR(REJECTED): nothing was changed. Reason: not today"
    assert front.card(item["id"])["status"] == "rejected"
    assert not (workspace / "a.md").exists()


def test_op_line_magic_shares_the_session(ip: Any, workspace: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(workspace)
    (workspace / "a.md").write_text("# A\ntext\n", "utf-8")
    ip.run_line_magic("op", '/set {f} = "a.md"')
    ip.run_line_magic("op", "/open {f}")
    assert batch_of(Front(last_view())).replies[0].body == "Opened a.md\n---\n# A\ntext"
    assert command_session().variables == {"f": "a.md"}
    ip.run_cell_magic("operator", "--dialect commands", "/close")
    assert batch_of(Front(last_view())).replies[0].body == "Closed: a.md"
    data, _meta = last_view()._repr_mimebundle_()
    assert data["text/plain"].endswith("/close\nClosed: a.md")  # the responses, as text
    assert "Closed: a.md" in last_view().run["results_text"]


def test_undo_through_op_and_the_operator_history(
    ip: Any, workspace: Path, monkeypatch: Any
) -> None:
    monkeypatch.chdir(workspace)
    # /undo in string commands is a change decided like any other: here a rule applies it
    # (undoing a new file deletes it).
    ip.run_line_magic("operator", "policy auto=reads,writes,deletes")
    ip.run_cell_magic("operator", "--dialect commands", "/write a.md\nx\n/end")
    assert (workspace / "a.md").exists()
    ip.run_line_magic("op", "/undo")
    assert batch_of(Front(last_view())).replies[0].body == "Undo: reverted a.md (1 line)"
    assert not (workspace / "a.md").exists()


def test_actions_registered_from_python(ip: Any, workspace: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(workspace)
    (workspace / "answers.md").write_text("42\n", "utf-8")
    session = command_session()
    session.register_action(
        "grade", lambda file, session: f"{file}: {session.read_text(file).strip()}",
        schema={"file": {"type": "path", "required": True}},
    )  # fmt: skip
    ip.run_line_magic("op", "/act.grade --file answers.md")
    assert batch_of(Front(last_view())).replies[0].body == "answers.md: 42"


@pytest.mark.parametrize(("kind", "line", "message"), [
    ("line", "", "usage: %op /command"),
    ("cell", "--dialect klingon", "unknown dialect 'klingon'"),
    ("cell", "--dialect", "--dialect needs a name"),
    ("cell", "--dialect commands --dry-run", "unexpected '--dry-run'"),
])  # fmt: skip
def test_usage_errors_are_one_line(ip: Any, kind: str, line: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        if kind == "line":
            ip.run_line_magic("op", line)
        else:
            ip.run_cell_magic("operator", line, "/ls")


def test_dialect_operator_is_the_default(ip: Any, workspace: Path) -> None:
    import jupyter_operator

    ip.run_cell_magic("operator", f"--dialect operator --root {workspace}", "no blocks here")
    assert jupyter_operator.last_run() is not None and jupyter_operator.last_run().items == []


@needs_sandbox
def test_a_bash_line_shows_the_command_card(ip: Any, workspace: Path) -> None:
    (workspace / "docs").mkdir()
    front = cell(ip, f"--dialect commands --root {workspace}", "cd docs\ntouch made.txt\n/ls docs")
    batch = batch_of(front)
    assert [r.status for r in batch.replies] == ["done", "pending"]
    card = next(i for i in front.widget.run["items"] if i["kind"] == "shell")
    assert card["shell"]["command"] == "touch made.txt" and card["shell"]["cwd"] == "docs"
    assert not (workspace / "docs" / "made.txt").exists()
    front.decide(card["id"])
    assert (workspace / "docs" / "made.txt").exists()
    assert batch.replies[1].body == "exit: 0 | cwd: docs"
    assert batch.replies[2].body.startswith("Listing docs/\n---\nmade.txt")


@needs_sandbox
def test_op_line_magic_shows_the_card_for_a_bash_line(
    ip: Any, workspace: Path, monkeypatch: Any
) -> None:
    monkeypatch.chdir(workspace)
    ip.run_line_magic("op", "echo made > op.txt")
    front = Front(last_view())
    card = next(i for i in front.widget.run["items"] if i["kind"] == "shell")
    assert card["shell"]["command"] == "echo made > op.txt" and not (workspace / "op.txt").exists()
    front.decide(card["id"], "reject")
    assert batch_of(front).replies[0].body == "ERROR(REJECTED): the command was not run."
    assert not (workspace / "op.txt").exists()


@needs_sandbox
def test_the_kernels_shell_rules_apply_to_bash_lines(
    ip: Any, workspace: Path, monkeypatch: Any
) -> None:
    monkeypatch.chdir(workspace)
    ip.run_line_magic("operator", "shell allow=echo")
    try:
        ip.run_line_magic("op", "echo ran at once")
        replies = batch_of(Front(last_view())).replies
        assert replies[0].body == "exit: 0 | cwd: .\n---\nran at once"
        ip.run_line_magic("operator", "shell sandbox=off")
        ip.run_line_magic("op", "echo never")
        assert batch_of(Front(last_view())).replies[0].code == "BASH_UNAVAILABLE"
    finally:
        ip.run_line_magic("operator", "shell allow=none sandbox=on")
