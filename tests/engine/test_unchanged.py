"""A change that would write the bytes a file already has asks nothing and writes nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from replies import b64, block

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
