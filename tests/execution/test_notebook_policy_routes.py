"""A notebook's own policy holds on every route that reads, changes or deletes the notebook.

The policy is a property of the file, held by the workspace on every read and change
(``workspace/notebook_guard.py``), so it is the same whichever dialect or front asks:
OPERATOR_CMD blocks, JSON operations, string commands, a folder delete, the server's file
API. Under rules that would approve everything, a change of ``metadata.jupyter_operator`` is
still refused before anyone is asked, and a notebook set to ``off`` is neither read nor written.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.cell_notebooks import code, notebook
from support.cell_runs import b64, cmd, details

from jupyter_operator.engine import Operator, Policy, run_json
from jupyter_operator.engine.commands import CommandSession
from jupyter_operator.shell import sandbox_available

#: Rules that would approve every read, change and delete without asking.
EVERYTHING = "auto reads **\nauto writes **\nauto fs.delete **"


def with_policy(text: str, level: str | None) -> str:
    """``text`` (a notebook) with ``metadata.jupyter_operator.policy`` set (None: removed)."""
    doc = json.loads(text)
    if level is None:
        doc["metadata"].pop("jupyter_operator", None)
    else:
        doc["metadata"]["jupyter_operator"] = {"policy": level}
    return json.dumps(doc, indent=1) + "\n"


def set_policy(path: Path, level: str) -> bytes:
    path.write_text(with_policy(path.read_text(), level))
    return path.read_bytes()


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}  # fmt: skip


@pytest.fixture
def auto_op(ws: Path, tmp_path: Path) -> Iterator[Operator]:
    """A session whose rules approve every read, change and delete."""
    operator = Operator(ws, extensions=("nb",), journal_dir=tmp_path / "journal",
                        policy=Policy.parse(EVERYTHING))  # fmt: skip
    try:
        yield operator
    finally:
        operator.close()


def ops(*items: dict) -> str:
    return json.dumps({"operations": list(items)})


def edit_op(old: str, new: str) -> dict:
    """A JSON ``editFile`` of ``nb.ipynb``."""
    return {"type": "editFile", "path": "nb.ipynb", "edits": [{"oldContent": old,
                                                               "newContent": new}]}  # fmt: skip


# --- OPERATOR_CMD -------------------------------------------------------------------------


def test_operator_write_that_sets_auto_run_is_refused_under_auto_rules(
    auto_op: Operator, ws: Path
) -> None:
    before = set_policy(ws / "nb.ipynb", "no-run")
    lifted = with_policy(before.decode(), "auto-run")
    run = auto_op.run(cmd("w1", "fs.write", notebook=None, path="./nb.ipynb",
                          content_b64=b64(lifted)))  # fmt: skip
    item = run.items[0]
    assert item.status == "denied" and item.error_code == "ERR_NOTEBOOK_POLICY"
    assert "only its author sets it" in item.summary
    assert (ws / "nb.ipynb").read_bytes() == before


@pytest.mark.parametrize("action, fields", [
    ("fs.read", {}),
    ("fs.readSlice", {}),
    ("fs.search", {"query": "print"}),
    ("fs.searchTree", {"query": "print"}),
    ("fs.listRegions", {"comment_line_prefix": "#"}),
])  # fmt: skip
def test_operator_reads_of_an_off_notebook_are_refused(auto_op: Operator, ws: Path, action: str,
                                                       fields: dict[str, str]) -> None:  # fmt: skip
    set_policy(ws / "nb.ipynb", "off")
    run = auto_op.run(cmd("r1", action, notebook=None, path="nb.ipynb", **fields))
    item = run.items[0]
    assert item.error_code == "ERR_NOTEBOOK_POLICY", item.summary
    assert "turned jupyter-operator off" in item.summary
    assert "print" not in (item.result.details or "")


def test_a_tree_search_skips_an_off_notebook_and_counts_it_hidden(
    auto_op: Operator, ws: Path
) -> None:
    set_policy(ws / "nb.ipynb", "off")
    (ws / "other.ipynb").write_text(notebook(code("print('visible')", id="v1")))
    run = auto_op.run(cmd("s1", "fs.searchTree", notebook=None, path=".", query="print"))
    details = run.items[0].result.details or ""
    assert "other.ipynb" in details and "nb.ipynb" not in details.replace("other.ipynb", "")
    assert "hidden" in details


def test_operator_delete_of_a_notebook_carrying_a_policy_is_refused(
    auto_op: Operator, ws: Path
) -> None:
    before = set_policy(ws / "nb.ipynb", "no-run")
    run = auto_op.run(cmd("d1", "fs.delete", notebook=None, path="nb.ipynb"))
    assert run.items[0].error_code == "ERR_NOTEBOOK_POLICY"
    assert (ws / "nb.ipynb").read_bytes() == before


def test_folder_delete_then_rewrite_cannot_lift_the_policy(auto_op: Operator, ws: Path) -> None:
    """Deleting the notebook's folder would remove its policy; writing it back with another
    one would set it: both are refused, under rules that approve both."""
    (ws / "notes").mkdir()
    (ws / "notes" / "a.md").write_text("keep\n")
    (ws / "nb.ipynb").rename(ws / "notes" / "n.ipynb")
    set_policy(ws / "notes" / "n.ipynb", "no-run")
    lifted = with_policy((ws / "notes" / "n.ipynb").read_text(), "auto-run")
    before = tree(ws)
    run = auto_op.run(cmd("d1", "fs.delete", notebook=None, path="notes") +
                      cmd("w1", "fs.write", notebook=None, path="notes/n.ipynb",
                          content_b64=b64(lifted)))  # fmt: skip
    delete, write = run.items
    assert delete.error_code == "ERR_NOTEBOOK_POLICY" and delete.status == "denied"
    assert "notes/n.ipynb" in delete.summary
    assert write.error_code == "ERR_NOTEBOOK_POLICY" and write.decided_by != "rule"
    assert tree(ws) == before


def test_a_folder_delete_still_moves_notebooks_without_a_policy(
    auto_op: Operator, ws: Path
) -> None:
    (ws / "old").mkdir()
    (ws / "nb.ipynb").rename(ws / "old" / "plain.ipynb")
    run = auto_op.run(cmd("d1", "fs.delete", notebook=None, path="old"))
    assert run.items[0].status == "applied" and not (ws / "old").exists()


def test_a_dry_run_notebook_is_never_written_even_when_a_person_approves(
    op: Operator, ws: Path
) -> None:
    before = set_policy(ws / "nb.ipynb", "dry-run")
    run = op.run(cmd("e1", "nb.replaceCell", cell_id="c2", content="print(1)"))
    run.approve("e1")
    assert run.items[0].error_code == "ERR_NOTEBOOK_POLICY"
    assert (ws / "nb.ipynb").read_bytes() == before


def test_a_leaked_tool_call_cannot_set_auto_run_nor_read_an_off_notebook(
    auto_op: Operator, ws: Path
) -> None:
    """A tool call in the model's own format is translated to the block it meant, and that
    block meets the notebook's policy like any other (nothing waits for a person)."""
    before = set_policy(ws / "nb.ipynb", "no-run")
    lifted = with_policy(before.decode(), "auto-run")
    call = {"name": "write_file", "arguments": {"path": "nb.ipynb", "content": lifted}}
    run = auto_op.run(f"<tool_call>{json.dumps(call)}</tool_call>")
    (item,) = run.items
    assert item.foreign is not None and item.error_code == "ERR_NOTEBOOK_POLICY"
    assert not run.pending and (ws / "nb.ipynb").read_bytes() == before
    set_policy(ws / "nb.ipynb", "off")
    call = {"name": "read_file", "arguments": {"path": "nb.ipynb"}}
    run = auto_op.run(f"<tool_call>{json.dumps(call)}</tool_call>")
    run.approve(run.items[0].id)  # a translated read waits for a person, who approves it
    assert run.items[0].error_code == "ERR_NOTEBOOK_POLICY"
    assert "x = 41" not in (run.items[0].result.details or "")


