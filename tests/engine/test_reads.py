"""Read actions through the engine: the exact output formats a model reads, and their bounds.

These pin the formats with the project's own expectations (docs/protocol.md, "Actions"), so they
hold whatever the shared conformance cases say.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.replies import block

from jupyter_operator.engine import Policy
from jupyter_operator.engine.reads import MAX_LINE_CHARS, REPLY_OUTPUT_BUDGET
from jupyter_operator.protocol import codes


@pytest.fixture
def files(root: Path) -> Path:
    (root / "sub" / "deep").mkdir(parents=True)
    (root / "a.txt").write_bytes(b"alpha\r\nbeta\r\ngamma\r\n")
    (root / "sub" / "b.py").write_text("x = 1\n# needle here\n")
    (root / "sub" / "deep" / "c.md").write_text("needle\n")
    return root


def read(make_operator, action: str, **fields: str):  # type: ignore[no-untyped-def]
    [item] = make_operator().run(block("r1", action, **fields)).items
    return item


def test_list_format(files: Path, make_operator) -> None:
    item = read(make_operator, "fs.list", path=".")
    assert (item.summary, item.details) == ("Listed 2 entries", "a.txt\n[DIR] sub")


def test_read_returns_the_text_exactly(files: Path, make_operator) -> None:
    item = read(make_operator, "fs.read", path="a.txt")
    assert (item.summary, item.details) == ("Read file", "alpha\r\nbeta\r\ngamma\r\n")
    (files / "empty.txt").write_text("")
    assert read(make_operator, "fs.read", path="empty.txt").summary == "Read file (empty)"


def test_read_slice_format(files: Path, make_operator) -> None:
    item = read(make_operator, "fs.readSlice", path="a.txt", start="2", lines="5")
    assert item.summary == "Read slice (2-3)"
    assert item.details == "# a.txt\n# lines 2-3 of 3\n\n     2: beta\n     3: gamma"
    past = read(make_operator, "fs.readSlice", path="a.txt", start="9")
    assert past.summary == "Read slice (past the end: 3 lines)"
    assert past.details == "# a.txt\n# lines: past the end (start 9; the file has 3 lines)\n"


def test_search_format(files: Path, make_operator) -> None:
    item = read(make_operator, "fs.search", path="sub/b.py", query="needle")
    assert item.summary == "Search found 1 matches"
    header = "# search in sub/b.py\n# query: needle\n# matches: 1\n\n"
    assert item.details == header + "     2: # needle here"


def test_search_tree_format(files: Path, make_operator) -> None:
    item = read(make_operator, "fs.searchTree", path=".", query="needle")
    assert item.summary == "SearchTree found 2 matches"
    assert item.details == (
        "# searchTree in .\n# query: needle\n# matches: 2\n# files scanned: 3\n\n"
        "sub/b.py:2: # needle here\nsub/deep/c.md:1: needle"
    )


def test_stat_format(files: Path, make_operator) -> None:
    details = json.loads(read(make_operator, "fs.stat", path="a.txt").details)
    assert set(details) == {"path", "size", "isFile", "isDir", "mtimeMs", "ctimeMs"}
    assert (details["path"], details["size"], details["isFile"], details["isDir"]) == (
        "a.txt", 20, True, False
    )  # fmt: skip


def test_region_formats(root: Path, make_operator) -> None:
    (root / "m.py").write_text("a\n# OPERATOR_BEGIN r1\nbody\n# OPERATOR_END r1\n")
    listed = json.loads(read(make_operator, "fs.listRegions", path="m.py").details)
    assert len(listed["regions"]) == 1 and "r1" in json.dumps(listed)
    item = read(make_operator, "fs.readRegion", path="m.py", marker_id="r1")
    assert (item.summary, item.details) == ("Read region r1", "body\n")


def test_a_failed_read_has_its_code_and_no_details(files: Path, make_operator) -> None:
    item = read(make_operator, "fs.readSlice", path="sub")
    assert (item.status, item.error_code, item.details) == ("failed", codes.ERR_NOT_A_FILE, None)


# -- bounds -----------------------------------------------------------------------------------


def test_sixty_slices_of_a_one_line_file_stay_small(root: Path, make_operator) -> None:
    (root / "min.js").write_text("v" * 1_900_000)
    reply = "\n".join(block(f"s{i}", "fs.readSlice", path="min.js") for i in range(60))
    run = make_operator().run(reply)
    assert [i.status for i in run.items] == ["done"] * 60
    marker = " [line cut: 1898000 more characters]"
    for item in run.items:
        assert item.details.endswith("     1: " + "v" * MAX_LINE_CHARS + marker)
    total = sum(len(item.details.encode()) for item in run.items)
    assert total == run.budget.used < 60 * (MAX_LINE_CHARS + 100) < REPLY_OUTPUT_BUDGET


def test_search_cuts_long_lines_too(root: Path, make_operator) -> None:
    (root / "min.js").write_text("a" * 3000 + "needle" + "b" * 3000 + "\nshort needle\n")
    run = make_operator().run(block("f1", "fs.search", path="min.js", query="needle"))
    lines = run.items[0].details.splitlines()[-2:]
    assert lines == [
        "     1: " + "a" * MAX_LINE_CHARS + " [line cut: 4006 more characters]",
        "     2: short needle",
    ]


def test_reads_past_the_reply_budget_answer_with_a_code(root: Path, make_operator) -> None:
    (root / "big.txt").write_text("y" * 199_000)
    fit = REPLY_OUTPUT_BUDGET // 199_000  # 42 whole reads fit
    reply = "\n".join(block(f"r{i}", "fs.read", path="big.txt") for i in range(fit + 3))
    run = make_operator(policy=Policy(auto=frozenset())).run(reply)  # reads wait for a person
    decided = run.approve_all()
    assert [d.outcome for d in decided] == ["applied"] * fit + ["failed"] * 3
    over = run.items[fit]
    assert over.error_code == codes.ERR_OUTPUT_BUDGET and over.details is None
    assert over.summary.startswith("Invalid OPERATOR_CMD (ERR_OUTPUT_BUDGET): the reads of this")
    assert "(199000 bytes) is not shown" in over.summary
    assert run.budget.used == fit * 199_000 <= REPLY_OUTPUT_BUDGET
    # The budget belongs to the reply: the next reply starts afresh.
    (root / "small.txt").write_text("z")
    assert make_operator().run(block("r0", "fs.read", path="small.txt")).items[0].ok
