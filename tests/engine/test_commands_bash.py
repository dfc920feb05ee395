"""Bash lines of a string-command session: approval, the sandbox, the jail of the session folder,
the shell policy, and ``BASH_UNAVAILABLE`` where the sandbox is missing."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.sandboxing import needs_sandbox

from jupyter_operator.engine import Operator, ShellPolicy
from jupyter_operator.engine.commands import BashItem, CommandSession
from jupyter_operator.engine.commands import bash as bash_module


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    (folder / "docs").mkdir(parents=True)
    (folder / "docs" / "guide.md").write_text("# Guide\n", encoding="utf-8")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("TOP SECRET\n", encoding="utf-8")
    return folder


@pytest.fixture
def make(make_operator: Callable[..., Operator]) -> Iterator[Callable[..., CommandSession]]:
    operators: list[Operator] = []

    def build(rules: str | None = None, **kwargs: object) -> CommandSession:
        op = make_operator()
        if rules is not None:
            op.shell_policy = ShellPolicy.parse(rules)
        operators.append(op)
        return CommandSession(op, tag="qm", **kwargs)  # type: ignore[arg-type]

    yield build
    for op in operators:
        op.close()


# -- approval ------------------------------------------------------------------------------
@needs_sandbox
def test_a_bash_line_waits_for_approval_then_answers_in_the_seed_form(make: Callable) -> None:
    session = make()
    batch = session.execute("echo hello\n/ls docs")
    reply = batch.pending
    assert reply is not None and len(batch.replies) == 1  # /ls waits for the decision
    assert reply.text == (
        "re: [001qm] echo hello\n"
        "Proposed: bash in . (Shell command requires approval); waiting for approval"
    )
    item = reply.run.items[0]
    assert isinstance(item, BashItem) and item.kind == "shell" and item.needs_approval
    shown = item.to_dict()
    assert shown["shell"]["command"] == "echo hello" and shown["shell"]["cwd"] == "."
    assert shown["shell"]["sandboxed"] is True and shown["dialect"] == "commands"
    assert shown["rule_note"] == "asked by shell default: ask"  # why it asks
    batch.approve()
    assert batch.done
    assert batch.replies[0].text == "re: [001qm] echo hello\nexit: 0 | cwd: .\n---\nhello"
    assert batch.replies[1].system == "Listing docs/"
    assert item.decided_by == "person" and item.shell.status == "finished"
    assert session.operator.shell_history.records[-1].command == "echo hello"


@needs_sandbox
def test_the_command_runs_in_the_session_folder_and_reports_exit_and_stderr(
    make: Callable,
) -> None:
    session = make()
    session.command("cd docs")
    batch = session.execute("ls; echo oops >&2; exit 3")
    batch.approve()
    assert batch.replies[0].body == "exit: 3 | cwd: docs\n---\nguide.md\noops"


@needs_sandbox
def test_no_output_is_a_confirmation_without_separator(make: Callable, root: Path) -> None:
    batch = make().execute("touch made.txt")
    batch.approve()
    assert batch.replies[0].body == "exit: 0 | cwd: ."
    assert (root / "made.txt").exists()


def test_rejected_lines_never_run(make: Callable, root: Path) -> None:
    calls: list[str] = []
    session = make(shell=lambda command, cwd: (calls.append(command) or 0, ""))
    batch = session.execute("touch never.txt\n/ls docs")
    batch.reject("not now")
    assert batch.replies[0].body == "ERROR(REJECTED): the command was not run. Reason: not now"
    assert batch.replies[1].system == "Listing docs/"  # the script goes on
    assert calls == [] and not (root / "never.txt").exists()


def test_a_host_runner_gets_the_approved_command_and_folder(make: Callable) -> None:
    calls: list[tuple[str, str]] = []

    def runner(command: str, cwd: str) -> tuple[int, str]:
        calls.append((command, cwd))
        return 0, "\x1b[31mred\x1b[0m\n"

    session = make(shell=runner)
    session.command("cd docs")
    batch = session.execute("ls -la")
    assert batch.pending is not None and calls == []
    batch.approve()
    assert calls == [("ls -la", "docs")]
    assert batch.replies[0].body == "exit: 0 | cwd: docs\n---\n\\u001b[31mred\\u001b[0m"


# -- the shell policy ----------------------------------------------------------------------
@needs_sandbox
def test_an_allowed_command_runs_without_asking(make: Callable) -> None:
    session = make("allow=echo")
    batch = session.execute("echo auto\necho 'quoted'")
    assert batch.replies[0].body == "exit: 0 | cwd: .\n---\nauto"
    record = session.operator.shell_history.records[0]
    assert (record.decided_by, record.rule) == ("rule", "shell allow: echo")
    assert batch.pending is batch.replies[1]  # shell syntax (quotes) always asks


def test_a_denied_command_is_refused(make: Callable, root: Path) -> None:
    reply = make('deny="rm *"').command("rm -f docs/guide.md")
    assert reply.body.startswith("ERROR(DENIED): Command matches a denied pattern (rm *).")
    assert (root / "docs" / "guide.md").exists()
    assert make("unlisted=deny").command("ls").code == "DENIED"


# -- the jail of the session folder --------------------------------------------------------
JAIL = [
    ("cd /", "PATH_ESCAPE"),
    ("cd /etc", "PATH_ESCAPE"),
    ("cd ../..", "PATH_ESCAPE"),
    ("cd ../docs/../../outside", "PATH_ESCAPE"),
    ("cd ../out", "PATH_ESCAPE"),  # a link to a folder outside the workspace
    ("cd missing", "NOT_FOUND"),
    ("cd guide.md", "NOT_A_DIRECTORY"),
]


@pytest.mark.parametrize(("line", "code"), JAIL)
def test_cd_never_leaves_the_workspace(make: Callable, root: Path, line: str, code: str) -> None:
    (root / "out").symlink_to(root.parent / "outside", target_is_directory=True)
    session = make()
    session.command("cd docs")
    reply = session.command(line)  # from docs
    assert reply.code == code, reply.body
    assert "\n" not in reply.body and str(root.parent) not in reply.body
    assert session.cwd == "docs"  # unchanged
    assert session.command("cd").body == "exit: 0 | cwd: ."


def test_cd_up_inside_the_workspace_is_fine_and_not_above_the_root(make: Callable) -> None:
    session = make()
    assert session.command("cd docs").body == "exit: 0 | cwd: docs"
    assert session.command("cd ..").body == "exit: 0 | cwd: ."
    assert session.command("cd ..").code == "PATH_ESCAPE" and session.cwd == ""


def test_a_folder_swapped_for_a_link_after_cd_is_refused(make: Callable, root: Path) -> None:
    calls: list[str] = []
    session = make(shell=lambda command, cwd: (calls.append(cwd) or 0, ""))
    session.command("cd docs")
    os.rename(root / "docs", root / "docs-old")
    (root / "docs").symlink_to(root.parent / "outside", target_is_directory=True)
    reply = session.command("touch x")
    assert reply.code == "PATH_ESCAPE" and calls == []


def test_a_folder_swapped_between_preview_and_approval_is_refused(
    make: Callable, root: Path
) -> None:
    calls: list[str] = []
    session = make(shell=lambda command, cwd: (calls.append(cwd) or 0, ""))
    session.command("cd docs")
    batch = session.execute("touch x")
    os.rename(root / "docs", root / "docs-old")
    (root / "docs").symlink_to(root.parent / "outside", target_is_directory=True)
    batch.approve()
    assert batch.replies[0].code == "PATH_ESCAPE" and calls == []
    assert not (root.parent / "outside" / "x").exists()


@needs_sandbox
def test_an_approved_command_cannot_write_outside_the_workspace(
    make: Callable, root: Path
) -> None:
    batch = make().execute("echo pwned > ../outside/secret.txt; touch ../escaped")
    batch.approve()
    assert batch.replies[0].body.startswith("exit: ")
    assert (root.parent / "outside" / "secret.txt").read_text() == "TOP SECRET\n"
    assert not (root.parent / "escaped").exists()


# -- without the sandbox -------------------------------------------------------------------
def test_bash_is_unavailable_without_the_sandbox(
    make: Callable, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bash_module.shell, "sandbox_available", lambda: False)
    session = make()
    reply = session.command("ls")
    assert reply.body == f"ERROR(BASH_UNAVAILABLE): {bash_module.NO_SANDBOX}"
    assert "not available" in session.command("/info").body
    assert "bubblewrap" in session.command("/help bash").body
    assert session.command("cd docs").body == "exit: 0 | cwd: docs"  # cd needs no shell


def test_bash_is_unavailable_when_the_policy_switches_the_sandbox_off(make: Callable) -> None:
    reply = make("sandbox=off").command("ls")
    assert reply.body == f"ERROR(BASH_UNAVAILABLE): {bash_module.SANDBOX_OFF}"
    assert make(shell=None).command("ls").code == "BASH_UNAVAILABLE"


@needs_sandbox
def test_a_swapped_folder_is_refused_by_the_sandbox_runner_too(make: Callable, root: Path) -> None:
    session = make()
    session.command("cd docs")
    batch = session.execute("touch x")
    os.rename(root / "docs", root / "docs-old")
    (root / "docs").symlink_to(root.parent / "outside", target_is_directory=True)
    batch.approve()
    assert batch.replies[0].code == "PATH_ESCAPE"
    assert not (root.parent / "outside" / "x").exists()
    assert session.operator.shell_history.records == []


@needs_sandbox
def test_a_command_over_its_time_limit_is_stopped(make: Callable) -> None:
    batch = make("timeout=300").execute("echo started; sleep 30")
    batch.approve()
    body = batch.replies[0].body
    assert body.startswith("exit: 124 | cwd: .\n---\nstarted\n[stopped after ")
    assert body.endswith(" ms: the time limit]")


def test_cd_takes_quoted_names_and_leaves_compound_lines_to_the_shell(
    make: Callable, root: Path
) -> None:
    (root / "my dir").mkdir()
    session = make(shell=lambda command, cwd: (0, ""))
    assert session.command('cd "my dir"').body == "exit: 0 | cwd: my dir"
    usage = "ERROR(USAGE): cd takes one folder: cd path (quote spaces)."
    assert session.command("cd a b").body == usage
    reply = session.command("cd .. && ls")  # a shell line: it is shown for approval
    assert reply.status == "pending" and session.cwd == "my dir"


def test_the_answer_caps_output_and_spells_out_control_characters() -> None:
    body = bash_module.answer(0, "docs", "a" * 40_000, "warn\x07\n")
    system, _, content = body.partition("\n---\n")
    assert system == "exit: 0 | cwd: docs"
    assert "characters not shown" in content and len(content) < 17_000
    assert content.endswith("\nwarn\\u0007")
    assert bash_module.answer(1, ".", "", "") == "exit: 1 | cwd: ."
