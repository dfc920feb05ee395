"""Scanning the notebook cell actions (nb.*): on only when the host enables them, fields checked."""

from __future__ import annotations

import pytest
from support.replies import b64, block

from jupyter_operator.protocol import (
    Command,
    DeleteCell,
    InsertCell,
    MoveCell,
    ReadCells,
    ReplaceCell,
    ScanError,
    codes,
    scan,
)

ON = ("nb",)


def scanned(action: str, *, extensions: tuple[str, ...] = ON, **fields: str) -> Command | ScanError:
    [item] = scan(block("c1", action, **fields), extensions=extensions).items
    return item


def fault(action: str, **fields: str) -> tuple[str, str]:
    item = scanned(action, **fields)
    assert isinstance(item, ScanError), item
    return item.code, item.message


def test_each_action_gives_its_parameters_with_the_notebook_as_path() -> None:
    read = scanned("nb.readCells", notebook="a.ipynb")
    assert isinstance(read, Command) and read.path == "a.ipynb"
    assert read.params == ReadCells(path="a.ipynb", start_index=0, count=50)
    insert = scanned("nb.insertCell", notebook="a.ipynb", index="2", content_b64=b64("a\nb"))
    assert insert.params == InsertCell(path="a.ipynb", index=2, cell_type="code", content="a\nb")
    replace = scanned("nb.replaceCell", notebook="a.ipynb", cell_id="x-1_Y", cell_type="raw",
                      content="")  # fmt: skip
    assert replace.params == ReplaceCell(path="a.ipynb", cell_id="x-1_Y", index=None,
                                         content="", cell_type="raw")  # fmt: skip
    delete = scanned("nb.deleteCell", notebook="a.ipynb", index="0")
    assert delete.params == DeleteCell(path="a.ipynb", cell_id=None, index=0)
    move = scanned("nb.moveCell", notebook="a.ipynb", cell_id="c", index="3", to_index="0")
    assert move.params == MoveCell(path="a.ipynb", cell_id="c", index=3, to_index=0)


def test_read_cells_count_is_clamped_like_read_slice_lines() -> None:
    item = scanned("nb.readCells", notebook="a.ipynb", start_index="5", count="9999")
    assert (item.params.start_index, item.params.count) == (5, 200)


@pytest.mark.parametrize(("action", "fields", "words"), [
    ("nb.readCells", {}, "notebook is required"),
    ("nb.readCells", {"notebook": "a.ipynb", "count": "0"}, "count must be a whole number >= 1"),
    ("nb.readCells", {"notebook": "a.ipynb", "start_index": "-1"}, "start_index must be"),
    ("nb.insertCell", {"notebook": "a.ipynb", "content": "x"}, "index is required"),
    ("nb.insertCell", {"notebook": "a.ipynb", "index": "1.5", "content": "x"}, "index must be"),
    ("nb.insertCell", {"notebook": "a.ipynb", "index": "0", "cell_type": "sql", "content": "x"},
     "cell_type must be code, markdown or raw"),
    ("nb.replaceCell", {"notebook": "a.ipynb", "content": "x"}, "cell_id is required"),
    ("nb.replaceCell", {"notebook": "a.ipynb", "cell_id": "a b", "content": "x"},
     "cell_id must be 1-64"),
    ("nb.deleteCell", {"notebook": "a.ipynb", "cell_id": "x" * 65}, "cell_id must be 1-64"),
    ("nb.moveCell", {"notebook": "a.ipynb", "cell_id": "c"}, "to_index is required"),
    ("nb.moveCell", {"notebook": "a.ipynb", "cell_id": "c", "to_index": "0x1"}, "to_index must"),
])  # fmt: skip
def test_malformed_fields(action: str, fields: dict[str, str], words: str) -> None:
    code, message = fault(action, **fields)
    assert code == codes.ERR_INVALID_CELL_PARAMS and words in message


