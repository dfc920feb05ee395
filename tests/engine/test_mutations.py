"""Planning mutations: notebook checks on the parsed path, folder deletes seen whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.replies import b64, block

from jupyter_operator.protocol import codes

NOT_A_NOTEBOOK = '{"cells": "nope"}'


@pytest.mark.parametrize("path", ["nb.ipynb", "nb.ipynb/", "nb.ipynb/.", "nb.ipynb\\", "NB.IPYNB"])
def test_notebook_validation_is_decided_on_the_parsed_path(
    root: Path, make_operator, path: str
) -> None:
    run = make_operator().run(block("w1", "fs.write", path=path, content_b64=b64(NOT_A_NOTEBOOK)))
    [item] = run.items
    assert (item.status, item.error_code) == ("failed", codes.ERR_INVALID_NOTEBOOK)
    assert not any(root.iterdir())


def test_a_folder_holding_a_protected_path_deep_down_is_not_deleted(
    root: Path, make_operator
) -> None:
    (root / "pkg" / "vendor" / "lib").mkdir(parents=True)
    (root / "pkg" / "a.txt").write_text("a")
    (root / "pkg" / "vendor" / "lib" / ".git").write_text("gitdir: elsewhere\n")  # a file
    run = make_operator().run(block("d1", "fs.delete", path="pkg"))
    [item] = run.items
    assert (item.status, item.error_code) == ("failed", codes.ERR_PROTECTED_PATH)
    assert "pkg/vendor/lib/.git" in item.summary
    assert (root / "pkg" / "vendor" / "lib" / ".git").exists()


def test_a_protected_path_added_after_the_preview_stops_the_delete(
    root: Path, make_operator
) -> None:
    (root / "pkg" / "sub").mkdir(parents=True)
    run = make_operator().run(block("d1", "fs.delete", path="pkg"))
    (root / "pkg" / "sub" / ".git").mkdir()
    decision = run.approve("d1")
    assert (decision.outcome, decision.item.error_code) == ("failed", codes.ERR_PROTECTED_PATH)
    assert (root / "pkg" / "sub" / ".git").is_dir()


def test_the_preview_counts_every_entry_and_refuses_above_the_limit(
    root: Path, make_operator
) -> None:
    big = root / "big"
    (big / "sub").mkdir(parents=True)
    for i in range(9_997):
        (big / f"f{i:05d}").touch()
    (big / "sub" / "inner.txt").touch()
    (big / ".~operator-half.tmp").touch()  # hidden from listings, but moved: counted
    op = make_operator()
    [item] = op.run(block("d1", "fs.delete", path="big")).items
    assert item.status == "pending" and item.summary == "delete directory (10000 entries)"
    assert item.diff.endswith(f"-... and {10_000 - 200} more\n")
    (big / "sub" / "one-more.txt").touch()
    [item] = op.run(block("d2", "fs.delete", path="big/")).items
    assert (item.status, item.error_code) == ("failed", codes.ERR_TOO_MANY_ENTRIES)
    assert "more than 10000 entries" in item.summary

