"""The bubblewrap invocation, and running without bubblewrap."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.sandboxing import needs_sandbox

from jupyter_operator.shell import run, sandbox
from jupyter_operator.shell.sandbox import wrap


@needs_sandbox
def test_wrap_isolates_by_default(tmp_path: Path) -> None:
    args = wrap(["true"], root=tmp_path, cwd=tmp_path)
    assert "--unshare-all" in args and "--share-net" not in args
    assert "--die-with-parent" in args and args[-2:] == ["--", "true"]
    bind = args.index("--bind")
    assert args[bind + 1 : bind + 3] == [str(tmp_path), sandbox.MOUNT]
    assert "--share-net" in wrap(["true"], root=tmp_path, cwd=tmp_path, network=True)


@needs_sandbox
def test_commands_never_see_the_host_path_of_the_workspace(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "note.txt").write_text("hi")
    outcome = run("pwd; cat note.txt; touch made", root=tmp_path, cwd=tmp_path / "sub")
    assert outcome.stdout == f"{sandbox.MOUNT}/sub\nhi"
    assert str(tmp_path) not in outcome.stdout + outcome.stderr
    assert (tmp_path / "sub" / "made").exists()  # the workspace is still the one written


def test_without_bubblewrap_commands_still_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox, "bwrap", lambda: None)
    outcome = run("echo plain", root=tmp_path, cwd=tmp_path)
    assert outcome.stdout == "plain\n" and outcome.sandboxed is False


@needs_sandbox
def test_an_installation_under_tmp_stays_visible(tmp_path: Path) -> None:
    """A kernel whose virtual environment lives in /tmp: its bind is not hidden by the tmpfs."""
    assert str(tmp_path).startswith("/tmp/")
    home = tmp_path / "venv" / "bin"
    home.mkdir(parents=True)
    (home / "tool").write_text("#!/bin/sh\necho from-the-venv\n")
    (home / "tool").chmod(0o755)
    ws = tmp_path / "ws"
    ws.mkdir()
    outcome = run(f"{home}/tool", root=ws, cwd=ws, read_only=[tmp_path / "venv"])
    assert outcome.sandboxed and outcome.stdout == "from-the-venv\n", outcome.stderr


@pytest.fixture
def project(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / ".git" / "hooks").mkdir(parents=True)
    (ws / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (ws / "sub" / ".git").mkdir(parents=True)
    (ws / ".ssh").mkdir()
    (ws / ".ssh" / "id_ed25519").write_text("private key\n")
    (ws / ".netrc").write_text("machine x password hunter2\n")
    (ws / "src").mkdir()
    return ws


@needs_sandbox
def test_protected_paths_and_secrets_are_hidden(project: Path, tmp_path: Path) -> None:
    """A command a rule allows (``python3 -m unittest``) ran a test file that wrote
    ``.git/hooks/pre-commit``: every file action refuses that path, and now so does the sandbox.
    What ``fs.read`` refuses (every protected path) the sandbox hides, as it does ``.ssh``."""
    from jupyter_operator.workspace import Workspace

    with Workspace(project, journal_dir=tmp_path / "journal") as ws:
        masks = ws.sandbox_masks()
    assert sorted(masks.hidden) == [(".git", True), (".netrc", False), (".ssh", True),
                                    ("sub/.git", True)]  # fmt: skip
    script = ("echo evil > .git/hooks/pre-commit; echo evil > sub/.git/config; "
              "cat .git/HEAD; ls -A .git .ssh; cat .netrc; echo ok > src/made.txt")  # fmt: skip
    outcome = run(script, root=project, cwd=project, masks=(masks.read_only, masks.hidden))
    assert outcome.stdout == ".git:\n\n.ssh:\n"  # empty folders; .netrc empty
    assert "hunter2" not in outcome.stdout and "id_ed25519" not in outcome.stdout
    assert "Read-only file system" in outcome.stderr
    assert not (project / ".git" / "hooks" / "pre-commit").exists()
    assert not (project / "sub" / ".git" / "config").exists()
    assert (project / "src" / "made.txt").read_text() == "ok\n"  # the rest stays writable


@needs_sandbox
def test_a_folder_holding_a_hidden_path_cannot_be_renamed(project: Path, tmp_path: Path) -> None:
    """The folder above a hidden ``sub/.git`` is a mount point: a command cannot move the
    repository away (``mv sub old``) and put a ``.git`` of its own in its place, which git
    would run hooks from outside the sandbox."""
    from jupyter_operator.workspace import Workspace

    with Workspace(project, journal_dir=tmp_path / "journal") as ws:
        masks = ws.sandbox_masks()
    script = "mv sub old; mkdir -p sub/.git/hooks; echo evil > sub/.git/hooks/pre-commit"
    outcome = run(script, root=project, cwd=project, masks=(masks.read_only, masks.hidden))
    assert "busy" in outcome.stderr, outcome.stderr
    assert not (project / "old").exists() and (project / "sub" / ".git").is_dir()
    assert not (project / "sub" / ".git" / "hooks" / "pre-commit").exists()


@needs_sandbox
def test_an_approved_shell_operation_cannot_write_git_hooks(project: Path, tmp_path: Path) -> None:
    """Through the engine: an approved JSON shell operation, run in the sandbox."""
    import json

    from jupyter_operator.engine import Operator, run_json
    op = Operator(project, journal_dir=tmp_path / "journal")
    code = "open('.git/hooks/pre-commit', 'w').write('evil')"
    run = run_json(op, json.dumps({"type": "shell", "command": f'python3 -c "{code}"'}))
    run.approve(run.items[0].id)  # the person approves the command itself
    event = run.events[-1]
    assert event["success"] is False and "FileNotFoundError" in event["stderr"]  # hidden .git
    assert not (project / ".git" / "hooks" / "pre-commit").exists()


NOTEBOOK = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n'


class OpenFiles:
    """A page (or a room) that holds ``names`` open: ``live_route.LivePages.open_below``."""

    def __init__(self, root: Path, *names: str) -> None:
        self.paths = [root / name for name in names]

    def holds(self, path: Path) -> bool:
        return path in self.paths

    def open_below(self, root: Path) -> list[Path]:
        return [path for path in self.paths if path.is_relative_to(root)]


def test_only_regular_files_open_in_a_page_are_bound_read_only(
    project: Path, tmp_path: Path
) -> None:
    """A name a page or a room gives is bound only when the walk finds it as a regular file:
    never through a link (it could lead out of the workspace), never a missing one, and a
    secret stays hidden."""
    from jupyter_operator.workspace import Workspace

    (project / "lesson.ipynb").write_text(NOTEBOOK)
    (project / "link.ipynb").symlink_to(project / "lesson.ipynb")
    live = ["lesson.ipynb", "link.ipynb", "missing.ipynb", "../outside.md", ".netrc"]
    with Workspace(project, journal_dir=tmp_path / "journal") as ws:
        masks = ws.sandbox_masks(live)
    assert masks.live == ["lesson.ipynb"]
    assert "lesson.ipynb" in masks.read_only and "link.ipynb" not in masks.read_only
    assert (".netrc", False) in masks.hidden and ".netrc" not in masks.read_only


@needs_sandbox
def test_a_command_cannot_write_beneath_an_open_page_or_room(
    project: Path, tmp_path: Path
) -> None:
    """A notebook open in a page and a text file open in a room are the person's working
    copies: an approved command finds them read-only (it can neither write, move nor delete
    them) and is told why; a closed notebook stays writable."""
    import json

    from jupyter_operator.engine import Operator, run_json

    (project / "lesson.ipynb").write_text(NOTEBOOK)
    (project / "src" / "notes.md").write_text("notes\n")
    (project / "closed.ipynb").write_text(NOTEBOOK)
    op = Operator(project, journal_dir=tmp_path / "journal")
    op.pages = OpenFiles(project, "lesson.ipynb")
    op.rooms = OpenFiles(project, "src/notes.md")
    script = ("echo z > closed.ipynb; echo y >> src/notes.md; mv lesson.ipynb gone.ipynb; "
              "rm -f lesson.ipynb; echo x > lesson.ipynb")  # fmt: skip
    run = run_json(op, json.dumps({"type": "shell", "command": script}))
    run.approve(run.items[0].id)
    event = run.events[-1]
    assert event["success"] is False
    assert "Read-only file system" in event["stderr"] or "busy" in event["stderr"]
    assert ("open in a page or a collaborative room, so read-only for this command: "
            "lesson.ipynb, src/notes.md.") in event["stderr"]  # fmt: skip
    assert (project / "lesson.ipynb").read_text() == NOTEBOOK
    assert (project / "src" / "notes.md").read_text() == "notes\n"
    assert not (project / "gone.ipynb").exists()
    assert (project / "closed.ipynb").read_text() == "z\n"
