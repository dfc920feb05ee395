"""Decisions: what approve / reject return, typed errors, who decided, one code per result."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.replies import b64, block

import jupyter_operator
from jupyter_operator.engine import DecideFirst, Decision, EngineError, Policy, UnknownItem
from jupyter_operator.protocol import codes, format_results, parse_results


def write(cid: str, path: str, text: str) -> str:
    return block(cid, "fs.write", path=path, content_b64=b64(text))


def test_approve_and_reject_return_decisions(root: Path, make_operator) -> None:
    run = make_operator().run(write("w1", "a.txt", "A\n") + "\n" + write("w2", "b.txt", "B\n"))
    applied = run.approve("w1")
    assert isinstance(applied, Decision)
    assert (applied.id, applied.outcome, applied.status) == ("w1", "applied", "applied")
    assert applied.item is run.item("w1") and applied.ok
    assert applied.message == "w1: Wrote file." and "applied" in repr(applied)
    rejected = run.reject("w2", reason="not now")
    assert (rejected.outcome, rejected.status) == ("rejected", "rejected")
    assert "not now" in rejected.message and "\n" not in rejected.message
    assert (root / "a.txt").read_text() == "A\n" and not (root / "b.txt").exists()


def test_deciding_twice_does_nothing_and_says_so(root: Path, make_operator) -> None:
    run = make_operator().run(write("w1", "a.txt", "A\n"))
    seen: list[str] = []
    run.subscribe(lambda item: seen.append(item.status))
    run.reject("w1")
    text = run.results_text
    for again in (run.approve("w1"), run.reject("w1", "twice")):
        assert (again.outcome, again.status) == ("already_decided", "rejected")
        assert again.message == "w1 was already decided (rejected); nothing was done."
    assert run.results_text == text and seen == ["rejected"] and not (root / "a.txt").exists()


def test_programming_errors_are_typed_with_a_status_hint(root: Path, make_operator) -> None:
    first = write("w1", "a.txt", "one\n")
    run = make_operator().run(first + "\n" + write("w2", "a.txt", "two\n"))
    with pytest.raises(UnknownItem) as unknown:
        run.approve("nope")
    assert isinstance(unknown.value, KeyError) and isinstance(unknown.value, EngineError)
    assert (unknown.value.code, unknown.value.status_hint) == ("item_not_found", 404)
    assert str(unknown.value) == "no item with id 'nope' in this run"
    with pytest.raises(DecideFirst) as first_:
        run.reject("w2")
    error = first_.value
    assert isinstance(error, ValueError)
    assert (error.code, error.status_hint) == ("decide_first", 409)
    assert error.base == "w1" and str(error) == "w2 builds on w1: decide w1 first"
    # IPython shows one line instead of a traceback (no frames, no host paths).
    assert error._render_traceback_() == ["DecideFirst: w2 builds on w1: decide w1 first"]


def test_the_package_exports_the_decision_types() -> None:
    for name in ("Decision", "DecideFirst", "EngineError", "UnknownItem"):
        assert getattr(jupyter_operator, name) is getattr(jupyter_operator.engine, name)


def test_every_decision_says_who_made_it(root: Path, make_operator) -> None:
    (root / "a.txt").write_text("a\n")
    policy = Policy(auto=frozenset({"reads"}), deny=frozenset({"fs.delete"}))
    reply = "\n".join([
        block("r1", "fs.read", path="a.txt"),
        block("d1", "fs.delete", path="a.txt"),
        write("w1", "b.txt", "B\n"),
        write("w2", "c.txt", "C\n"),
    ])  # fmt: skip
    run = make_operator(policy=policy).run(reply)
    r1, d1, w1, w2 = run.items
    # The older form stands for deny rules first, then auto rules, over every path.
    assert (r1.decided_by, r1.rule) == ("rule", "rule 2: auto reads **")
    assert (d1.decided_by, d1.rule, d1.status) == ("rule", "rule 1: deny fs.delete **", "denied")
    assert (w1.decided_by, w1.rule) == (None, "default: ask")  # why it waits
    run.approve("w1")
    run.reject("w2")
    assert [(i.decided_by, i.rule) for i in (w1, w2)] == [("person", None)] * 2
    assert w1.to_dict()["decided_by"] == "person"
    assert r1.to_dict()["rule_note"] == "auto-approved by rule 2: auto reads **"
    assert d1.to_dict()["rule_note"] == "denied by rule 1: deny fs.delete **"


def test_every_failed_result_carries_its_code(root: Path, make_operator) -> None:
    (root / "big.txt").write_bytes(b"x" * 200_001)
    (root / "a.txt").write_text("a\n")
    reply = "\n".join([
        block("r1", "fs.read", path="big.txt"),
        block("r2", "fs.read", path="missing.txt"),
        block("w1", "fs.write", path="a.txt"),
        write("w2", "a.txt", "b\n"),
        block("d1", "fs.delete", path="a.txt"),
    ])  # fmt: skip
    run = make_operator(policy=Policy(deny=frozenset({"deletes"}))).run(reply)
    run.reject("w2")
    want = [codes.ERR_FILE_TOO_LARGE, codes.ERR_NOT_FOUND, codes.ERR_MISSING_WRITE_CONTENT,
            codes.ERR_REJECTED, codes.ERR_POLICY_DENIED]  # fmt: skip
    assert [i.result.code for i in run.items] == want
    assert [i.error_code for i in run.items] == want
    # The large fs.read keeps the spec's own wording, which names no code.
    assert run.items[0].result.summary.startswith("File too large for fs.read (200001 bytes)")
    # Read back from the text, every code is the same.
    text = format_results(i.result for i in run.items)
    assert [r.code for r in parse_results(text)] == want


def test_made_up_error_ids_never_equal_an_id_of_the_reply(make_operator) -> None:
    reply = "\n".join([
        block("operator-error-2", "fs.list", path="."),
        "OPERATOR_CMD\nversion: 1\naction: fs.list\nEND_OPERATOR_CMD",  # no id: a scan error
        block("operator-error-2-2", "fs.list", path="."),
        "OPERATOR_CMD\nversion: 1\naction: fs.read\nEND_OPERATOR_CMD",
    ])  # fmt: skip
    run = make_operator().run(reply)
    ids = [item.result.id for item in run.items]
    assert len(set(ids)) == len(ids), ids
    assert ids[1] == "operator-error-2-3" and ids[3] == "operator-error-4"


def test_a_reason_is_one_printable_line() -> None:
    from jupyter_operator.engine.decisions import REASON_LIMIT, reason_note

    assert reason_note(None) == "" and reason_note("  \n ") == ""
    assert reason_note("too\nbig\r\n  OPERATOR_RESULT") == " Reason: too big OPERATOR_RESULT"
    assert reason_note("red \x1b[31mhi\x07 \u202eevil") == " Reason: red ?[31mhi? ?evil"
    long = reason_note("x" * (REASON_LIMIT + 10))
    assert long == " Reason: " + "x" * REASON_LIMIT + "..."


def test_every_kind_of_run_flattens_the_reason(make_operator) -> None:
    """The operator run, the JSON run and a bash line all pass the reason through one helper:
    an escape sequence a person pasted never reaches the model's text or a terminal."""
    import json

    from jupyter_operator.engine import run_json
    from jupyter_operator.engine.commands import CommandSession

    op = make_operator()
    reason = "no\x1b]0;pwned\x07\nOPERATOR_RESULT"
    flat = "no?]0;pwned? OPERATOR_RESULT"

    body = json.dumps({"operations": [{"type": "createFile", "path": "a.txt", "content": "a"}]})
    run = run_json(op, body)
    run.reject(run.pending[0].id, reason)
    assert flat in run.events[-1]["error"] and "\x1b" not in json.dumps(run.events)

    session = CommandSession(op, tag="qm", shell=lambda command, cwd: (0, ""))
    batch = session.execute("touch never.txt")
    batch.reject(reason)
    assert batch.replies[0].body.endswith(f"Reason: {flat}")
    op.close()
