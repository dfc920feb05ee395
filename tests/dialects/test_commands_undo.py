"""A reply's ``/undo`` is a change: previewed, decided by a person or the rules, then journaled.

Only a person's undo (a button, ``%operator undo``, ``jupyter-operator undo``) acts at once.
Before, ``/undo`` in a reply reverted a change the person had approved with no approval at all,
even under ``--approve none`` and a rule denying every write.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from jupyter_operator import cli
from jupyter_operator.engine import Operator
from jupyter_operator.engine.commands import CommandSession


def approved_change(session: CommandSession, root: Path) -> None:
    """A person approves a change of notes.md (the change a model will then try to undo)."""
    reply = session.command("/write notes.md\napproved by the person\n/end")
    assert reply.status == "pending"
    reply.run.approve(reply.run.items[0].id)
    assert (root / "notes.md").read_text() == "approved by the person\n"


def test_undo_in_a_reply_waits_for_the_person(make_session: Callable[..., CommandSession],
                                              root: Path) -> None:  # fmt: skip
    session = make_session()
    approved_change(session, root)
    reply = session.command("/undo")
    assert reply.status == "pending"
    assert reply.body.startswith("Proposed: undo ")
    item = reply.run.items[0]
    assert item.action == "fs.write" and "-approved by the person" in item.proposal.diff
    assert (root / "notes.md").read_text() == "approved by the person\n"  # untouched so far
    reply.run.reject(item.id, "keep my change")
    assert reply.status == "error" and reply.body.startswith("ERROR(REJECTED)")
    assert (root / "notes.md").read_text() == "approved by the person\n"


def test_an_approved_undo_reverts_and_is_recorded(make_session: Callable[..., CommandSession],
                                                  root: Path) -> None:  # fmt: skip
    original = (root / "notes.md").read_bytes()
    session = make_session()
    approved_change(session, root)
    reply = session.command("/undo")
    reply.run.approve(reply.run.items[0].id)
    assert reply.status == "done" and reply.body.startswith("Undo: reverted notes.md (")
    assert (root / "notes.md").read_bytes() == original
    assert len(session.operator.history()) == 2  # the undo is a change a person can undo


def test_rules_decide_a_reply_undo(make_session: Callable[..., CommandSession],
                                   root: Path) -> None:  # fmt: skip
    approved_change(make_session(), root)
    denied = make_session("deny writes **")
    reply = denied.command("/undo")
    assert reply.body == (
        "ERROR(DENIED): /undo would fs.write notes.md, which is not allowed in this workspace "
        "(rule 1: deny writes **)."
    )
    assert (root / "notes.md").read_text() == "approved by the person\n"


def test_undo_of_a_created_file_is_a_delete_to_approve(
    make_session: Callable[..., CommandSession], root: Path
) -> None:
    session = make_session()
    made = session.command("/write made.md\nx\n/end")
    made.run.approve(made.run.items[0].id)
    reply = session.command("/undo")
    assert reply.status == "pending" and reply.run.items[0].action == "fs.delete"
    assert (root / "made.md").exists()
    assert make_session("deny fs.delete **").command("/undo").body.startswith("ERROR(DENIED)")


def test_the_command_line_repro(tmp_path: Path, root: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """``run --dialect commands --approve none --rule 'deny writes **'`` with ``/undo``."""
    journal = tmp_path / "journal"
    with Operator(root, journal_dir=journal) as op:
        approved_change(CommandSession(op), root)
    script = tmp_path / "reply.txt"
    script.write_text("/undo\n")
    for extra in (["--rule", "deny writes **"], []):
        argv = ["run", "--dialect", "commands", "--root", str(root), "--journal-dir",
                str(journal), "--approve", "none", *extra, str(script)]  # fmt: skip
        assert cli.main(argv) == 0
        out = capsys.readouterr().out
        assert "ERROR(DENIED)" in out if extra else "ERROR(REJECTED)" in out
        assert (root / "notes.md").read_text() == "approved by the person\n"


def test_a_person_undo_still_acts_at_once(tmp_path: Path, root: Path) -> None:
    original = (root / "notes.md").read_bytes()
    journal = tmp_path / "journal"
    with Operator(root, journal_dir=journal) as op:
        approved_change(CommandSession(op), root)
    assert cli.main(["undo", "--root", str(root), "--journal-dir", str(journal)]) == 0
    assert (root / "notes.md").read_bytes() == original
