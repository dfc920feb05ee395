"""The undo journal is untrusted input, and no workspace can reach it.

Forged entries, blobs that do not match their digest, symbolic links inside the journal and
damaged lines or counters all give ``ERR_JOURNAL_CORRUPT`` and change nothing; a workspace that
contains the journal folder (a home folder) refuses to read, write, search or delete it.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from support.replies import b64, block

from jupyter_operator.engine import Operator, plan
from jupyter_operator.protocol import OperatorError, codes
from jupyter_operator.workspace import HistoryEntry, Journal, Workspace
from jupyter_operator.workspace.journal_paths import root_key

from .sandbox import tree_state


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A workspace, a journal folder beside it, and an outside folder with a secret."""
    root, journal, outside = tmp_path / "ws", tmp_path / "journal", tmp_path / "outside"
    for folder in (root, journal, outside):
        folder.mkdir()
    (outside / "secret.txt").write_bytes(b"TOP SECRET\n")
    (outside / "dir").mkdir()
    (outside / "dir" / "inner.txt").write_bytes(b"INNER\n")
    (root / "a.txt").write_bytes(b"alpha\n")
    return root, journal, outside


def forge(journal: Path, root: Path, *lines: dict) -> Path:
    """Write ``entries.jsonl`` of ``root``'s journal by hand, as an attacker would."""
    folder = journal / root_key(root)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "entries.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return folder


def entry(**fields: object) -> dict:
    base = {
        "entry_id": "j1", "time": 1.0, "command_id": "w1", "action": "fs.write",
        "path": "a.txt", "change": "modify", "before_sha256": None,
        "after_sha256": sha(b"alpha\n"),
    }  # fmt: skip
    return {"entry": {**base, **fields}}


def refused_corrupt(call) -> OperatorError:
    with pytest.raises(OperatorError) as info:
        call()
    assert info.value.code == codes.ERR_JOURNAL_CORRUPT, info.value.summary
    assert "/" not in info.value.message.replace("a.txt", "")  # no host path in the message
    return info.value


@pytest.mark.parametrize(
    "forged",
    [
        {"before_sha256": "../../outside/secret.txt"},  # a blob name that climbs out
        {"entry_id": "../../outside/dir", "change": "delete", "after_sha256": None},  # a trash
        {"entry_id": "j1/../../../outside", "change": "delete", "after_sha256": None},
        {"after_sha256": "A" * 64},
        {"change": "rename"},
        {"path": 5},
        {"extra": "field"},
    ],
)
def test_forged_entries_are_refused(setup, forged: dict) -> None:
    root, journal, outside = setup
    forge(journal, root, entry(**forged))
    before = tree_state(outside), (root / "a.txt").read_bytes()
    with Operator(root, journal_dir=journal) as op:
        refused_corrupt(op.history)
        refused_corrupt(op.undo)
    assert (tree_state(outside), (root / "a.txt").read_bytes()) == before
    assert not (root / "dir").exists()


def test_a_blob_that_does_not_match_its_digest_is_refused(setup) -> None:
    root, journal, _ = setup
    with Operator(root, journal_dir=journal) as op:
        op.run(block("w1", "fs.write", path="a.txt", content="beta")).approve("w1")
        [done] = op.history()
        blob = journal / root_key(root) / "blobs" / done.before_sha256
        blob.write_bytes(b"#!/bin/sh\nrm -rf ~\n")  # tampered, same name
        refused_corrupt(op.undo)
    assert (root / "a.txt").read_bytes() == b"beta"


def test_a_redo_copy_damaged_at_its_size_is_rewritten_when_undo_needs_it(setup) -> None:
    # A change's new bytes are kept without a sync; a power loss may leave that copy at its
    # full size holding other bytes. When the same bytes later become the "before" copy undo
    # needs, the damaged copy must be written again, not trusted for its size.
    root, journal, _ = setup
    with Operator(root, journal_dir=journal) as op:
        op.run(block("w1", "fs.write", path="a.txt", content="beta")).approve("w1")
        blob = journal / root_key(root) / "blobs" / sha(b"beta")
        blob.write_bytes(b"\0" * len(b"beta"))  # its size, not its bytes
        op.run(block("w2", "fs.write", path="a.txt", content="gamma")).approve("w2")
        assert blob.read_bytes() == b"beta"
        op.undo()
        assert (root / "a.txt").read_bytes() == b"beta"


