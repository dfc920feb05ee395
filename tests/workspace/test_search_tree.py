"""fs.searchTree and fs.search: order, skips, limits and truncation flags, line numbers."""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as hs

from jupyter_operator.workspace import Workspace, search_lines
from jupyter_operator.workspace.paths import TEMP_PREFIX
from jupyter_operator.workspace.tree_search import MAX_MATCH_TEXT

from .sandbox import Sandbox


def test_conformance_format_and_order(sandbox: Sandbox, ws: Workspace) -> None:
    sandbox.write("a.txt", "needle\n")
    sandbox.write("sub/b.txt", "x\nneedle here\n")
    sandbox.write("c.txt", "nothing\n")
    sandbox.write("B.txt", "needle twice needle\r\nno\nneedle")
    found = ws.search_tree(".", "needle")
    assert found.matches == [
        ("B.txt", 1, "needle twice needle"),
        ("B.txt", 3, "needle"),
        ("a.txt", 1, "needle"),
        ("sub/b.txt", 2, "needle here"),
    ]
    assert (found.files_scanned, found.files_skipped) == (4, 0)
    assert not found.truncated_matches and not found.truncated_files
    assert ws.search_tree("sub/b.txt", "needle").matches == [("sub/b.txt", 2, "needle here")]
    assert ws.search_tree("sub", "needle").matches == [("sub/b.txt", 2, "needle here")]


def test_skips(sandbox: Sandbox, ws: Workspace) -> None:
    for rel in (".git/config", "node_modules/m/i.js", "__pycache__/x.pyc", ".ipynb_checkpoints/n",
                "sub/.git/HEAD", ".jupyter/cfg.py", f"{TEMP_PREFIX}1.tmp"):  # fmt: skip
        sandbox.write(rel, "needle\n")
    sandbox.write("bin.dat", b"needle\0\n")
    sandbox.write("big.txt", "needle\n" + "x" * 600_000)
    sandbox.write("latin1.txt", b"caf\xe9 needle\n")
    (sandbox.root / "link.txt").symlink_to(sandbox.outside / "secret.txt")
    (sandbox.root / "dirlink").symlink_to(sandbox.outside / "dir", target_is_directory=True)
    os.mkfifo(sandbox.root / "fifo")
    sandbox.write("ok.txt", "needle\n")
    found = ws.search_tree(".", "needle")
    assert [m[0] for m in found.matches] == ["latin1.txt", "ok.txt"]
    assert found.matches[0][2] == "caf\ufffd needle"  # shown, never rewritten
    # bin.dat, big.txt, link.txt, dirlink (a link, not entered), fifo
    assert found.files_skipped == 5
    found = ws.search_tree(".", "SECRET")
    assert found.matches == []


def test_match_limit_flags_only_when_more_exist(sandbox: Sandbox, ws: Workspace) -> None:
    sandbox.write("m.txt", "x\n" * 5)
    exact = ws.search_tree("m.txt", "x", max_matches=5)
    assert len(exact.matches) == 5 and not exact.truncated_matches
    more = ws.search_tree("m.txt", "x", max_matches=4)
    assert len(more.matches) == 4 and more.truncated_matches


def test_file_limit_flags_only_when_more_files_exist(sandbox: Sandbox, ws: Workspace) -> None:
    # The sandbox holds a.txt and sub/b.txt; add one more: three files in all.
    sandbox.write("c.txt", "c\n")
    exact = ws.search_tree(".", "zzz", max_files=3)
    assert exact.files_scanned == 3 and not exact.truncated_files
    cut = ws.search_tree(".", "zzz", max_files=2)
    assert cut.files_scanned == 2 and cut.truncated_files


def test_long_lines_are_cut_and_deep_trees_are_bounded(sandbox: Sandbox) -> None:
    sandbox.write("min.js", "a" * 10_000 + "needle" + "b" * 10_000)
    deep = "/".join(["d"] * 12)
    sandbox.write(f"{deep}/x.txt", "needle\n")
    from jupyter_operator.workspace import Limits

    with Workspace(sandbox.root, limits=Limits(max_search_depth=5)) as ws:
        found = ws.search_tree(".", "needle")
    assert [m[0] for m in found.matches] == ["min.js"]
    assert len(found.matches[0][2]) == MAX_MATCH_TEXT + 3
    with Workspace(sandbox.root) as ws:
        assert len(ws.search_tree(".", "needle").matches) == 2