# --- JSON operations ----------------------------------------------------------------------


def test_json_create_file_with_overwrite_cannot_set_auto_run(auto_op: Operator, ws: Path) -> None:
    before = set_policy(ws / "nb.ipynb", "no-run")
    lifted = with_policy(before.decode(), "auto-run")
    run = run_json(auto_op, ops({"type": "createFile", "path": "nb.ipynb", "content": lifted,
                                 "overwrite": True}))  # fmt: skip
    event = run.events[-1]
    assert event["success"] is False and event["code"] == "ERR_NOTEBOOK_POLICY"
    assert run.items[0].decided_by != "rule" and not run.pending
    assert (ws / "nb.ipynb").read_bytes() == before


def test_json_create_file_cannot_make_a_new_notebook_carrying_a_policy(
    auto_op: Operator, ws: Path
) -> None:
    lifted = with_policy((ws / "nb.ipynb").read_text(), "auto-run")
    run = run_json(auto_op, ops({"type": "createFile", "path": "new.ipynb", "content": lifted}))
    assert run.events[-1]["code"] == "ERR_NOTEBOOK_POLICY"
    assert not (ws / "new.ipynb").exists()


@pytest.mark.parametrize("new", ['"auto-run"', None])
def test_json_edit_file_cannot_change_or_remove_the_policy(auto_op: Operator, ws: Path,
                                                           new: str | None) -> None:  # fmt: skip
    before = set_policy(ws / "nb.ipynb", "no-run")
    text = before.decode()
    old = '"jupyter_operator": {\n   "policy": "no-run"\n  }'
    assert old in text
    replacement = f'"jupyter_operator": {{"policy": {new}}}' if new else '"x": {}'
    run = run_json(auto_op, ops(edit_op(old, replacement)))
    assert run.events[-1]["code"] == "ERR_NOTEBOOK_POLICY", run.events[-1]
    assert not run.pending
    assert (ws / "nb.ipynb").read_bytes() == before


