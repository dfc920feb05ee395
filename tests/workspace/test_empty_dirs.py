"""The folders a write created, and removing them again only while they are empty."""

from __future__ import annotations

import pytest

from jupyter_operator.protocol import OperatorError
from jupyter_operator.workspace import Workspace, remove_empty_parents
from jupyter_operator.workspace.history_records import parse_entry

from .sandbox import Sandbox, tree_state


def test_a_write_says_how_many_folders_it_created(ws: Workspace, sandbox: Sandbox) -> None:
    assert ws.write("new/a/b/x.txt", b"x", expect=ws.snapshot("new/a/b/x.txt", limit=10)) == 3
    assert ws.write("sub/y.txt", b"y", expect=ws.snapshot("sub/y.txt", limit=10)) == 0
    assert ws.write("new/a/z.txt", b"z", expect=ws.snapshot("new/a/z.txt", limit=10)) == 0


def test_only_empty_folders_go_innermost_first(ws: Workspace, sandbox: Sandbox) -> None:
    root = sandbox.root
    (root / "p" / "q" / "r").mkdir(parents=True)
    (root / "p" / "keep.txt").write_text("k")
    assert remove_empty_parents(ws, "p/q/r/gone.txt", 3) == 2  # r and q; p holds a file
    assert sorted(x.name for x in (root / "p").iterdir()) == ["keep.txt"]
    # Never more than asked, never the root.
    (root / "s" / "t").mkdir(parents=True)
    assert remove_empty_parents(ws, "s/t/gone.txt", 1) == 1 and (root / "s").is_dir()
    assert remove_empty_parents(ws, "gone.txt", 5) == 0 and root.is_dir()


def test_a_link_in_place_of_a_created_folder_is_not_followed(
    ws: Workspace, sandbox: Sandbox
) -> None:
    (sandbox.outside / "empty").mkdir()
    before = tree_state(sandbox.outside)
    (sandbox.root / "made").symlink_to(sandbox.outside / "empty")
    assert remove_empty_parents(ws, "made/x.txt", 1) == 0
    assert tree_state(sandbox.outside) == before and (sandbox.root / "made").is_symlink()


def test_protected_folders_stay(ws: Workspace, sandbox: Sandbox) -> None:
    (sandbox.root / ".git" / "hooks").mkdir(parents=True)
    with pytest.raises(OperatorError) as caught:  # a protected path is refused outright
        remove_empty_parents(ws, ".git/hooks/x", 2)
    assert caught.value.code == "ERR_PROTECTED_PATH"
    assert (sandbox.root / ".git" / "hooks").is_dir()


def test_stored_entries_check_the_count() -> None:
    entry = {"entry_id": "j1", "time": 1.0, "command_id": "w1", "action": "fs.write",
             "path": "a/b.txt", "change": "create", "before_sha256": None,
             "after_sha256": None, "session": None, "decided_by": None, "rule": None,
             "diff_sha256": None}  # fmt: skip
    assert parse_entry(entry).created_dirs == 0  # written before the count was kept
    assert parse_entry({**entry, "created_dirs": 2}).created_dirs == 2
    for bad in (-1, 1.0, True, "2", 10**6):
        with pytest.raises(ValueError):
            parse_entry({**entry, "created_dirs": bad})

