"""A rule applies to every path an action touches, not only to the one it names.

Before: ``deny reads secrets/**`` was bypassed by ``fs.searchTree path: .`` (the secret came
back as a match), a folder delete auto-applied by ``auto fs.delete tmp/**`` took a child that
``deny fs.delete tmp/keep/**`` protects, and a registered action's path flag read a denied file.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cell_notebooks import code, notebook
from support.cell_runs import cmd
from support.replies import block

from jupyter_operator.engine import Operator, Policy
from jupyter_operator.engine.commands import CommandSession
from jupyter_operator.protocol import codes

SECRET = "db_password=hunter2"


@pytest.fixture
def files(root: Path) -> Path:
    (root / "secrets").mkdir()
    (root / "secrets" / "key.txt").write_text(SECRET + "\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("password = read_from_vault()\n")
    (root / "tmp" / "keep").mkdir(parents=True)
    (root / "tmp" / "keep" / "important.txt").write_text("keep me\n")
    (root / "tmp" / "scratch.txt").write_text("scratch\n")
    return root


def operator(root: Path, tmp_path: Path, rules: str) -> Operator:
    return Operator(root, journal_dir=tmp_path / "journal", policy=Policy.parse(rules))


def test_a_search_skips_what_a_read_rule_denies(files: Path, tmp_path: Path) -> None:
    op = operator(files, tmp_path, "deny reads secrets/**")
    [item] = op.run(block("s1", "fs.searchTree", path=".", query="password")).items
    assert item.status == "done"
    assert "hunter2" not in item.result.details and "secrets/key.txt" not in item.result.details
    assert "src/app.py:1: password = read_from_vault()" in item.result.details
    assert "(hidden by the workspace's rules: 1)" in item.result.details
    # A rule on fs.read alone keeps the file out of a search too: a search reads every file.
    op = operator(files, tmp_path, "deny fs.read secrets/**")
    [item] = op.run(block("s2", "fs.searchTree", path=".", query="db_password")).items
    assert "hunter2" not in item.result.details and "# matches: 0" in item.result.details


def test_a_listing_hides_what_a_rule_denies(files: Path, tmp_path: Path) -> None:
    op = operator(files, tmp_path, "deny reads secrets/key.txt")
    [item] = op.run(block("l1", "fs.list", path="secrets")).items
    assert item.result.details == ""
    assert item.summary == "Listed 0 entries (1 hidden by the workspace's rules)"


def test_a_denied_child_keeps_its_folder(files: Path, tmp_path: Path) -> None:
    op = operator(files, tmp_path, "deny fs.delete tmp/keep/**\nauto fs.delete tmp/**")
    [item] = op.run(block("d1", "fs.delete", path="tmp")).items
    assert item.status == "denied" and item.error_code == codes.ERR_POLICY_DENIED
    assert "rule 1: deny fs.delete tmp/keep/**, for tmp/keep" in item.summary
    assert (files / "tmp" / "keep" / "important.txt").read_text() == "keep me\n"


def test_a_child_that_asks_makes_the_folder_delete_ask(files: Path, tmp_path: Path) -> None:
    op = operator(files, tmp_path, "ask fs.delete tmp/keep/**\nauto fs.delete tmp/**")
    [item] = op.run(block("d2", "fs.delete", path="tmp")).items
    assert item.status == "pending" and item.needs_approval
    assert item.rule.startswith("rule 1: ask fs.delete tmp/keep/**, for tmp/keep")
    assert (files / "tmp" / "scratch.txt").exists()


def test_a_folder_with_only_allowed_children_still_deletes(files: Path, tmp_path: Path) -> None:
    op = operator(files, tmp_path, "deny fs.delete src/**\nauto fs.delete tmp/**")
    [item] = op.run(block("d3", "fs.delete", path="tmp")).items
    assert item.status == "applied"
    assert not (files / "tmp").exists()


def test_a_registered_action_path_flag_follows_the_read_rules(files: Path, tmp_path: Path) -> None:
    op = operator(files, tmp_path, "deny reads secrets/**")
    session = CommandSession(op)
    session.register_action("grade", lambda file: session.read_text(file),
                            schema={"file": {"type": "path", "required": True}})  # fmt: skip
    assert session.command("/open secrets/key.txt").body.startswith("ERROR(DENIED)")
    reply = session.command("/act.grade --file secrets/key.txt")
    assert reply.body.startswith("ERROR(DENIED)") and "hunter2" not in reply.body
    assert "password" in session.command("/act.grade --file src/app.py").body


def test_string_command_listing_hides_denied_entries(files: Path, tmp_path: Path) -> None:
    op = operator(files, tmp_path, "deny reads secrets/key.txt")
    body = CommandSession(op).command("/ls secrets").body
    assert "key.txt" not in body


@pytest.mark.parametrize("deny", ["deny reads secrets/**", "deny fs.delete tmp/keep/**"])
def test_a_run_touches_every_path_its_code_can_reach(files: Path, tmp_path: Path,
                                                     deny: str) -> None:  # fmt: skip
    """A cell can read or delete any file of the workspace: while a rule denies one, a run
    that a rule would approve asks, however narrowly the approval names the notebook."""
    cell = "import shutil\nprint(open('secrets/key.txt').read())\nshutil.rmtree('tmp')"
    (files / "scratch").mkdir()
    (files / "scratch" / "s.ipynb").write_text(notebook(code(cell, id="c1")))
    rules = Policy.parse(f"{deny}\nauto nb.runCell scratch/s.ipynb")
    with Operator(files, extensions=("nb",), journal_dir=tmp_path / "j", policy=rules) as op:
        [item] = op.run(cmd("r1", "nb.runCell", notebook="scratch/s.ipynb", cell_id="c1")).items
        assert (item.status, item.decided_by) == ("pending", None)
        assert item.rule == (f"rule 2: auto nb.runCell scratch/s.ipynb, but rule 1: {deny} "
                             "binds files, not code that runs")  # fmt: skip
        assert item.result is None and not op.executions()
    assert (files / "tmp" / "keep" / "important.txt").exists()