def test_json_delete_file_of_a_notebook_carrying_a_policy_is_refused(
    auto_op: Operator, ws: Path
) -> None:
    before = set_policy(ws / "nb.ipynb", "run")
    run = run_json(auto_op, ops({"type": "deleteFile", "path": "nb.ipynb"}))
    assert run.events[-1]["code"] == "ERR_NOTEBOOK_POLICY"
    assert (ws / "nb.ipynb").read_bytes() == before


def test_json_read_file_of_an_off_notebook_is_refused(auto_op: Operator, ws: Path) -> None:
    set_policy(ws / "nb.ipynb", "off")
    run = run_json(auto_op, ops({"type": "readFile", "path": "nb.ipynb"}))
    event = run.events[-1]
    assert event["success"] is False and event["code"] == "ERR_NOTEBOOK_POLICY"
    assert "content" not in event


def test_json_edit_of_an_off_notebook_is_refused(auto_op: Operator, ws: Path) -> None:
    before = set_policy(ws / "nb.ipynb", "off")
    run = run_json(auto_op, ops(edit_op("x = 41", "x = 1")))
    assert run.events[-1]["code"] == "ERR_NOTEBOOK_POLICY"
    assert (ws / "nb.ipynb").read_bytes() == before


def test_json_edit_of_a_dry_run_notebook_is_previewed_never_applied(
    op: Operator, ws: Path
) -> None:
    before = set_policy(ws / "nb.ipynb", "dry-run")
    run = run_json(op, ops(edit_op("x = 41", "x = 1")))
    assert [item.id for item in run.pending] == ["editFile-1"]
    run.approve("editFile-1")
    assert run.events[-1]["code"] == "ERR_NOTEBOOK_POLICY"
    assert (ws / "nb.ipynb").read_bytes() == before


# --- string commands ----------------------------------------------------------------------


@pytest.fixture
def commands(auto_op: Operator) -> CommandSession:
    return CommandSession(auto_op, tag="qm")


def test_write_command_cannot_set_auto_run(commands: CommandSession, ws: Path) -> None:
    before = set_policy(ws / "nb.ipynb", "no-run")
    lifted = with_policy(before.decode(), "auto-run")
    reply = commands.command(f"/write nb.ipynb <<EOF\n{lifted}EOF")
    assert reply.status == "error" and reply.body.startswith("ERROR(NOTEBOOK_POLICY)"), reply.body
    assert (ws / "nb.ipynb").read_bytes() == before


def test_edit_command_cannot_remove_the_policy(commands: CommandSession, ws: Path) -> None:
    before = set_policy(ws / "nb.ipynb", "no-run")
    removed = with_policy(before.decode(), None)
    reply = commands.command(f"/edit nb.ipynb <<EOF\n{removed}EOF")
    assert reply.status == "error" and reply.body.startswith("ERROR(NOTEBOOK_POLICY)"), reply.body
    assert (ws / "nb.ipynb").read_bytes() == before


def test_open_command_of_an_off_notebook_is_refused(commands: CommandSession, ws: Path) -> None:
    set_policy(ws / "nb.ipynb", "off")
    reply = commands.command("/open nb.ipynb")
    assert reply.status == "error" and reply.body.startswith("ERROR(NOTEBOOK_POLICY)"), reply.body
    assert "x = 41" not in reply.text


def test_write_command_of_an_off_notebook_is_refused(commands: CommandSession, ws: Path) -> None:
    before = set_policy(ws / "nb.ipynb", "off")
    reply = commands.command(f"/write nb.ipynb <<EOF\n{before.decode()}EOF")
    assert reply.status == "error" and reply.body.startswith("ERROR(NOTEBOOK_POLICY)"), reply.body
    assert (ws / "nb.ipynb").read_bytes() == before


