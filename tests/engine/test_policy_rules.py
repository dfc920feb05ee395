"""Rules deciding in the engine: every dialect, what items and history say, rules files."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from operator_replies import block, reply, write_block

from jupyter_operator.engine import Operator, Policy, run_json
from jupyter_operator.engine.commands import CommandSession
from jupyter_operator.engine.policy import RulesFileInWorkspace
from jupyter_operator.protocol import OperatorError
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
