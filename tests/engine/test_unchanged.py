"""A change that would write the bytes a file already has asks nothing and writes nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from support.replies import b64, block

from jupyter_operator.engine import Operator


def test_same_content_is_done_without_approval(
    root: Path, make_operator: Callable[..., Operator]
) -> None:
    (root / "a.txt").write_bytes(b"same\n")
    before = (root / "a.txt").stat().st_mtime_ns
    op = make_operator()
    run = op.run(block("w1", "fs.write", path="a.txt", content_b64=b64("same\n")))
    [item] = run.items
    assert item.status == "done" and not item.needs_approval and run.done
    assert item.result is not None and item.result.ok
    assert item.result.summary == (
        "No change: a.txt already has exactly this content; nothing was written."
    )
    assert (root / "a.txt").stat().st_mtime_ns == before and op.history() == []


def test_a_real_change_still_asks(root: Path, make_operator: Callable[..., Operator]) -> None:
    (root / "a.txt").write_bytes(b"same\n")
    run = make_operator().run(block("w1", "fs.write", path="a.txt", content_b64=b64("other\n")))
    assert run.items[0].status == "pending"


def test_a_no_op_stacked_on_an_earlier_change_is_no_change(make_operator, root) -> None:  # type: ignore[no-untyped-def]
    """The second write of the same bytes in one reply used to wait for approval and then be
    applied and journaled as a change of nothing; it is "No change" at once now."""
    from support.replies import reply, write

    op = make_operator()
    run = op.run(reply(write("w1", "a.txt", "same\n"), write("w2", "a.txt", "same\n")))
    first, second = run.items
    assert first.status == "pending"
    assert second.status == "done" and not second.needs_approval
    assert second.result.summary == (
        "No change: a.txt has exactly this content once w1 is applied; nothing more to write."
    )
    run.approve("w1")
    assert (root / "a.txt").read_text() == "same\n"
    assert [e.command_id for e in op.history()] == ["w1"]  # one entry, not two
