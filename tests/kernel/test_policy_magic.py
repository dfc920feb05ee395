"""``%operator policy``: show, set from lines, add, load a file, refuse one in the workspace;
and the rule on every notebook card."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from support.operator_replies import block, reply, write_block
from support.widget_front import Front

import jupyter_operator
from jupyter_operator.kernel.magics import last_view
from jupyter_operator.kernel.operators import session

RULES = "deny fs.delete **\nauto fs.write notes/**   # my notes\nask **/*.ipynb\n"


def test_set_from_lines_show_and_decide(ip: Any, workspace: Path, capsys: Any) -> None:
    ip.run_cell_magic("operator", "policy", RULES)
    shown = capsys.readouterr().out
    assert "1  deny fs.delete **\n  2  auto fs.write notes/**\n  3  ask **/*.ipynb" in shown
    assert "default: auto reads, ask for every change" in shown
    (workspace / "old.txt").write_text("old")
    ip.run_cell_magic("operator", f"--root {workspace}", reply(
        block("d1", "fs.delete", "old.txt"),
        write_block("w1", "notes/a.md", "A"),
        write_block("w2", "b.md", "B"),
    ))  # fmt: skip
    run = jupyter_operator.last_run()
    assert [i.status for i in run.items] == ["denied", "applied", "pending"]
    cards = Front(last_view())
    # Every card says which rule decided it, or why it asks.
    assert cards.card("d1")["rule_note"] == "denied by rule 1: deny fs.delete **"
    assert cards.card("w1")["rule_note"] == "auto-approved by rule 2: auto fs.write notes/**"
    assert cards.card("w2")["rule_note"] == "asked by default: ask"
    ip.run_line_magic("operator", "policy")
    assert "2  auto fs.write notes/**" in capsys.readouterr().out


def test_one_rule_add_and_clear(ip: Any, capsys: Any) -> None:
    ip.run_line_magic("operator", "policy ask **/*.ipynb")
    ip.run_line_magic("operator", 'policy add auto fs.write "my notes/**"')
    assert session().current_policy().texts == ("ask **/*.ipynb", "auto fs.write 'my notes/**'")
    assert "2  auto fs.write 'my notes/**'" in capsys.readouterr().out
    ip.run_line_magic("operator", "policy clear")
    assert session().current_policy().rules == ()


def test_parse_errors_are_one_line_with_line_numbers(ip: Any) -> None:
    with pytest.raises(UsageError, match=r"line 2: expected auto, ask or deny, got 'alow'"):
        ip.run_cell_magic("operator", "policy", "deny fs.delete **\nalow fs.write **\n")
    with pytest.raises(UsageError, match=r"'fs\.wirte' is not an action"):
        ip.run_line_magic("operator", "policy auto fs.wirte")
    assert session().current_policy().rules == ()  # nothing half-set


def test_load_a_rules_file(ip: Any, workspace: Path, tmp_path: Path, capsys: Any) -> None:
    rules = tmp_path / "team.rules"
    rules.write_text(RULES)
    ip.run_line_magic("operator", f"root {workspace}")
    ip.run_line_magic("operator", f"policy load {rules}")
    out = capsys.readouterr().out
    assert "3  ask **/*.ipynb" in out and "team.rules" in out
    with pytest.raises(UsageError, match="cannot read the rules file"):
        ip.run_line_magic("operator", f"policy load {tmp_path / 'missing.rules'}")


def test_a_rules_file_inside_the_workspace_is_refused(
    ip: Any, workspace: Path, capsys: Any
) -> None:
    (workspace / "rules.txt").write_text("auto * **\n")
    ip.run_line_magic("operator", f"root {workspace}")
    with pytest.raises(UsageError, match=r"rules\.txt is inside the workspace"):
        ip.run_line_magic("operator", f"policy load {workspace / 'rules.txt'}")
    assert session().current_policy().rules == ()


def test_a_root_that_holds_the_rules_file_is_refused_at_run(
    ip: Any, workspace: Path, tmp_path: Path
) -> None:
    rules = workspace / "sub" / "rules.txt"
    rules.parent.mkdir()
    rules.write_text("auto * **\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ip.run_line_magic("operator", f"root {elsewhere}")
    ip.run_line_magic("operator", f"policy load {rules}")  # outside this root: fine
    with pytest.raises(UsageError, match=r"rules\.txt is inside the workspace"):
        ip.run_cell_magic("operator", f"--root {workspace}", reply(write_block("w1", "a", "x")))
    assert not (workspace / "a").exists()
