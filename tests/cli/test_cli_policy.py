"""``--policy FILE`` and ``--rule``: rules on the command line, shown for every decided item."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_process import cli
from support.replies import block

REPLY = "\n".join([
    block("d1", "fs.delete", path="a.txt"),
    block("w1", "fs.write", path="notes/n.md", content="note"),
    block("w2", "fs.write", path="b.txt", content="b"),
])  # fmt: skip


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "a.txt").write_text("a\n")
    return folder


def test_policy_file_and_rules_decide_and_say_so(
    root: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    rules = tmp_path / "rules.txt"
    rules.write_text("# the team's rules\ndeny fs.delete **\n")
    proc = cli("run", "--root", str(root), "--policy", str(rules), "--rule",
               "auto fs.write notes/**", "--approve", "none", env=env, stdin=REPLY)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Denied (ERR_POLICY_DENIED): fs.delete is not allowed in this workspace " \
        "(rule 1: deny fs.delete **)." in proc.stdout
    assert proc.stderr.splitlines() == [
        "jupyter-operator: d1 denied by rule 1: deny fs.delete **",
        "jupyter-operator: w1 auto-approved by rule 2: auto fs.write notes/**",
    ]
    assert (root / "a.txt").exists() and (root / "notes" / "n.md").read_text() == "note"
    assert not (root / "b.txt").exists()
    history = cli("history", "--root", str(root), env=env).stdout
    assert "by rule 2: auto fs.write notes/**" in history


def test_the_older_policy_text_still_works(root: Path, env: dict[str, str]) -> None:
    proc = cli("run", "--root", str(root), "--policy", "auto=reads,writes deny=deletes",
               env=env, stdin=REPLY)  # fmt: skip
    assert proc.returncode == 0
    assert (root / "b.txt").read_text() == "b" and (root / "a.txt").exists()
    assert "w2 auto-approved by rule 3: auto writes **" in proc.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rule", "alow fs.write **"], "--policy: rule 1: expected auto, ask or deny"),
        (["--rule", "auto fs.write ../up/**"], "'..' would leave the workspace"),
        (["--policy", "missing.rules"], "--policy: cannot read missing.rules"),
    ],
)
def test_bad_rules_are_usage_errors(
    root: Path, env: dict[str, str], args: list[str], message: str
) -> None:
    proc = cli("run", "--root", str(root), *args, env=env, stdin=REPLY)
    assert proc.returncode == 2 and message in proc.stderr
    assert "Traceback" not in proc.stderr and not (root / "notes").exists()


def test_a_rules_file_with_a_bad_line_names_it(
    root: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    rules = tmp_path / "team.rules"
    rules.write_text("deny fs.delete **\n\nauto fs.write notes/** extra\n")
    proc = cli("run", "--root", str(root), "--policy", str(rules), env=env, stdin=REPLY)
    assert proc.returncode == 2
    assert "team.rules line 3: too many words" in proc.stderr


def test_a_rules_file_inside_the_workspace_is_refused(root: Path, env: dict[str, str]) -> None:
    (root / "rules.txt").write_text("auto * **\n")
    proc = cli("run", "--root", str(root), "--policy", str(root / "rules.txt"), env=env,
               stdin=REPLY)  # fmt: skip
    assert proc.returncode == 2
    assert "rules.txt is inside the workspace" in proc.stderr
    assert (root / "a.txt").exists() and not (root / "notes").exists()
