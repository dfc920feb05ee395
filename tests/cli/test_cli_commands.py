"""``jupyter-operator run --dialect commands``: a script of string commands from a file or stdin."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from support.sandboxing import needs_sandbox

from jupyter_operator import cli

SCRIPT = """\
/write notes.md
# Notes
first
/end
/append notes.md
second
/end
/open notes.md#notes
/undo
/open nothing.md
"""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


def run(tmp_path: Path, root: Path, *args: str) -> None:
    script = tmp_path / "script.txt"
    script.write_text(SCRIPT, encoding="utf-8")
    argv = ["run", "--dialect", "commands", "--root", str(root),
            "--journal-dir", str(tmp_path / "journal"), *args, str(script)]  # fmt: skip
    assert cli.main(argv) == 0


def bodies(out: str) -> list[str]:
    """Response bodies without their ``re: [id]`` lines (ids are random per session)."""
    return ["\n".join(part.split("\n")[1:]) for part in out.rstrip("\n").split("\n\n")]


def test_approve_all_runs_every_command_in_order(
    tmp_path: Path, root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(tmp_path, root, "--approve", "all")
    out, err = capsys.readouterr()
    assert bodies(out) == [
        "Written: notes.md (14 bytes, 2 lines)",
        "Appended to: notes.md (now 21 bytes)",
        "Opened notes.md#notes\n---\n# Notes\nfirst\nsecond",
        "Undo: reverted notes.md (1 line)",
        "ERROR(NOT_FOUND): File not found: nothing.md",
    ]
    assert out.startswith("re: [001") and err == ""
    assert (root / "notes.md").read_text(encoding="utf-8") == "# Notes\nfirst\n"


def test_approve_none_rejects_and_goes_on(tmp_path: Path, root: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    run(tmp_path, root, "--approve", "none")
    out = bodies(capsys.readouterr().out)
    assert out[:3] == [
        "ERROR(REJECTED): nothing was changed.",
        "ERROR(REJECTED): nothing was changed.",
        "ERROR(NOT_FOUND): File not found: notes.md",
    ]
    assert not (root / "notes.md").exists()


class Terminal(io.StringIO):
    """Answers for the questions, and a record of what was asked."""

    def __init__(self, answers: list[str]) -> None:
        super().__init__()
        self.answers = answers

    def readline(self, *args: object) -> str:  # type: ignore[override]
        return self.answers.pop(0) + "\n"

    def isatty(self) -> bool:
        return False

    def close(self) -> None:  # the command line closes its terminal when done
        self.asked = self.getvalue()
        super().close()


def test_ask_shows_each_diff(tmp_path: Path, root: Path, monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    terminal = Terminal(["y", "too long", "n"])  # the reply's /undo is asked about too
    monkeypatch.setattr(cli, "_terminal", lambda: terminal)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    run(tmp_path, root, "--approve", "ask")
    out = bodies(capsys.readouterr().out)
    assert out[:2] == [
        "Written: notes.md (14 bytes, 2 lines)",
        "ERROR(REJECTED): nothing was changed. Reason: too long",
    ]
    assert out[3] == "ERROR(REJECTED): nothing was changed."  # the /undo, refused
    asked = terminal.asked
    assert "fs.write notes.md" in asked and "+# Notes" in asked and "+second" in asked
    assert "fs.delete notes.md" in asked and "-first" in asked  # the undo of the new file
    assert (root / "notes.md").read_text(encoding="utf-8") == "# Notes\nfirst\n"


def test_a_bad_dialect_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run", "--dialect", "klingon"]) == 2
    assert "invalid choice" in capsys.readouterr().err


@needs_sandbox
def test_ask_shows_a_bash_line_with_its_folder(
    tmp_path: Path, root: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    (root / "docs").mkdir()
    (root / "docs" / "a.md").write_text("A\n", encoding="utf-8")
    script = tmp_path / "bash.txt"
    script.write_text("cd docs\ncat a.md\ntouch never\n", encoding="utf-8")
    terminal = Terminal(["y", "n"])
    monkeypatch.setattr(cli, "_terminal", lambda: terminal)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    argv = ["run", "--dialect", "commands", "--root", str(root), "--approve", "ask",
            "--journal-dir", str(tmp_path / "journal"), str(script)]  # fmt: skip
    assert cli.main(argv) == 0
    assert bodies(capsys.readouterr().out) == [
        "exit: 0 | cwd: docs",
        "exit: 0 | cwd: docs\n---\nA",
        "ERROR(REJECTED): the command was not run.",
    ]
    assert "command: cat a.md\n  cwd: docs" in terminal.asked
    assert not (root / "docs" / "never").exists()


@needs_sandbox
def test_shell_rules_apply_to_bash_lines(
    tmp_path: Path, root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "bash.txt"
    script.write_text("echo ok\nrm -rf .\n", encoding="utf-8")
    argv = ["run", "--dialect", "commands", "--root", str(root), "--approve", "none",
            "--shell", 'allow=echo deny="rm *"', "--journal-dir", str(tmp_path / "journal"),
            str(script)]  # fmt: skip
    assert cli.main(argv) == 0
    out = bodies(capsys.readouterr().out)
    assert out[0] == "exit: 0 | cwd: .\n---\nok"
    assert out[1].startswith("ERROR(DENIED): Command matches a denied pattern (rm *).")
