"""The server's rules: ``policy_rules`` and ``policy_file`` traitlets, the rule on every item
and history entry, and a rules file inside a workspace refused at start."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from server_helpers import Api, write_cmd
from traitlets import TraitError

from jupyter_operator.server.app import OperatorExtension


@pytest.fixture
def operator_config(tmp_path: Path) -> dict[str, Any]:
    rules = tmp_path / "team.rules"  # beside the served root, not inside it
    rules.write_text("# refuse deletes everywhere\ndeny fs.delete **\n")
    return {"policy_file": str(rules), "policy_rules": ["auto fs.write notes/**"]}


async def test_rules_decide_and_every_item_says_which(api: Api, root: Path) -> None:
    (root / "old.txt").write_text("old\n")
    reply = write_cmd("w1", "notes/a.md", "A\n") + write_cmd("w2", "b.txt", "B\n")
    reply += "OPERATOR_CMD\nversion: 1\nid: d\naction: fs.delete\npath: old.txt\nEND_OPERATOR_CMD\n"
    status, body = await api("scan", body={"text": reply})
    assert status == 200
    notes = {i["id"]: (i["status"], i["rule"], i["rule_note"]) for i in body["items"]}
    assert notes == {
        "w1": ("applied", "rule 2: auto fs.write notes/**",
               "auto-approved by rule 2: auto fs.write notes/**"),
        "w2": ("pending", "default: ask", "asked by default: ask"),
        "d": ("denied", "rule 1: deny fs.delete **", "denied by rule 1: deny fs.delete **"),
    }  # fmt: skip
    assert (root / "notes" / "a.md").read_text() == "A\n" and (root / "old.txt").exists()
    status, history = await api("history")
    (entry,) = history["history"]
    assert (entry["decided_by"], entry["rule"]) == ("rule", "rule 2: auto fs.write notes/**")


def extension(**config: Any) -> OperatorExtension:
    ext = OperatorExtension(**config)
    ext.serverapp = SimpleNamespace(root_dir=config["workspaces"]["main"])  # type: ignore[assignment]
    return ext


def test_a_rules_file_inside_a_workspace_stops_the_server(tmp_path: Path) -> None:
    main, other = tmp_path / "main", tmp_path / "other"
    (main / "cfg").mkdir(parents=True)
    other.mkdir()
    (main / "cfg" / "rules.txt").write_text("auto * **\n")
    ext = extension(workspaces={"main": str(main), "other": str(other)},
                    policy_file=str(main / "cfg" / "rules.txt"), journal_dir=str(tmp_path / "j"))
    with pytest.raises(TraitError, match=r"rules file rules\.txt is inside the workspace"):
        ext.initialize_settings()


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"policy_rules": ["deny fs.delete **", "auto fs.wirte x/**"]},
         r"rule 2: unknown action or group 'fs\.wirte'"),
        ({"policy_file": "no-such.rules"}, "cannot read policy_file"),
        ({"policy": "auto=reads\nalow x"}, "expected auto=... or deny=|unknown action"),
    ],
)  # fmt: skip
def test_bad_rules_stop_the_server_with_one_line(
    tmp_path: Path, config: dict[str, Any], message: str
) -> None:
    ext = extension(workspaces={"main": str(tmp_path)}, journal_dir=str(tmp_path / "j"),
                    **config)  # fmt: skip
    with pytest.raises(TraitError, match=message):
        ext.initialize_settings()