# --- the person's own actions -------------------------------------------------------------


def test_the_file_api_write_cannot_change_the_policy(op: Operator, ws: Path) -> None:
    """``Operator.write_file`` is the server file API's one write path."""
    from jupyter_operator.protocol import OperatorError

    before = set_policy(ws / "nb.ipynb", "no-run")
    with pytest.raises(OperatorError) as caught:
        op.write_file("nb.ipynb", with_policy(before.decode(), "auto-run").encode())
    assert caught.value.code == "ERR_NOTEBOOK_POLICY"
    assert (ws / "nb.ipynb").read_bytes() == before


# --- shell commands -----------------------------------------------------------------------


@pytest.mark.skipif(not sandbox_available(),
                    reason="bubblewrap is missing or cannot create namespaces here")  # fmt: skip
def test_a_shell_command_can_neither_lift_a_policy_nor_read_an_off_notebook(
    op: Operator, ws: Path
) -> None:
    """An approved shell command runs in the sandbox, where a notebook carrying its own policy
    is read-only (no edit, delete, or move onto it) and one set to off is hidden."""
    before = set_policy(ws / "nb.ipynb", "no-run")
    (ws / "off.ipynb").write_text(with_policy(notebook(code("secret = 7", id="s1")), "off"))
    hidden = (ws / "off.ipynb").read_bytes()
    (ws / "lifted.ipynb").write_text(with_policy(before.decode(), None))
    script = ("sed -i s/no-run/auto-run/ nb.ipynb; rm -f nb.ipynb; mv lifted.ipynb nb.ipynb; "
              "cat off.ipynb; echo '{}' > off.ipynb; echo done")  # fmt: skip
    run = run_json(op, json.dumps({"type": "shell", "command": script}))
    run.approve(run.items[0].id)  # the person approves the command itself
    event = run.events[-1]
    assert "done" in event["stdout"] and "secret" not in event["stdout"], event
    assert (ws / "nb.ipynb").read_bytes() == before
    assert (ws / "off.ipynb").read_bytes() == hidden


@pytest.mark.skipif(not sandbox_available(),
                    reason="bubblewrap is missing or cannot create namespaces here")  # fmt: skip
def test_a_policy_a_shell_command_adds_is_set_aside_for_the_person(
    op: Operator, ws: Path
) -> None:
    """The sandbox cannot stop a command from writing a new notebook, or adding a policy to a
    notebook that had none; seen after the command, such a notebook is moved to the trash,
    journaled (the person can undo it, a model's /undo cannot write it back), and the command's
    output says so."""
    plain = (ws / "nb.ipynb").read_text()
    script = ("printf '%s' \"$NB\" > new.ipynb; printf '%s' \"$NB\" > nb.ipynb; mkdir sub; "
              "printf '%s' \"$NB\" > sub/deep.ipynb; echo done")  # fmt: skip
    run = run_json(op, json.dumps({"type": "shell", "command": script,
                                   "env": {"NB": with_policy(plain, "auto-run")}}))  # fmt: skip
    run.approve(run.items[0].id)
    event = run.events[-1]
    assert "done" in event["stdout"], event
    for path in ("nb.ipynb", "new.ipynb", "sub/deep.ipynb"):
        assert f"jupyter-operator: {path} was given its own policy" in event["stderr"], event
    assert not (ws / "nb.ipynb").exists() and not (ws / "new.ipynb").exists()
    assert not (ws / "sub" / "deep.ipynb").exists()
    entry = op.history()[-1]
    assert (entry.action, entry.decided_by) == ("fs.delete", "rule")
    op.undo(next(e.entry_id for e in op.history() if e.path == "nb.ipynb"))
    assert (ws / "nb.ipynb").read_text() == with_policy(plain, "auto-run")


@pytest.mark.skipif(not sandbox_available(),
                    reason="bubblewrap is missing or cannot create namespaces here")  # fmt: skip
def test_a_policy_a_cell_adds_is_set_aside_for_the_person(op: Operator, ws: Path) -> None:
    """A cell of the session's own kernel runs in the sandbox like a shell command: a notebook
    it gives a policy is set aside after the run, and the run's result says so."""
    lifted = with_policy((ws / "nb.ipynb").read_text(), "auto-run")
    (ws / "w.ipynb").write_text(notebook(code(
        f"open('made.ipynb', 'w').write({lifted!r}); print('written')", id="w1")))  # fmt: skip
    run = op.run(cmd("r1", "nb.runCell", notebook="w.ipynb", cell_id="w1"))
    run.approve("r1")
    text = details(run, "r1")
    assert "written" in text and "jupyter-operator: made.ipynb was given its own policy" in text
    assert not (ws / "made.ipynb").exists()


