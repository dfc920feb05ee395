"""The stream block tracker: complete blocks as they close, open blocks at the end."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.replies import block

from jupyter_operator.agent.block_tracker import BlockTracker

REPLY = "intro\n" + block("a", "fs.stat", path="x") + "\nmid\n  " + block("b", "fs.list", path=".")


def feed_all(text: str, size: int) -> tuple[list[str], BlockTracker]:
    tracker = BlockTracker()
    found = []
    for i in range(0, len(text), size):
        found += [b.text for b in tracker.feed(text[i : i + size])]
    found += [b.text for b in tracker.finish()]
    return found, tracker


@pytest.mark.parametrize("size", [1, 3, 7, 64, 10_000])
def test_blocks_are_found_whatever_the_chunking(size: int) -> None:
    found, tracker = feed_all(REPLY, size)
    assert len(found) == 2
    assert found[0].startswith("OPERATOR_CMD") and "id: a" in found[0]
    assert found[1].lstrip().startswith("OPERATOR_CMD") and found[1].endswith("END_OPERATOR_CMD")
    assert tracker.open_block_start is None


def test_a_block_is_reported_when_its_end_line_completes() -> None:
    tracker = BlockTracker()
    assert tracker.feed(block("a", "fs.stat", path="x")[:-3]) == []
    assert [b.index for b in tracker.feed("CMD\n")] == [0]


def test_an_open_block_is_located() -> None:
    text = "prose\n" + block("a", "fs.stat", path="x").removesuffix("END_OPERATOR_CMD")
    _found, tracker = feed_all(text, 5)
    assert tracker.open_block_start == len("prose\n")
    _found, tracker = feed_all("prose\nOPERATOR_CMD", 4)  # cut right after the marker
    assert tracker.open_block_start == len("prose\n")


def test_a_start_inside_a_block_opens_a_new_one() -> None:
    text = "OPERATOR_CMD\nid: outer\n" + block("inner", "fs.stat", path="x")
    found, _ = feed_all(text, 8)
    assert len(found) == 1 and "id: inner" in found[0] and "outer" not in found[0]


def test_prose_mentioning_the_marker_is_not_a_block() -> None:
    found, tracker = feed_all("I will write an OPERATOR_CMD block next.\n", 3)
    assert found == [] and tracker.open_block_start is None


@given(st.text(alphabet="OPERATOR_CMDEN \n:ab", max_size=200), st.integers(1, 20))
def test_chunking_never_changes_the_result(text: str, size: int) -> None:
    whole, t1 = feed_all(text, max(1, len(text)))
    parts, t2 = feed_all(text, size)
    assert whole == parts
    assert t1.open_block_start == t2.open_block_start


def prose_of(text: str, size: int) -> str:
    from jupyter_operator.agent.block_tracker import ProseFilter

    prose = ProseFilter()
    return "".join(prose.feed(text[i : i + size]) for i in range(0, len(text), size))


@pytest.mark.parametrize("size", [1, 2, 5, 64, 10_000])
def test_prose_leaves_out_the_blocks(size: int) -> None:
    assert prose_of(REPLY, size) == "intro\nmid\n"
    assert prose_of("OP\nOPERATOR\nEND_\n  x\n", size) == "OP\nOPERATOR\nEND_\n  x\n"


def test_prose_shows_the_first_words_at_once() -> None:
    from jupyter_operator.agent.block_tracker import ProseFilter

    prose = ProseFilter()
    assert prose.feed("Sur") == "Sur"
    assert prose.feed("e.\nOPER") == "e.\n"
    assert prose.feed("ATOR_CMD\nid: x\n") == ""


def test_a_very_long_line_streams_in_linear_time() -> None:
    from jupyter_operator.agent.block_tracker import ProseFilter

    prose = ProseFilter()
    shown = sum(len(prose.feed("y" * 16)) for _ in range(200_000))  # 3.2 MB, one line
    assert shown == 3_200_000
    assert len(prose._head) == 16  # only the start of the line is kept


@given(st.text(alphabet="OPERATOR_CMDEN \n:ab", max_size=200), st.integers(1, 20))
def test_prose_does_not_depend_on_chunking(text: str, size: int) -> None:
    assert prose_of(text, size) == prose_of(text, max(1, len(text)))