def test_empty_query_finds_nothing(ws: Workspace) -> None:
    assert ws.search_tree(".", "").matches == []


# -- search_lines (fs.search) ---------------------------------------------------------------


def test_search_lines_exactly_50_is_not_truncated() -> None:
    matches, truncated = search_lines("x\n" * 50, "x")
    assert len(matches) == 50 and matches[-1] == (50, "x") and not truncated
    matches, truncated = search_lines("x\n" * 51, "x")
    assert len(matches) == 50 and truncated


def test_search_lines_crlf_and_one_hit_per_line() -> None:
    assert search_lines("one\r\ntwo two\r\nthree", "t") == ([(2, "two two"), (3, "three")], False)
    assert search_lines("a\x0cb\u2028c\nb", "b") == ([(1, "a\x0cb\u2028c"), (2, "b")], False)


@settings(max_examples=200, deadline=None)
@given(
    hs.lists(hs.text(alphabet="ab\r\t x", max_size=12), max_size=30),
    hs.sampled_from(["a", "b", "ab", "x", " "]),
)
def test_search_lines_matches_a_naive_scan(lines: list[str], query: str) -> None:
    text = "\n".join(lines)
    expected = []
    for n, line in enumerate(text.split("\n"), 1):
        shown = line[:-1] if line.endswith("\r") else line
        if query in line:
            expected.append((n, shown))
    matches, truncated = search_lines(text, query, limit=10)
    assert matches == expected[:10]
    assert truncated == (len(expected) > 10)


def test_unreadable_files_are_skipped_not_fatal(
    sandbox: Sandbox, ws: Workspace, monkeypatch
) -> None:
    import errno

    from jupyter_operator.workspace import tree_search

    sandbox.write("locked.txt", "alpha\n")
    real_open = os.open

    def deny_locked(path, flags, *args, **kwargs):
        if path == "locked.txt":
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(tree_search.os, "open", deny_locked)
    found = ws.search_tree(".", "alpha")
    assert [m[0] for m in found.matches] == ["a.txt"]
    assert found.files_skipped == 1


def test_a_file_that_grew_after_fstat_is_read_on_within_the_limit(tmp_path, monkeypatch) -> None:
    import stat

    (tmp_path / "a.txt").write_text("x" * 100 + "\nneedle here\n")
    real = os.fstat

    def seen_small(fd: int) -> os.stat_result:  # as if the file grew after fstat
        info = real(fd)
        if not stat.S_ISREG(info.st_mode):
            return info
        fields = list(info)
        fields[stat.ST_SIZE] = 10
        return os.stat_result(fields)

    monkeypatch.setattr(os, "fstat", seen_small)
    ws = Workspace(tmp_path)
    found = ws.search_tree(".", "needle", max_file_size=1000)
    assert [(m[0], m[1]) for m in found.matches] == [("a.txt", 2)]
    found = ws.search_tree(".", "needle", max_file_size=50)  # grew past the limit: skipped
    assert found.matches == [] and found.files_skipped == 1


def test_protected_names_are_skipped_with_and_without_the_first_character_test(
    sandbox: Sandbox,
) -> None:
    # [".ssh", "1secret"]: every name that can match starts with "." or "1" (the fast test);
    # adding "*.pem" makes every name go through the full match.
    for rel in (".SSH/id", "sub/1SECRET", "sub/.Ssh./k", "ok/a.pem", "ok/x.txt"):
        sandbox.write(rel, "needle\n")
    for patterns, shown in (
        ([".ssh", "1secret"], ["ok/a.pem", "ok/x.txt"]),
        ([".ssh", "1secret", "*.pem"], ["ok/x.txt"]),
    ):
        with Workspace(sandbox.root, protected=patterns) as ws:
            assert [m[0] for m in ws.search_tree(".", "needle").matches] == shown
