"""Every row of the seed's tables: the system message, the ``---`` separator and the content."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_operator.engine.commands import CommandSession, Doc

HELLO = "# Hello World\nWelcome\nRead notes.md first\n"  # 42 bytes, 3 lines
LATER = "## Later\nThis line was appended now\n"  # 36 bytes


def last(session: CommandSession, script: str) -> str:
    """The body of the last response (its ``re:`` line checked and removed)."""
    batch = session.execute(script)
    assert batch.done
    head, _, body = batch.replies[-1].text.partition("\n")
    assert head.startswith(f"re: [{batch.replies[-1].request_id}] ")
    return body


def parts(body: str) -> tuple[str, str | None]:
    """(system message, content or None) of a response body."""
    system, sep, content = body.partition("\n---\n")
    assert "\n" not in system
    return system, (content if sep else None)


def test_the_seed_example_is_reproduced_exactly(auto: CommandSession, root: Path) -> None:
    (root / "hello.md").write_text("# Hello World\nWelcome\n", encoding="utf-8")
    batch = auto.execute('/set {x} = "1"\n/ls\n/open hello.md\n/open nonexistent.md')
    assert (
        batch.replies[2].text
        == "re: [003qm] /open hello.md\nOpened hello.md\n---\n# Hello World\nWelcome"
    )
    assert batch.replies[3].text == (
        "re: [004qm] /open nonexistent.md\nERROR(NOT_FOUND): File not found: nonexistent.md"
    )


# -- commands that return content ---------------------------------------------------------------
CONTENT_ROWS = [
    ("/open notes.md", "Opened notes.md", "# Course notes\n\nRead every section"),
    ("/open notes.md#setup", "Opened notes.md#setup", "## Setup\n\nInstall the tools."),
    ("/open notes.md\n/open docs/guide.md\n/back", "Back to notes.md", "# Course notes"),
    ("/open notes.md#Linux\n/refresh", "Refreshed notes.md#Linux", "### Linux\n\n```bash"),
    (
        "/edit docs/guide.md",
        "[editing: docs/guide.md]",
        "   1 | # Guide\n   2 | \n   3 | Start here.",
    ),
    (
        "/edit notes.md#macos",
        "[editing: notes.md#macos]",
        "  16 | ### macOS\n  17 | \n  18 | Use Homebrew.",
    ),
    ("/help", "String Commands", "/open path[#block]"),
    ("/ls docs", "Listing docs/", "guide.md  (21 bytes)"),
    ("/ls", "Listing ./", "docs/\nnotes.md"),
    ("/nav", "Menus", "lesson  Lesson 1  (2 entries)"),
    ("/nav lesson", "Menu: lesson", "Lesson 1\n1. Read the notes: /open notes.md"),
    ("/nav scaffold", "Nav Scaffold", "# A menu groups commands"),
    ("/info", "Session info", "workspace: .\nopen: (none)"),
    ("/act", "Actions", "grade  Grade an answers file."),
    ("/act.grade --help", "Action: grade", "/act.grade --file PATH [--strict]"),
    ("/act.grade", "Action: grade", "/act.grade --file PATH [--strict]\nGrade an"),
    ("/verify notes.md#Exercises", "Verified notes.md#Exercises", "Exercises\n---------\n\nSetext"),
    ('/set {a} = "1"\n/set', "Variables", '{a} = "1"'),
    ("/help bash", "Bash Session", "A line that does not start with / is a bash line"),
]


def grade(file: str, strict: bool = False, session: CommandSession | None = None) -> str:
    """Grade an answers file."""
    assert session is not None
    answers = session.read_text(file)
    return f"{file}: {answers.count('42')} of 1 correct" + (" (strict)" if strict else "")


def with_class_setup(session: CommandSession) -> CommandSession:
    session.register_action(
        "grade", grade, schema={"file": {"type": "path", "required": True, "help": "answers"},
                                "strict": {"type": "bool"}},
    )  # fmt: skip
    session.register_action("feedback", lambda: Doc("notes.md", "setup"), description="Notes")
    session.register_menu(
        "lesson", [("Read the notes", "/open notes.md"), ("Grade", "/act.grade --file a.md")],
        title="Lesson 1",
    )  # fmt: skip
    return session


@pytest.mark.parametrize(("script", "system", "content"), CONTENT_ROWS, ids=lambda v: v[:24])
def test_content_rows(session: CommandSession, script: str, system: str, content: str) -> None:
    got_system, got_content = parts(last(with_class_setup(session), script))
    assert got_system == system
    assert got_content is not None and got_content.startswith(content), got_content


def test_bash_output_row(make_session: object, root: Path) -> None:
    calls: list[tuple[str, str]] = []

    def shell(line: str, cwd: str) -> tuple[int, str]:  # a stand-in for the shell runner
        calls.append((line, cwd))
        return 3, "out\n"

    session = make_session(shell=shell)  # type: ignore[operator]
    batch = session.execute("cd docs\nls -la")
    assert batch.pending is batch.replies[1] and calls == []  # a bash line waits for approval
    batch.approve()
    head, _, body = batch.replies[1].text.partition("\n")
    assert head == f"re: [{batch.replies[1].request_id}] ls -la"
    assert parts(body) == ("exit: 3 | cwd: docs", "out")
    assert parts(batch.replies[0].body) == ("exit: 0 | cwd: docs", None)
    assert calls == [("ls -la", "docs")]


# -- confirmations and status messages ----------------------------------------------------------
def test_open_without_arguments_is_a_usage_error(session: CommandSession) -> None:
    assert last(session, "/open") == "ERROR(USAGE): /open needs a path: /open path[#block]."


def test_write_and_append_rows(auto: CommandSession, root: Path) -> None:
    assert last(auto, f"/write hello.md\n{HELLO}/end") == "Written: hello.md (42 bytes, 3 lines)"
    assert last(auto, f"/append hello.md\n{LATER}/end") == "Appended to: hello.md (now 78 bytes)"
    assert (root / "hello.md").read_text(encoding="utf-8") == HELLO + LATER


def test_edit_rows(auto: CommandSession, root: Path) -> None:
    body = last(auto, "/edit docs/guide.md\n# Guide\nRewritten.\n/end")
    assert body == "Edited docs/guide.md (2 lines, whole file)"
    assert (root / "docs/guide.md").read_text(encoding="utf-8") == "# Guide\nRewritten.\n"
    block = "### macOS\n\nUse Homebrew,\nor MacPorts.\n\n"
    assert last(auto, f"/edit notes.md#macos\n{block}/end") == "Edited notes.md#macos (5 lines)"
    text = (root / "notes.md").read_text(encoding="utf-8")
    assert "or MacPorts.\n\n## Install\n\nThe first" in text
    assert text.count("Use Homebrew") == 1


def test_close_set_and_undo_rows(auto: CommandSession, root: Path) -> None:
    assert last(auto, "/open notes.md#setup\n/close") == "Closed: notes.md#setup"
    assert last(auto, '/set {var} = "val"') == '{var} = "val"'
    last(auto, "/write docs/guide.md\none\ntwo\n/end")
    assert last(auto, "/undo") == "Undo: reverted docs/guide.md (5 lines)"
    assert (root / "docs/guide.md").read_text(encoding="utf-8") == "# Guide\n\nStart here.\n"


def test_action_rows(session: CommandSession, root: Path) -> None:
    (root / "a.md").write_text("answer: 42\n", encoding="utf-8")
    with_class_setup(session)
    assert last(session, "/act.grade --file a.md --strict") == "a.md: 1 of 1 correct (strict)"
    system, content = parts(last(session, "/act.feedback"))
    assert (system, content) == ("Opened notes.md#setup", content)
    assert content is not None and content.startswith("## Setup")
