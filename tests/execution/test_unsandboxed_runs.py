"""Where the sandbox is missing (or cannot start), no code runs without a person's approval,
whatever the rules say: cell runs, kernel restarts, state rebuilds and shell commands ask."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cell_runs import b64, cmd
from support.sandboxing import needs_sandbox

from jupyter_operator.engine import Operator, Policy, ShellPolicy, run_json
from jupyter_operator.engine.commands import CommandSession
from jupyter_operator.engine.run_items import UNSANDBOXED_ASKS
from jupyter_operator.engine.shell_policy import UNSANDBOXED_ASKS as SHELL_UNSANDBOXED_ASKS
from jupyter_operator.shell import sandbox

RUNS = [
    ("nb.runCell", {"cell_id": "c1"}),
    ("nb.restartKernel", {}),
    ("nb.rebuildState", {}),
]


@pytest.fixture
def no_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    """A host where bubblewrap is missing (the check every runner asks)."""
    monkeypatch.setattr(sandbox, "bwrap", lambda: None)


@pytest.mark.parametrize(("action", "fields"), RUNS, ids=[a for a, _ in RUNS])
def test_without_the_sandbox_auto_all_still_asks_for_every_run(
    no_sandbox: None, ws: Path, tmp_path: Path, action: str, fields: dict
) -> None:
    before = (ws / "nb.ipynb").read_bytes()
    with Operator(ws, extensions=("nb",), journal_dir=tmp_path / "journal",
                  policy=Policy("auto all")) as op:  # fmt: skip
        run = op.run(cmd("r1", action, **fields))
        (item,) = run.items
        assert not op.runner.capabilities.sandboxed
        assert item.status == "pending" and item.decided_by is None, (item.status, item.rule)
        assert item.rule == f"rule 1: auto all; {UNSANDBOXED_ASKS}"
        assert op.runner.kernel("nb.ipynb", "python3").state == "not_started"  # nothing ran
    assert (ws / "nb.ipynb").read_bytes() == before


@needs_sandbox
def test_with_the_sandbox_auto_all_runs_the_cell(ws: Path, tmp_path: Path) -> None:
    """The same rule where the kernel is sandboxed: the rule decides, the cell runs."""
    with Operator(ws, extensions=("nb",), journal_dir=tmp_path / "journal",
                  policy=Policy("auto all")) as op:  # fmt: skip
        run = op.run(cmd("r1", "nb.runCell", cell_id="c1"))
        (item,) = run.items
        assert item.decided_by == "rule" and item.status == "done", (item.status, item.rule)


def test_a_shell_rule_does_not_run_a_command_outside_the_sandbox(
    ws: Path, tmp_path: Path
) -> None:
    """``sandbox=off``: an allowed command asks all the same, and runs once approved."""
    with Operator(ws, journal_dir=tmp_path / "journal") as op:
        op.shell_policy = ShellPolicy.parse("allow=touch sandbox=off")
        run = run_json(op, json.dumps({"type": "shell", "command": "touch ran.txt"}))
        (item,) = run.items
        assert item.status == "pending" and item.decided_by is None
        assert item.rule == f"shell allow: touch; {SHELL_UNSANDBOXED_ASKS}"
        assert not (ws / "ran.txt").exists()
        run.approve(item.id)
        assert (ws / "ran.txt").exists()


def test_a_shell_rule_does_not_run_a_bash_line_through_a_host_runner(
    ws: Path, tmp_path: Path
) -> None:
    calls: list[str] = []
    with Operator(ws, journal_dir=tmp_path / "journal") as op:
        op.shell_policy = ShellPolicy.parse("allow=echo")
        session = CommandSession(op, tag="qm",
                                 shell=lambda command, cwd: (calls.append(command) or 0, ""))
        batch = session.execute("echo hi")
        assert batch.pending is batch.replies[0] and calls == []
        batch.approve()
        assert calls == ["echo hi"]


@pytest.mark.parametrize("command", ["run", "agent"])
def test_approve_all_on_the_command_line_runs_no_cell_without_the_sandbox(
    no_sandbox: None, ws: Path, tmp_path: Path, command: str,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--approve all`` is decided before anyone saw the items: it applies the changes, but a
    cell run that would not be sandboxed is rejected (the model is told why), as a rule's is."""
    from support.fake_openai import FakeOpenAI

    from jupyter_operator.cli import main
    from jupyter_operator.engine.run_items import UNATTENDED_UNSANDBOXED

    reply = cmd("w1", "nb.replaceCell", cell_id="c2", content_b64=b64("print('ran')")) + cmd(
        "r1", "nb.runCell", cell_id="c2")  # fmt: skip
    common = ["--root", str(ws), "--approve", "all", "--journal-dir", str(tmp_path / "journal")]
    if command == "run":
        (tmp_path / "reply.txt").write_text(reply)
        main(["run", *common, "--extensions", "nb", str(tmp_path / "reply.txt")])
        said = capsys.readouterr().out
    else:
        with FakeOpenAI() as fake:
            fake.add(reply, "Done.")
            monkeypatch.setenv("OPENAI_API_KEY", fake.key)
            main(["agent", *common, "--model", "fake-model", "--base-url", fake.url, "go"])
            said = json.dumps(fake.requests[-1])
    assert "print('ran')" in (ws / "nb.ipynb").read_text(), "the change was applied"
    assert "ERR_REJECTED" in said, said
    assert UNATTENDED_UNSANDBOXED.split(";")[0] in said.replace("\\n", " ")
    assert "ran\\n" not in said, "the cell ran outside the sandbox"
