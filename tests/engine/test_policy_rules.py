"""Rules deciding in the engine: every dialect, what items and history say, rules files."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from support.cell_notebooks import code, notebook
from support.cell_runs import cmd
from support.operator_replies import block, reply, write_block

from jupyter_operator.engine import Operator, Policy, ShellPolicy, run_json
from jupyter_operator.engine.commands import CommandSession
from jupyter_operator.engine.policy import RulesFileInWorkspace
from jupyter_operator.protocol import OperatorError
from jupyter_operator.shell import sandbox
from jupyter_operator.workspace import Workspace

NOTEBOOK = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n'
RULES = Policy(["deny fs.delete **", "auto fs.write notes/**", "ask **/*.ipynb"])


def test_items_say_which_rule_decided(root: Path, make_operator: Callable[..., Operator]) -> None:
    (root / "old.txt").write_text("old\n")
    op = make_operator(policy=RULES)
    run = op.run(reply(
        block("d1", "fs.delete", "old.txt"),
        write_block("w1", "notes/a.md", "A\n"),
        write_block("w2", "b.txt", "B\n"),
        block("r1", "fs.read", "old.txt"),
    ))  # fmt: skip
    d1, w1, w2, r1 = run.items
    assert (d1.status, d1.decided_by, d1.rule) == ("denied", "rule", "rule 1: deny fs.delete **")
    assert "(rule 1: deny fs.delete **)" in d1.result.summary  # the model is told which rule
    assert (root / "old.txt").exists()
    assert (w1.status, w1.decided_by, w1.rule) == (
        "applied", "rule", "rule 2: auto fs.write notes/**",
    )  # fmt: skip
    assert (root / "notes" / "a.md").read_text() == "A\n"
    assert (w2.status, w2.decided_by, w2.rule) == ("pending", None, "default: ask")
    assert w2.to_dict()["rule_note"] == "asked by default: ask"
    assert (r1.decided_by, r1.rule) == ("rule", "default: auto reads")
    assert w1.to_dict()["rule_note"] == "auto-approved by rule 2: auto fs.write notes/**"
    # The history keeps the rule with the change.
    (entry,) = op.history()
    assert (entry.path, entry.decided_by, entry.rule) == (
        "notes/a.md", "rule", "rule 2: auto fs.write notes/**",
    )  # fmt: skip
    run.approve("w2")
    assert (w2.decided_by, w2.rule) == ("person", None)


def test_a_rule_can_make_a_change_ask(root: Path, make_operator: Callable[..., Operator]) -> None:
    op = make_operator(policy=Policy(["ask **/*.ipynb", "auto writes"]))
    run = op.run(reply(write_block("w1", "a.txt", "a"), write_block("w2", "n/x.ipynb", NOTEBOOK)))
    assert [(i.status, i.rule) for i in run.items] == [
        ("applied", "rule 2: auto writes"), ("pending", "rule 1: ask **/*.ipynb"),
    ]  # fmt: skip


def test_a_read_of_a_path_outside_is_refused_not_asked(
    root: Path, make_operator: Callable[..., Operator]
) -> None:
    op = make_operator(policy=Policy(["auto * **"]))
    run = op.run(reply(block("r1", "fs.read", "../secret.txt"), write_block("w1", "../x", "x")))
    assert [(i.status, i.error_code) for i in run.items] == [
        ("failed", "ERR_PATH_ESCAPE"), ("failed", "ERR_PATH_ESCAPE"),
    ]  # fmt: skip
    assert all(i.decided_by is None for i in run.items)
    assert not (root.parent / "x").exists()


def test_json_operations_follow_the_same_rules(
    root: Path, make_operator: Callable[..., Operator]
) -> None:
    (root / "keep.txt").write_text("keep\n")
    op = make_operator(policy=RULES)
    ops = [
        {"type": "createFile", "path": "notes/j.md", "content": "J\n"},
        {"type": "deleteFile", "path": "keep.txt"},
        {"type": "createFile", "path": "other.txt", "content": "O\n"},
    ]
    run = run_json(op, json.dumps({"operations": ops}))
    first, second, third = run.items
    assert (first.status, first.rule) == ("applied", "rule 2: auto fs.write notes/**")
    assert (second.status, second.rule) == ("denied", "rule 1: deny fs.delete **")
    assert second.event["type"] == "policyDenied"
    assert (third.status, third.rule) == ("pending", "default: ask")
    assert (root / "notes" / "j.md").read_text() == "J\n" and (root / "keep.txt").exists()
    assert first.to_dict()["rule_note"] == "auto-approved by rule 2: auto fs.write notes/**"


def test_string_commands_follow_the_same_rules(
    root: Path, make_operator: Callable[..., Operator]
) -> None:
    op = make_operator(policy=Policy(["deny fs.write private/**", "auto fs.write notes/**"]))
    session = CommandSession(op)
    script = "/write notes/c.md\nC\n/end\n/write private/p.md\nP\n/end\n/write o.md\nO\n/end"
    batch = session.execute(script)
    done, denied, waiting = batch.replies
    assert done.status == "done" and (root / "notes" / "c.md").read_text() == "C\n"
    assert "rule 1: deny fs.write private/**" in denied.body
    assert waiting.status == "pending" and waiting.run.items[0].rule == "default: ask"
    (entry,) = op.history()
    assert (entry.decided_by, entry.rule) == ("rule", "rule 2: auto fs.write notes/**")


def test_string_command_reads_are_refused_by_path(
    root: Path, make_operator: Callable[..., Operator]
) -> None:
    (root / "secrets").mkdir()
    (root / "secrets" / "key.md").write_text("k\n")
    (root / "open.md").write_text("o\n")
    session = CommandSession(make_operator(policy=Policy(["deny reads secrets/**"])))
    script = "/open open.md\n/open secrets/key.md\n/ls secrets"
    opened, refused, listed = session.execute(script).replies
    assert opened.status == "done"
    assert refused.body == ("ERROR(DENIED): fs.read secrets/key.md is not allowed in this "
                            "workspace (rule 1: deny reads secrets/**).")  # fmt: skip
    assert listed.body.startswith("ERROR(DENIED): fs.list secrets is not allowed")


def test_a_rules_file_inside_the_workspace_is_refused(
    root: Path, tmp_path: Path, make_operator: Callable[..., Operator]
) -> None:
    (root / "rules.txt").write_text("auto * **\n")
    inside = Policy.load(root / "rules.txt")
    with pytest.raises(RulesFileInWorkspace, match="inside the workspace"):
        make_operator(policy=inside)
    op = make_operator()
    with pytest.raises(RulesFileInWorkspace):
        op.policy = inside
    assert op.policy.rules == ()  # unchanged


def test_the_jail_refuses_changes_to_the_active_rules_file(tmp_path: Path) -> None:
    # Defence in depth: even a rules file the workspace can reach is never changed through it.
    ws_root = tmp_path / "wide"
    ws_root.mkdir()
    rules = ws_root / "rules.txt"
    rules.write_text("deny fs.delete **\n")
    with Workspace(ws_root, journal_dir=tmp_path / "journal") as ws:
        before = ws.snapshot("rules.txt", limit=1000)
        ws.reserve(rules)
        with pytest.raises(OperatorError, match="rules file") as info:
            ws.write("rules.txt", b"auto * **\n", expect=before)
        assert info.value.code == "ERR_PROTECTED_PATH"
        with pytest.raises(OperatorError, match="rules file"):
            ws.move_out("rules.txt", tmp_path, expect=before)
    assert rules.read_text() == "deny fs.delete **\n"


def test_an_operator_reserves_its_rules_file(tmp_path: Path) -> None:
    # A rules file outside the root, reached by a link inside it, stays untouchable.
    outside = tmp_path / "rules.txt"
    outside.write_text("deny fs.delete **\n")
    root = tmp_path / "ws"
    root.mkdir()
    with Operator(root, journal_dir=tmp_path / "journal", policy=Policy.load(outside)) as op:
        real = op.workspace._jail.reserved
        info = outside.stat()
        assert (info.st_dev, info.st_ino) in real


# -- code runs only under a rule that names runs -------------------------------------------------
DELETES_SRC = notebook(code("import shutil\nshutil.rmtree('src')", id="c1"))


def _src(root: Path) -> Path:
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("app\n")
    return root / "src" / "app.py"


@pytest.mark.parametrize(
    "rules",
    ["auto notes/**", "auto **/*.ipynb", "auto notes/*", "auto **", "auto * notes/**", "auto *",
     "auto all notes/**\ndeny writes src/**\ndeny fs.delete **",
     "deny writes src/**\ndeny fs.delete **\nauto notes/**"],
)  # fmt: skip
def test_a_reply_cannot_write_a_notebook_and_run_it_under_a_path_rule(
    root: Path, make_operator: Callable[..., Operator], rules: str
) -> None:
    """The notebook is written without asking (the rule says so for files); its cell, which
    would delete src/ past every file rule, waits for a person."""
    app = _src(root)
    with make_operator(policy=Policy.parse(rules), extensions=("nb",)) as op:
        run = op.run(reply(
            write_block("w1", "notes/x.ipynb", DELETES_SRC),
            cmd("r1", "nb.runCell", notebook="notes/x.ipynb", cell_id="c1"),
            cmd("k1", "nb.restartKernel", notebook="notes/x.ipynb"),
            cmd("b1", "nb.rebuildState", notebook="notes/x.ipynb"),
        ))  # fmt: skip
        w1, *runs = run.items
        assert (w1.status, w1.decided_by) == ("applied", "rule")
        for item in runs:
            assert (item.kind, item.status, item.decided_by) == ("run", "pending", None)
            assert item.rule is not None and not item.rule.startswith("rule 1: auto notes")
        assert app.exists() and not op.executions()


def test_a_deny_on_files_holds_back_a_run_a_rule_names(
    root: Path, make_operator: Callable[..., Operator]
) -> None:
    app = _src(root)
    (root / "notes").mkdir()
    (root / "notes" / "x.ipynb").write_text(DELETES_SRC)
    rules = Policy.parse("deny writes src/**\ndeny fs.delete **\nauto runs notes/**")
    with make_operator(policy=rules, extensions=("nb",)) as op:
        [item] = op.run(cmd("r1", "nb.runCell", notebook="notes/x.ipynb", cell_id="c1")).items
        assert (item.status, item.decided_by) == ("pending", None)
        assert item.rule == ("rule 3: auto runs notes/**, but rule 1: deny writes src/** binds "
                             "files, not code that runs")  # fmt: skip
        assert item.to_dict()["rule_note"].startswith("asked by rule 3: auto runs notes/**, but")
        assert app.exists()


def test_a_rule_naming_runs_runs_them(root: Path, make_operator: Callable[..., Operator]) -> None:
    (root / "notes").mkdir()
    (root / "notes" / "x.ipynb").write_text(notebook(code("print('ran')", id="c1")))
    rules = Policy.parse("auto notes/**\nauto nb.runCell notes/**")
    with make_operator(policy=rules, extensions=("nb",)) as op:
        [item] = op.run(cmd("r1", "nb.runCell", notebook="notes/x.ipynb", cell_id="c1")).items
        assert (item.status, item.decided_by, item.rule) == (
            "done", "rule", "rule 2: auto nb.runCell notes/**",
        )  # fmt: skip


@pytest.mark.skipif(not sandbox.available(), reason="an allowed command runs only in the "
                    "bubblewrap sandbox, which is missing or cannot create namespaces here")
@pytest.mark.parametrize("deny", ["deny fs.delete **", "deny writes src/**", "deny reads .env"])
def test_a_deny_on_files_makes_an_allowed_shell_command_ask(
    root: Path, make_operator: Callable[..., Operator], deny: str
) -> None:
    """A command is bound by no file rule either: the shell policy's allow asks instead."""
    op = make_operator(policy=Policy.parse(deny))
    op.shell_policy = ShellPolicy(allow=("touch",))
    run = run_json(op, json.dumps({"type": "shell", "command": "touch ran"}))
    [item] = run.items
    assert (item.status, item.decided_by) == ("pending", None)
    assert item.rule == f"shell allow: touch, but rule 1: {deny} binds files, not code that runs"
    assert not (root / "ran").exists()
    batch = CommandSession(op).execute("touch ran")  # a bash line of string commands
    assert batch.pending is not None and batch.pending.run.items[0].rule == item.rule
    # Without the deny rule the same allow runs it.
    op.policy = Policy()
    assert run_json(op, json.dumps({"type": "shell", "command": "touch ran"})).done
    assert (root / "ran").exists()