def test_a_source_is_required_and_its_base64_checked() -> None:
    code, message = fault("nb.insertCell", notebook="a.ipynb", index="0")
    assert code == codes.ERR_MISSING_CONTENT_B64 and "content_b64" in message
    code, _ = fault("nb.replaceCell", notebook="a.ipynb", cell_id="c", content_b64="!!")
    assert code == codes.ERR_INVALID_BASE64


def test_a_path_field_is_refused_as_rule_10_says() -> None:
    on = scanned("nb.readCells", path="a.ipynb")
    off = scanned("nb.readCells", extensions=(), path="a.ipynb")
    assert on.code == off.code == codes.ERR_ACTION_FORBIDS_PATH
    assert "notebook:" in on.message and off.message == "non-fs actions must not include path."


@pytest.mark.parametrize("action", ["nb.readCells", "nb.insertCell", "nb.moveCell"])
def test_off_they_are_unknown_actions_exactly_as_any_other(action: str) -> None:
    off = scanned(action, extensions=(), notebook="a.ipynb", index="0")
    other = scanned("nb.frobnicate", notebook="a.ipynb", index="0")  # enabled, but no such action
    assert off.code == other.code == codes.ERR_UNKNOWN_ACTION
    assert off.message == f"Unknown action: {action}. Use one of the spec's actions."


def test_an_unknown_extension_name_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown extension 'cells'"):
        scan("", extensions=("cells",))


@pytest.mark.parametrize("action", ["nb.readCells", "nb.runCell", "nb.restartKernel",
                                    "nb.rebuildState", "nb.deleteCell", "nb.moveCell"])  # fmt: skip
def test_a_content_field_on_an_action_without_content_is_ignored(action: str) -> None:
    """``content_b64`` is checked as base64, then ignored like any field the action does not
    take (it never reaches a parameter model that has no ``content``)."""
    item = scanned(action, notebook="nb.ipynb", cell_id="c1", to_index="0",
                   content_b64=b64("x = 1"))  # fmt: skip
    assert isinstance(item, Command) and not hasattr(item.params, "content")
    assert fault(action, notebook="nb.ipynb", cell_id="c1", to_index="0",
                 content_b64="not base64!")[0] == codes.ERR_INVALID_BASE64  # fmt: skip


def test_every_field_on_every_action_scans_without_an_exception() -> None:
    from support.cell_runs import every_action, every_field_reply, spec_fields

    items = scan(every_field_reply(), extensions=ON).items
    assert len(items) == len(every_action()) * (len(spec_fields()) + 1)


@pytest.mark.parametrize(("text", "seconds", "asked"), [
    ("30", 30.0, None), ("2.5", 2.5, None), ("600", 600.0, None), ("0600.0", 600.0, None),
    ("601", 600.0, "601"), ("1000", 600.0, "1000"), ("86400.5", 600.0, "86400.5"),
    ("9" * 60, 600.0, "9" * 40 + "..."),
])  # fmt: skip
def test_a_timeout_above_the_maximum_is_clamped_and_kept_as_asked(
    text: str, seconds: float, asked: str | None
) -> None:
    item = scanned("nb.runCell", notebook="nb.ipynb", cell_id="c1", timeout_s=text)
    assert isinstance(item, Command), item
    assert (item.params.timeout_s, item.params.timeout_asked) == (seconds, asked)


@pytest.mark.parametrize(("text", "says"), [
    ("0", "> 0"), ("0.0", "> 0"), ("-5", "such as 30 or 2.5, at most 600"),
    ("1e5", "such as 30 or 2.5"), ("ten", "such as 30 or 2.5"),
])  # fmt: skip
def test_a_timeout_that_is_not_a_positive_number_says_what_is_wanted(text: str, says: str) -> None:
    code, message = fault("nb.runCell", notebook="nb.ipynb", cell_id="c1", timeout_s=text)
    assert code == codes.ERR_INVALID_CELL_PARAMS and says in message
