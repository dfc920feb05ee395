"""notebooks/05-commands.ipynb runs unattended and shows a short command session."""

from __future__ import annotations

from pathlib import Path

from notebook_runs import execute, text
from support.sandboxing import sandbox_here


def test_commands_notebook(tmp_path: Path) -> None:
    _nb, out = execute("05-commands.ipynb", tmp_path)
    assert "Listing ./\n---\nlesson.md" in text(out["cell-03"])
    assert "Opened lesson.md#exercise\n---\n## Exercise" in text(out["cell-04"])
    # The change was approved in the next cell: the saved output of its cards says so.
    assert "Written: answers.md (3 bytes, 1 line)" in text(out["cell-05"])
    approved = text(out["cell-06"])
    assert "Written: answers.md (3 bytes, 1 line)" in approved
    assert "Opened answers.md\n---\n42" in approved
    session = text(out["cell-08"])
    assert "Menu: lesson\n---\nLesson 1\n1. Read the exercise: /open lesson.md#exercise" in session
    assert "Action: grade\n---\n/act.grade --file PATH" in session
    assert session.rstrip().endswith("/act.grade --file answers.md\ncorrect!")
    # The reply's /undo is a proposal; the next cell approves it (as a click would).
    # (Its saved cards then show the answer: the undo was approved.)
    assert "Undo: reverted answers.md (1 line)" in text(out["cell-09"])
    assert "Undo: reverted answers.md (1 line)" in text(out["cell-09b"])
    assert not (tmp_path / "commands-demo" / "answers.md").exists()
    assert "open: answers.md" in text(out["cell-10"])


def test_bash_section(tmp_path: Path) -> None:
    _nb, out = execute("05-commands.ipynb", tmp_path)
    proposed = text(out["cell-11"])
    assert "ERROR(PATH_ESCAPE)" in proposed and "exit: 0 | cwd: ." in proposed
    answered = text(out["cell-12"])
    if sandbox_here():
        # Approved in the next cell: the saved output of the cards shows the command's answer.
        assert "grep -c Multiply lesson.md\nexit: 0 | cwd: .\n---\n1" in proposed
        assert answered.rstrip().endswith("grep -c Multiply lesson.md\nexit: 0 | cwd: .\n---\n1")
    else:
        assert "ERROR(BASH_UNAVAILABLE): bash lines run only inside the bubblewrap" in answered