@pytest.mark.skipif(not sandbox_available(),
                    reason="bubblewrap is missing or cannot create namespaces here")  # fmt: skip
@pytest.mark.parametrize("encoding", ["utf-16", "utf-32"])
def test_a_policy_in_another_unicode_encoding_is_held_in_the_sandbox_too(
    op: Operator, ws: Path, encoding: str
) -> None:
    """JSON read from bytes may be UTF-16 or UTF-32, where the key's letters are not the bytes
    ``jupyter_operator``: such a notebook is hidden when off, like any other, and one a command
    writes with a policy is set aside."""
    off = with_policy(notebook(code("secret = 7", id="s1")), "off")
    (ws / "off.ipynb").write_bytes(off.encode(encoding))
    run = run_json(op, ops({"type": "readFile", "path": "off.ipynb"}))
    assert run.items[0].status == "failed", "the workspace reads it as off"
    lifted = with_policy((ws / "nb.ipynb").read_text(), "auto-run")
    script = (f"cat off.ipynb | iconv -f {encoding} -t utf-8; printf '%s' \"$NB\" | "
              f"iconv -f utf-8 -t {encoding} > new.ipynb; echo done")  # fmt: skip
    run = run_json(op, json.dumps({"type": "shell", "command": script, "env": {"NB": lifted}}))
    run.approve(run.items[0].id)
    event = run.events[-1]
    assert "done" in event["stdout"] and "secret" not in event["stdout"], event
    assert "jupyter-operator: new.ipynb was given its own policy" in event["stderr"], event
    assert not (ws / "new.ipynb").exists()


@pytest.mark.skipif(not sandbox_available(),
                    reason="bubblewrap is missing or cannot create namespaces here")  # fmt: skip
def test_a_shell_command_cannot_move_away_the_folder_of_an_off_notebook(
    op: Operator, ws: Path
) -> None:
    """The folder holding a hidden notebook is a mount point in the sandbox: renamed, the
    author's notebook would leave its path (and, found at a new one, be set aside as new)."""
    (ws / "d").mkdir()
    (ws / "d" / "off.ipynb").write_text(with_policy(notebook(code("secret = 7", id="s1")), "off"))
    hidden = (ws / "d" / "off.ipynb").read_bytes()
    for script in ("mv d e", "python3 -c \"import os; os.rename('d', 'e')\""):
        run = run_json(op, json.dumps({"type": "shell", "command": script}))
        run.approve(run.items[0].id)
        event = run.events[-1]
        assert event["success"] is False and "busy" in event["stderr"], event
    assert (ws / "d" / "off.ipynb").read_bytes() == hidden and not (ws / "e").exists()
    assert op.history() == [], "nothing was set aside"


@pytest.mark.skipif(not sandbox_available(),
                    reason="bubblewrap is missing or cannot create namespaces here")  # fmt: skip
def test_a_running_kernel_reaches_nothing_that_became_covered_after_it_started(
    op: Operator, ws: Path
) -> None:
    """A kernel's sandbox is set up when it starts. A ``.git`` made since (the person's
    ``git init``) or a notebook set to off since is not covered by it: the next cell is stale
    until the kernel restarts, and the restarted kernel hides both."""
    (ws / "w.ipynb").write_text(notebook(
        code("print('started')", id="w1"),
        code("open('.git/hooks/pre-commit', 'w').write('evil'); print(open('off.ipynb').read())",
             id="w2")))  # fmt: skip
    run = op.run(cmd("r1", "nb.runCell", notebook="w.ipynb", cell_id="w1"))
    run.approve("r1")
    assert "started" in details(run, "r1")
    (ws / ".git" / "hooks").mkdir(parents=True)
    (ws / "off.ipynb").write_text(with_policy(notebook(code("secret = 7", id="s1")), "off"))
    run = op.run(cmd("r2", "nb.runCell", notebook="w.ipynb", cell_id="w2"))
    run.approve("r2")
    assert run.items[0].status == "stale", (run.items[0].status, run.items[0].summary)
    assert ".git appeared in the workspace after the kernel started" in run.items[0].summary
    assert not (ws / ".git" / "hooks" / "pre-commit").exists()
    restart = op.run(cmd("r3", "nb.restartKernel", notebook="w.ipynb")
                     + cmd("r4", "nb.runCell", notebook="w.ipynb", cell_id="w2"))
    restart.approve("r3")
    restart.approve("r4")
    assert "secret" not in details(restart, "r4")
    assert not (ws / ".git" / "hooks" / "pre-commit").exists()