def test_a_trashed_file_that_was_swapped_is_refused(setup) -> None:
    root, journal, _ = setup
    with Operator(root, journal_dir=journal) as op:
        op.run(block("d1", "fs.delete", path="a.txt")).approve("d1")
        (journal / root_key(root) / "trash" / "j1" / "a.txt").write_bytes(b"forged\n")
        refused_corrupt(op.undo)
    assert not (root / "a.txt").exists()


@pytest.mark.parametrize("sub", ["blobs", "trash"])
def test_a_symlinked_journal_subfolder_is_refused(setup, sub: str) -> None:
    root, journal, outside = setup
    folder = journal / root_key(root)
    folder.mkdir()
    (folder / sub).symlink_to(outside / "dir")
    before = tree_state(outside)
    with pytest.raises(OperatorError) as info:
        Operator(root, journal_dir=journal)
    assert info.value.code == codes.ERR_JOURNAL_CORRUPT
    assert tree_state(outside) == before


def test_a_symlinked_trash_slot_is_never_followed(setup) -> None:
    root, journal, outside = setup
    with Operator(root, journal_dir=journal) as op:
        op.run(block("d1", "fs.delete", path="a.txt")).approve("d1")
        slot = journal / root_key(root) / "trash" / "j1"
        (slot / "a.txt").rename(outside / "moved.txt")
        slot.rmdir()
        slot.symlink_to(outside / "dir")  # undo would move outside/dir/inner.txt in
        refused_corrupt(op.undo)
    assert (outside / "dir" / "inner.txt").read_bytes() == b"INNER\n"
    assert not (root / "a.txt").exists() and not (root / "inner.txt").exists()


def test_damaged_lines_and_counter(setup) -> None:
    root, journal, _ = setup
    with Operator(root, journal_dir=journal) as op:
        op.run(block("w1", "fs.write", path="a.txt", content="beta")).approve("w1")
        entries = journal / root_key(root) / "entries.jsonl"
        good = entries.read_text()
        entries.write_text(good + '{"entry": {"half')  # a torn tail of a killed append
        assert [e.entry_id for e in op.history()] == ["j1"]
        entries.write_text("not json\n" + good)
        error = refused_corrupt(op.history)
        assert "line 1" in error.message
        entries.write_text(good + '{"undone": "j9", "time": 1}\n')  # a marker for no entry
        refused_corrupt(op.history)
        entries.write_text(good)
        (journal / root_key(root) / "counter").write_text("../../7")
        run = op.run(block("w2", "fs.write", path="a.txt", content="gamma"))
        item = run.approve("w2").item
    assert item.status == "failed" and item.error_code == codes.ERR_JOURNAL_CORRUPT
    assert (root / "a.txt").read_bytes() == b"beta"


def test_the_counter_is_rewritten_in_place(setup) -> None:
    root, journal, _ = setup
    j = Journal(root, journal)
    try:
        assert j.allocate_id() == "j1"
        counter = journal / root_key(root) / "counter"
        first = counter.stat().st_ino
        assert j.allocate_id() == "j2"
        assert counter.stat().st_ino == first and counter.read_text() == "2"
        counter.write_text("0009\n")  # edited by hand: the old tail must not survive
        assert j.allocate_id() == "j10" and counter.read_text() == "10"
        counter.write_text("")  # emptied by a power loss: counts as 0, nothing is reused
        assert j.allocate_id() == "j1"  # no entry names an id yet
        assert not [p for p in counter.parent.iterdir() if p.name.startswith(".~operator-")]
    finally:
        j.close()


def test_ids_named_since_the_last_search_count_when_the_counter_lags(setup) -> None:
    """The highest named id is kept in memory between ids, yet what another process appended
    since (with the counter lagging after a power loss), or a shorter entries file put in
    place, is searched: no id is handed out twice."""
    root, journal, _ = setup
    j = Journal(root, journal)
    other = Journal(root, journal)  # another process's journal of the same root
    try:
        assert j.allocate_id() == "j1"
        j.record(HistoryEntry(**entry(entry_id="j1")["entry"]))
        assert j.allocate_id() == "j2"
        other.record(HistoryEntry(**entry(entry_id="j40")["entry"]))
        folder = journal / root_key(root)
        (folder / "counter").write_text("")  # lost with a power loss
        assert j.allocate_id() == "j41"
        forge(journal, root, entry(entry_id="j7"))  # shorter: searched afresh
        (folder / "counter").write_text("")
        assert j.allocate_id() == "j8"
    finally:
        j.close()
        other.close()


