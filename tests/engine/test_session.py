"""The session: planning, decisions, policies, stale previews and results in block order."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from support.replies import b64, block, edits

from jupyter_operator.engine import DecideFirst, Operator, Policy, UnknownItem

REPLY = "\n".join([
    "I will read, then change two files.",
    block("r1", "fs.read", path="a.txt"),
    block("w1", "fs.write", path="a.txt", content_b64=b64("alpha\nBETA\n")),
    block("bad", "fs.write", path="a.txt"),
    block("e1", "fs.applyEdits", path="b.txt",
          edits_b64=edits({"op": "insertAfter", "anchor": "one", "text": "two"})),
])  # fmt: skip


@pytest.fixture
def files(root: Path) -> Path:
    (root / "a.txt").write_bytes(b"alpha\nbeta\n")
    (root / "b.txt").write_bytes(b"one\r\nthree\r\n")
    return root


def test_reads_run_at_once_and_mutations_wait(files: Path, make_operator) -> None:
    run = make_operator().run(REPLY)
    kinds = [(i.id, i.kind, i.status) for i in run.items]
    assert kinds == [
        ("r1", "read", "done"),
        ("w1", "mutation", "pending"),
        ("bad", "error", "error"),
        ("e1", "mutation", "pending"),
    ]
    assert run.items[2].error_code == "ERR_MISSING_WRITE_CONTENT"
    assert [i.id for i in run.pending] == ["w1", "e1"] and not run.done
    assert (files / "a.txt").read_bytes() == b"alpha\nbeta\n"
    # Only decided items have results yet; the model never hears of a pending change.
    assert "id: w1" not in run.results_text and "id: r1" in run.results_text


def test_decisions_produce_results_in_block_order(files: Path, make_operator) -> None:
    run = make_operator().run(REPLY)
    run.reject("e1", reason="Keep b.txt as it is,\nplease.")
    run.approve("w1")
    assert run.done
    assert (files / "a.txt").read_bytes() == b"alpha\nBETA\n"
    assert (files / "b.txt").read_bytes() == b"one\r\nthree\r\n"
    text = run.results_text
    order = [line[4:] for line in text.splitlines() if line.startswith("id: ")]
    assert order == ["r1", "w1", "bad", "e1"]
    reason = "Reason: Keep b.txt as it is, please."
    assert f"summary: Rejected (ERR_REJECTED): nothing was changed. {reason}" in text
    again = run.approve("w1")
    assert (again.outcome, again.status) == ("already_decided", "applied")
    assert again.item is run.item("w1")
    assert run.reject("e1").outcome == "already_decided" and run.results_text == text
    with pytest.raises(UnknownItem) as info:
        run.approve("nope")
    assert isinstance(info.value, KeyError) and info.value.status_hint == 404


def test_edit_keeps_crlf_and_diff_matches(files: Path, make_operator) -> None:
    run = make_operator().run(REPLY)
    item = run.item("e1")
    assert item.change == "modify" and (item.added, item.removed) == (1, 0)
    assert "+two" in item.diff
    run.approve("e1")
    assert (files / "b.txt").read_bytes() == b"one\r\ntwo\r\nthree\r\n"


def test_stale_preview_is_not_applied(files: Path, make_operator) -> None:
    run = make_operator().run(REPLY)
    (files / "a.txt").write_bytes(b"someone else's edit\n")
    decision = run.approve("w1")
    item = decision.item
    assert item.status == "stale" and decision.outcome == "stale"
    assert item.result.summary == (
        "Not applied (ERR_STALE_PREVIEW): a.txt changed after the preview; ask for a new preview. "
        "Read the file again."
    )  # a sentence, like every other summary
    assert item.error_code == item.result.code == "ERR_STALE_PREVIEW"
    assert (files / "a.txt").read_bytes() == b"someone else's edit\n"


def test_a_file_created_after_the_preview_is_stale(root: Path, make_operator) -> None:
    run = make_operator().run(block("n1", "fs.write", path="new.txt", content="mine"))
    (root / "new.txt").write_bytes(b"theirs")
    assert run.approve("n1").status == "stale"
    assert (root / "new.txt").read_bytes() == b"theirs"


def test_double_approve_from_two_threads_applies_once(files: Path, make_operator) -> None:
    op = make_operator()
    run = op.run(REPLY)
    outcomes: list[str] = []

    def approve() -> None:
        outcomes.append(run.approve("w1").outcome)

    threads = [threading.Thread(target=approve) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["already_decided"] * 7 + ["applied"]
    assert len(op.history()) == 1


def test_policy_auto_and_deny(files: Path, make_operator) -> None:
    op = make_operator(policy=Policy.parse("auto=reads,fs.write deny=fs.applyEdits"))
    run = op.run(REPLY)
    statuses = {i.id: i.status for i in run.items}
    assert statuses == {"r1": "done", "w1": "applied", "bad": "error", "e1": "denied"}
    assert (files / "a.txt").read_bytes() == b"alpha\nBETA\n"
    assert "Denied (ERR_POLICY_DENIED)" in run.item("e1").result.summary
    assert run.done


def test_reads_can_require_approval(files: Path, make_operator) -> None:
    run = make_operator(policy=Policy(auto=frozenset())).run(block("r1", "fs.read", path="a.txt"))
    assert run.items[0].status == "pending" and run.results_text == ""
    run.approve("r1")
    assert run.items[0].status == "done" and "alpha" in run.items[0].details


def test_policy_parse_errors_name_the_problem() -> None:
    with pytest.raises(ValueError, match=r"fs\.wrte"):
        Policy.parse("auto=fs.wrte")
    with pytest.raises(ValueError, match="expected auto, ask or deny"):
        Policy.parse("always")
    with pytest.raises(ValueError, match=r"expected auto=\.\.\. or deny="):
        Policy.parse("auto=reads always")
    # The older form is read as rules: deny first, then auto, and reads ask when not listed.
    assert Policy.parse("auto=none deny=deletes").describe() == "deny deletes **\nask reads **"


def test_duplicate_ids_are_tracked_across_runs(files: Path, make_operator) -> None:
    op = make_operator()
    first = op.run(block("r1", "fs.read", path="a.txt"))
    assert first.items[0].status == "done"
    again = op.run(block("r1", "fs.read", path="a.txt"))
    assert again.items == [] and again.skipped_duplicates == ("r1",)
    changed = op.run(block("r1", "fs.read", path="b.txt"))
    assert changed.items[0].error_code == "ERR_DUPLICATE_ID"


def test_subscribers_hear_every_change(files: Path, make_operator) -> None:
    run = make_operator().run(REPLY)
    heard: list[tuple[str, str]] = []
    run.subscribe(lambda item: heard.append((item.id, item.status)))
    run.approve_all()
    assert heard == [("w1", "applied"), ("e1", "applied")]


def test_no_result_shows_the_host_path(files: Path, make_operator) -> None:
    reply = "\n".join([
        block("p1", "fs.read", path="missing.txt"),
        block("p2", "fs.read", path="/etc/passwd"),
        block("p3", "fs.write", path="../escape.txt", content="x"),
        block("p4", "fs.delete", path="."),
        block("p5", "fs.list", path="a.txt"),
    ])  # fmt: skip
    run = make_operator().run(reply)
    run.approve_all()
    assert all(item.ok is False for item in run.items), run.results_text
    for item in run.items:
        shown = item.result.summary + (item.details or "")
        assert str(files) not in shown and "Traceback" not in shown and "Error:" not in shown


def test_operator_requires_an_existing_root(tmp_path: Path) -> None:
    with pytest.raises(NotADirectoryError):
        Operator(tmp_path / "missing", journal_dir=tmp_path / "j")


CHAIN = "\n".join([
    block("w1", "fs.write", path="plan.txt", content_b64=b64("Alpha\nBeta")),
    block("e1", "fs.applyEdits", path="plan.txt",
          edits_b64=edits({"op": "insertAfter", "anchor": "Beta", "text": "Gamma"})),
])  # fmt: skip


def test_a_change_is_previewed_on_top_of_an_earlier_pending_one(root: Path, make_operator) -> None:
    run = make_operator().run(CHAIN)
    write, edit = run.items
    assert edit.builds_on == "w1" and edit.status == "pending"
    assert "+Gamma" in edit.diff
    with pytest.raises(DecideFirst, match="decide w1 first") as info:
        run.approve("e1")
    assert info.value.base == "w1" and info.value.status_hint == 409
    run.approve_all()
    assert (root / "plan.txt").read_bytes() == b"Alpha\nBeta\nGamma"
    assert [write.status, edit.status] == ["applied", "applied"]


def test_rejecting_the_base_replans_the_dependent_from_disk(root: Path, make_operator) -> None:
    run = make_operator().run(CHAIN)
    heard: list[str] = []
    run.subscribe(lambda item: heard.append(f"{item.id}:{item.status}"))
    run.reject("w1")
    # plan.txt never came to exist, so the edit can no longer be computed: it is not applied,
    # and the model is told the refusal of its base is why (not that its command was invalid).
    assert heard == ["w1:rejected", "e1:rejected"]
    edit = run.item("e1")
    assert edit.error_code == "ERR_BASE_REJECTED" and run.done
    assert edit.result.summary == (
        "Not applied (ERR_BASE_REJECTED): it builds on w1, which was rejected; nothing was changed."
    )
    assert not (root / "plan.txt").exists()


def test_a_dependent_that_still_applies_after_a_rejection_is_shown_again(
    root: Path, make_operator
) -> None:
    (root / "plan.txt").write_bytes(b"Beta\n")
    run = make_operator().run(CHAIN)
    run.reject("w1")
    edit = run.item("e1")
    assert edit.status == "pending" and edit.builds_on is None
    assert "+Gamma" in edit.diff and "Alpha" not in edit.diff


def test_a_read_after_a_pending_change_to_its_path_waits(root: Path, make_operator) -> None:
    (root / "other.txt").write_bytes(b"untouched\n")
    reply = "\n".join([
        block("w1", "fs.write", path="notes/s.txt", content="first"),
        block("r1", "fs.read", path="notes/s.txt"),
        block("l1", "fs.list", path="notes"),
        block("r2", "fs.read", path="other.txt"),
    ])  # fmt: skip
    run = make_operator().run(reply)
    assert [i.status for i in run.items] == ["pending", "waiting", "waiting", "done"]
    assert not run.done and [i.id for i in run.pending] == ["w1"]
    run.approve("w1")
    assert run.item("r1").details == "first" and run.item("l1").details == "s.txt"
    assert run.done


def test_a_read_waits_for_the_latest_undecided_change_below_it(root: Path,
                                                              make_operator) -> None:  # fmt: skip
    """Two pending changes of different files in the folder a listing reads: it waits for the
    later one, and runs only once both are decided."""
    reply = "\n".join([
        block("w1", "fs.write", path="notes/a.txt", content="a"),
        block("w2", "fs.write", path="notes/b.txt", content="b"),
        block("w3", "fs.write", path="elsewhere.txt", content="c"),
        block("l1", "fs.list", path="notes"),
    ])  # fmt: skip
    run = make_operator().run(reply)
    listing = run.item("l1")
    assert listing.status == "waiting" and listing.builds_on == "w2"
    assert listing.summary == "runs after w2 is decided"
    run.approve("w1")
    assert listing.status == "waiting"
    run.reject("w2")
    assert listing.status == "done" and listing.details == "a.txt"


def test_a_waiting_read_sees_the_disk_after_a_rejection(root: Path, make_operator) -> None:
    (root / "s.txt").write_bytes(b"old")
    write = block("w1", "fs.write", path="s.txt", content="new")
    run = make_operator().run(write + "\n" + block("r1", "fs.read", path="s.txt"))
    run.reject("w1")
    assert run.item("r1").status == "done" and run.item("r1").details == "old"


def test_close_releases_the_root_descriptor(root: Path, tmp_path: Path) -> None:
    kept = []  # kept alive, so only close() (not garbage collection) can release descriptors
    fds_before = len(os.listdir("/proc/self/fd"))
    for _ in range(50):
        with Operator(root, journal_dir=tmp_path / "j") as op:
            op.run(block("r", "fs.list", path="."))
        kept.append(op)
    # A wide margin: other threads of a combined test run may open descriptors meanwhile.
    assert len(os.listdir("/proc/self/fd")) < fds_before + 25
