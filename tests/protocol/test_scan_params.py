"""The typed parameters each action gets after validation."""

from __future__ import annotations

from dataclasses import MISSING, fields

import pytest

from jupyter_operator.protocol import (
    ApplyEdits,
    Command,
    GetCommentStyle,
    GetInterfaceSpec,
    InsertAfter,
    InsertRegion,
    ListRegions,
    Patch,
    ReadSlice,
    ReplaceRange,
    ScanError,
    Search,
    SearchTree,
    StyleOverride,
    Write,
    codes,
    scan,
)
from jupyter_operator.protocol._models import PARAMS_BUILDERS, PARAMS_BY_ACTION, new_command

from .helpers import b64, cmd


def params(reply: str) -> object:
    (item,) = scan(reply).items
    assert isinstance(item, Command), item
    return item.params


def error_code(reply: str) -> str:
    (item,) = scan(reply).items
    assert isinstance(item, ScanError), item
    return item.code


@pytest.mark.parametrize(
    ("extra", "start", "lines"),
    [
        ((), 1, 120),
        (("from: 2", "len: 1"), 2, 1),
        (("line: 3", "count: 1"), 3, 1),
        (("start: 2", "line: 3", "from: 4", "lines: 1", "count: 9"), 2, 1),
        (("lines: 401",), 1, 400),
        (("lines: 99999999999999999999999999",), 1, 400),
        (("start: 007",), 7, 120),
    ],
)
def test_read_slice_aliases_precedence_and_clamp(extra: tuple[str, ...], start: int, lines: int):
    p = params(cmd("rs", "fs.readSlice", *extra, path="t.txt"))
    assert p == ReadSlice(path="t.txt", start=start, lines=lines)


@pytest.mark.parametrize("bad", ["start: 0", "lines: 0", "start: -3", "len: 1.5", "from: 1e3"])
def test_read_slice_rejects_non_positive_integers(bad: str) -> None:
    assert error_code(cmd("rs", "fs.readSlice", bad, path="t.txt")) == (
        codes.ERR_INVALID_READSLICE_PARAMS
    )


def test_search_query_and_q_alias() -> None:
    p = params(cmd("s", "fs.search", "q: hre", path="t.txt"))
    assert p == Search(path="t.txt", query="hre")
    p = params(cmd("s", "fs.searchTree", "query: a b", "q: c", path="."))
    assert p == SearchTree(path=".", query="a b")


def test_write_prefers_content_b64_and_allows_empty_content() -> None:
    payload = b64("A\nB")
    p = params(cmd("w", "fs.write", "content: x", f"content_b64: {payload}", path="a"))
    assert p == Write(path="a", content="A\nB")
    assert params(cmd("w", "fs.write", "content:", path="a")) == Write(path="a", content="")
    assert error_code(cmd("w", "fs.write", "content_b64:", path="a")) == codes.ERR_INVALID_BASE64


def test_base64_fields_are_checked_on_any_action() -> None:
    assert error_code(cmd("r", "fs.read", "patch_b64: ###", path="a")) == codes.ERR_INVALID_BASE64


def test_patch_is_decoded() -> None:
    diff = "@@ -1 +1 @@\n-a\n+b\n"
    assert params(cmd("p", "fs.patch", f"patch_b64: {b64(diff)}", path="f")) == Patch(
        path="f", patch=diff
    )


def test_apply_edits_are_typed_models() -> None:
    doc = (
        '{"version":1,"edits":[{"op":"insertAfter","anchor":"A","text":"X"},'
        '{"op":"replaceRange","startLine":2,"endLine":3,"text":"Y"}]}'
    )
    p = params(cmd("e", "fs.applyEdits", f"edits_b64: {b64(doc)}", path="n"))
    assert isinstance(p, ApplyEdits)
    assert p.edits == (
        InsertAfter(anchor="A", text="X", occurrence=1),
        ReplaceRange(start_line=2, end_line=3, text="Y"),
    )
    assert [e.op for e in p.edits] == ["insertAfter", "replaceRange"]


def test_insert_region_defaults_and_style_override() -> None:
    p = params(
        cmd(
            "ir",
            "fs.insertRegion",
            "marker_id: r2",
            "anchor: print(x)",
            f"content_b64: {b64('pass')}",
            "comment_line_prefix: //",
            path="a.py",
        )
    )
    assert p == InsertRegion(
        path="a.py",
        marker_id="r2",
        anchor="print(x)",
        content="pass",
        position="after",
        occurrence=1,
        style=StyleOverride(line_prefix="//"),
    )


def test_explicit_comment_fields_win_over_an_unknown_language() -> None:
    p = params(cmd("lr", "fs.listRegions", "language: json", "comment_line_prefix: //", path="a"))
    assert p == ListRegions(path="a", style=StyleOverride(line_prefix="//", language="json"))


def test_operator_actions() -> None:
    assert params(cmd("i", "operator.getInterfaceSpec")) == GetInterfaceSpec()
    p = params(cmd("c", "operator.getCommentStyle", "language: TypeScript"))
    assert p == GetCommentStyle(language="TypeScript")
    assert params(cmd("c", "operator.getCommentStyle")) == GetCommentStyle(language=None)
    assert error_code(cmd("c", "operator.getCommentStyle", "language: cobol")) == (
        codes.ERR_UNKNOWN_LANGUAGE
    )


@pytest.mark.parametrize(
    "action",
    ["fs.list", "fs.read", "fs.stat", "fs.delete", "fs.readRegion", "fs.deleteRegion"],
)
def test_params_action_matches_command_action(action: str) -> None:
    extra = ("marker_id: r1",) if "Region" in action else ()
    (item,) = scan(cmd("a", action, *extra, path="x.py")).items
    assert isinstance(item, Command)
    assert type(item.params).action == item.action == action
    assert item.params.path == "x.py"  # type: ignore[union-attr]


@pytest.mark.parametrize("action", sorted(PARAMS_BY_ACTION))
def test_slot_builders_make_what_the_constructors_make(action: str) -> None:
    cls = PARAMS_BY_ACTION[action]
    required = {f.name: f"v-{f.name}" for f in fields(cls) if f.default is MISSING}
    every = {f.name: f"w-{f.name}" for f in fields(cls)}
    for values in (required, every):
        built = PARAMS_BUILDERS[action](values)
        assert type(built) is cls and built == cls(**values)
    command = new_command("i", action, "p", 3, {"k": "v"}, cls(**required))
    assert command == Command(
        id="i", action=action, path="p", line=3, fields={"k": "v"}, params=cls(**required)
    )