def test_a_counter_that_is_not_a_plain_file_is_corrupt(setup) -> None:
    root, journal, _ = setup
    j = Journal(root, journal)
    try:
        j.allocate_id()
        counter = journal / root_key(root) / "counter"
        counter.unlink()
        os.mkfifo(counter)  # opened without blocking, then refused
        with pytest.raises(OperatorError) as fifo:
            j.allocate_id()
        counter.unlink()
        counter.symlink_to(root / "elsewhere")
        with pytest.raises(OperatorError) as link:
            j.allocate_id()
        assert not (root / "elsewhere").exists()
    finally:
        j.close()
    assert fifo.value.code == link.value.code == codes.ERR_JOURNAL_CORRUPT


# -- the journal folder is out of reach of every workspace ------------------------------------


@pytest.fixture
def home(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A home-like workspace holding the journal folder, and another workspace elsewhere."""
    home = tmp_path / "home"
    journal = home / ".local" / "share" / "jupyter" / "jupyter_operator" / "journal"
    other = tmp_path / "project"
    journal.mkdir(parents=True)
    other.mkdir()
    (other / "notes.txt").write_bytes(b"mine\n")
    return home, journal, other


def test_a_reply_in_the_home_folder_cannot_touch_another_workspaces_journal(home) -> None:
    home_root, journal, other = home
    with Operator(other, journal_dir=journal) as op:
        op.run(block("w1", "fs.write", path="notes.txt", content="changed")).approve("w1")
    target = journal.relative_to(home_root) / root_key(other)
    theirs = journal / root_key(other)
    snapshot = tree_state(theirs)
    forged = json.dumps(entry(path="../outside")) + "\n"
    attempts = [
        block("x1", "fs.write", path=f"{target}/entries.jsonl", content_b64=b64(forged)),
        block("x2", "fs.write", path=f"{target}/blobs/{'0' * 64}", content="evil"),
        block("x3", "fs.delete", path=f"{target}/trash"),
        block("x4", "fs.delete", path=".local"),  # a folder that holds the journal
        block("x5", "fs.read", path=f"{target}/entries.jsonl"),
        block("x6", "fs.list", path=str(journal.relative_to(home_root))),
        block("x7", "fs.write", path=f"./{target.as_posix().replace('/', '//')}/./counter",
              content="1"),
    ]  # fmt: skip
    with Operator(home_root, journal_dir=journal) as op:
        run = op.run("\n".join(attempts))
        run.approve_all()
        for item in run.items:
            assert item.ok is False, (item.id, item.summary)
        codes_seen = {item.error_code for item in run.items}
        assert codes_seen <= {codes.ERR_PROTECTED_PATH, codes.ERR_PATH_ESCAPE}, codes_seen
        found = op.workspace.search_tree(".", "entry_id")
        assert found.matches == []
    assert tree_state(theirs) == snapshot


def test_the_journal_is_reserved_by_real_location_not_by_name(home, tmp_path: Path) -> None:
    home_root, journal, _ = home
    # The journal configured through a link elsewhere: its real folder is still refused.
    link = tmp_path / "journal-link"
    link.symlink_to(journal)
    with Workspace(home_root, journal_dir=link) as ws:
        rel = str(journal.relative_to(home_root))
        for call in (
            lambda: ws.list_dir(rel),
            lambda: ws.write(f"{rel}/x", b"1", expect=ws.snapshot("nope", limit=10)),
            lambda: ws.snapshot(f"{rel}/counter", limit=10),
            lambda: ws.stat(rel),
        ):
            with pytest.raises(OperatorError) as info:
                call()
            assert info.value.code == codes.ERR_PROTECTED_PATH
    assert not (journal / "x").exists()


def test_a_workspace_inside_the_journal_is_refused(tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    (journal / "inner").mkdir(parents=True)
    with pytest.raises(OperatorError) as info:
        Workspace(journal / "inner", journal_dir=journal)
    assert info.value.code == codes.ERR_PROTECTED_PATH


def test_default_workspace_reserves_the_default_journal(tmp_path: Path, monkeypatch) -> None:
    journal = tmp_path / "home" / "data" / "journal"
    monkeypatch.setenv("JUPYTER_OPERATOR_JOURNAL_DIR", str(journal))
    with Workspace(tmp_path / "home") as ws:
        with pytest.raises(OperatorError) as info:
            ws.write("data/journal/x", b"1", expect=ws.snapshot("nope", limit=10))
        assert info.value.code == codes.ERR_PROTECTED_PATH
    assert not (journal / "x").exists()
    assert os.stat(journal).st_mode & 0o777 == 0o700


def test_a_counter_that_lags_behind_the_entries_never_reuses_an_id(setup) -> None:
    root, journal, _ = setup
    with Operator(root, journal_dir=journal) as op:
        op.run(block("w1", "fs.write", path="a.txt", content="beta")).approve("w1")
        op.undo()
        (journal / root_key(root) / "counter").write_text("0")  # as after a power loss
        op.run(block("w2", "fs.write", path="a.txt", content="gamma")).approve("w2")
        assert [e.entry_id for e in op.history()] == ["j1", "j2"]


def test_a_journal_folder_removed_while_running_is_made_again(tmp_path: Path) -> None:
    from jupyter_operator.workspace.journal_paths import journal_base

    first = journal_base(tmp_path / "j" / "k")
    assert first.is_dir() and journal_base(tmp_path / "j" / "k") == first
    first.rmdir()  # remembered by the process, then gone: made again, not assumed
    assert journal_base(tmp_path / "j" / "k") == first and first.is_dir()
    assert first.stat().st_mode & 0o777 == 0o700


# A created file's diff is not kept: the history makes it again from the file's new bytes,
# the very text the person approved (one file less in the journal per created file).
CREATED = [
    b"alpha\nbeta\n",
    b"no newline at the end",
    b"crlf\r\nlines\r\n",
    "non-ASCII \u00e9\u00e8 \u2603\n".encode(),
    b"\x00\x01binary",
    b"x" * 1000 + b"\n",
]


def blobs(journal: Path, root: Path) -> set[str]:
    return {p.name for p in (journal / root_key(root) / "blobs").iterdir()}


@pytest.mark.parametrize("data", CREATED, ids=range(len(CREATED)))
def test_a_created_files_diff_is_made_again_from_its_bytes(setup, data: bytes) -> None:
    root, journal, _ = setup
    with Operator(root, journal_dir=journal) as op:
        run = op.run(block("w1", "fs.write", path="new/b.txt", content_b64=b64(data)))
        shown = run.item("w1").diff
        run.approve("w1")
        [done] = op.history()
    assert done.change == "create" and done.diff_sha256 is None
    assert done.diff == shown
    assert blobs(journal, root) == {sha(data)}


def test_every_way_of_creating_a_file_keeps_no_diff(setup) -> None:
    root, journal, _ = setup
    ops = [
        {"type": "createFile", "id": "c1", "path": "json.txt", "content": "json\n"},
        {"type": "createFile", "id": "c2", "path": "edited.txt", "content": "model\n"},
    ]
    with Operator(root, journal_dir=journal) as op:
        run = plan(op, json.dumps(ops), "json")
        shown = {item.id: item.diff for item in run.items}
        run.approve("c1")
        run.approve("c2", content=b"person\n")
        shown["c2"] = run.item("c2").diff
        op.write_file("api.txt", b"file api\n")
        entries = op.history()
    assert [e.diff_sha256 for e in entries] == [None, None, None]
    assert [e.diff for e in entries[:2]] == [shown["c1"], shown["c2"]]
    assert "+person" in entries[1].diff and "+file api" in entries[2].diff


def test_diffs_are_kept_for_changes_and_large_creations(setup, monkeypatch) -> None:
    root, journal, _ = setup
    from jupyter_operator.workspace import journal as journal_module

    monkeypatch.setattr("jupyter_operator.engine.mutations.DERIVED_DIFF_BYTES", 10)
    monkeypatch.setattr(journal_module, "DERIVED_DIFF_BYTES", 10)
    with Operator(root, journal_dir=journal) as op:
        op.run(block("w1", "fs.write", path="a.txt", content="changed")).approve("w1")
        op.run(block("w2", "fs.write", path="big.txt", content="x" * 11)).approve("w2")
        changed, big = op.history()
    assert changed.change == "modify" and changed.diff_sha256 is not None
    assert big.change == "create" and big.diff_sha256 is not None and "+xxxxxxxxxxx" in big.diff


def test_a_created_file_whose_bytes_are_lost_shows_no_diff(setup) -> None:
    root, journal, _ = setup
    with Operator(root, journal_dir=journal) as op:
        op.run(block("w1", "fs.write", path="b.txt", content_b64=b64("beta\n"))).approve("w1")
        (journal / root_key(root) / "blobs" / sha(b"beta\n")).unlink()  # a power loss
        [done] = op.history()
    assert done.diff is None
