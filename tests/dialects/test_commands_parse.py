"""The pure parts of the commands dialect: scripts, bodies, variables, flags, blocks, rendering."""

from __future__ import annotations

import pytest

from jupyter_operator.dialects import DIALECTS, detect, module
from jupyter_operator.dialects.commands import heading_blocks as blocks
from jupyter_operator.dialects.commands import responses
from jupyter_operator.dialects.commands.parse import (
    CommandError,
    expand,
    parse_flags,
    parse_script,
    parse_set,
    split_address,
)


def shape(text: str) -> list[tuple[str, str, str | None]]:
    return [(r.name, r.arg, r.body) for r in parse_script(text)]


# -- scripts and bodies -------------------------------------------------------------------------
def test_one_command_per_line_and_bash_lines() -> None:
    assert shape("/open a.md\n\n  /ls docs  \n$ ls -la\npython x.py\n") == [
        ("open", "a.md", None), ("ls", "docs", None), ("bash", "ls -la", None),
        ("bash", "python x.py", None),
    ]  # fmt: skip


def test_bodies_end_at_end_or_the_next_command() -> None:
    text = (
        "/write a.md\nline 1\n\n/usr/bin/env is text\n// so is this\n\n"
        "/open a.md\n/edit b.md\n/end\n"
    )
    assert shape(text) == [
        ("write", "a.md", "line 1\n\n/usr/bin/env is text\n// so is this\n"),
        ("open", "a.md", None),
        ("edit", "b.md", ""),  # /end right away: an empty body (replace with nothing)
    ]


def test_a_body_kept_to_end_keeps_its_blank_lines() -> None:
    assert shape("/append a.md\nx\n\n/end")[0][2] == "x\n\n"


def test_edit_without_body_is_a_view() -> None:
    assert shape("/edit a.md\n/open a.md") == [("edit", "a.md", None), ("open", "a.md", None)]


def test_heredoc_bodies_are_literal() -> None:
    text = "/write a.md <<EOF\n/open x\n/end\nEOF\n/ls"
    assert shape(text) == [("write", "a.md", "/open x\n/end\n"), ("ls", "", None)]
    assert shape("/write a.md <<EOF\nno end")[0][0] == "!malformed"


def test_request_ids_and_echo() -> None:
    (request,) = parse_script("  [r-1] /open a.md#Setup  ")
    assert (request.request_id, request.echo, request.line) == ("r-1", "/open a.md#Setup", 1)
    assert [r.line for r in parse_script("\n/ls\n\n/info")] == [2, 4]


def test_crlf_scripts() -> None:
    assert shape("/write a.md\r\nx\r\n/end\r\n") == [("write", "a.md", "x\n")]


# -- variables, /set, addresses, flags ----------------------------------------------------------
def test_expand_replaces_known_names_only() -> None:
    assert expand("/open {d}/{f}#{x}", {"d": "docs", "f": "a.md"}) == "/open docs/a.md#{x}"


@pytest.mark.parametrize(("arg", "expected"), [
    ('{name} = "value"', ("name", "value")),
    ("name=value", ("name", "value")),
    ('{n} = "two\\nlines \\"q\\""', ("n", 'two\nlines "q"')),
    ("{n} =", ("n", "")),
])  # fmt: skip
def test_parse_set(arg: str, expected: tuple[str, str]) -> None:
    assert parse_set(arg) == expected


@pytest.mark.parametrize("arg", ["= 1", "{1x} = 2", '{a} = "x', '{a} = "1" 2'])
def test_parse_set_refuses(arg: str) -> None:
    with pytest.raises(CommandError) as info:
        parse_set(arg)
    assert info.value.code == "USAGE"


def test_split_address() -> None:
    assert split_address("a.md#Getting Started") == ("a.md", "Getting Started")
    assert split_address("a.md") == ("a.md", None)
    with pytest.raises(CommandError):
        split_address("a.md#  ")


def test_parse_flags() -> None:
    assert parse_flags('--file "my answers.md" --strict --n=3') == {
        "file": "my answers.md", "strict": True, "n": "3",
    }  # fmt: skip
    for bad in ("file", "--x 'open", "-x"):
        with pytest.raises(CommandError):
            parse_flags(bad)


# -- blocks -------------------------------------------------------------------------------------
DOC = """\
# Top
intro
## Setup
a
### Linux
```
# not a heading
```
### Mac
b
## Install
c
Other
=====
## Install
d
"""


def test_blocks_nest_and_skip_fenced_code() -> None:
    found = [(b.title, b.level, b.start, b.end, b.slug) for b in blocks.blocks(DOC)]
    assert found == [
        ("Top", 1, 0, 12, "top"), ("Setup", 2, 2, 10, "setup"), ("Linux", 3, 4, 8, "linux"),
        ("Mac", 3, 8, 10, "mac"), ("Install", 2, 10, 12, "install"),
        ("Other", 1, 12, 16, "other"), ("Install", 2, 14, 16, "install-1"),
    ]  # fmt: skip


@pytest.mark.parametrize(("address", "start"), [
    ("setup", 2), ("Setup", 2), ("SETUP", 2), ("install-1", 14), ("install", 10),
    ("Top/Install", 10), ("Other/Install", 14), ("other/install", 14), ("Top/Setup/Mac", 8),
])  # fmt: skip
def test_find_by_slug_title_or_path(address: str, start: int) -> None:
    assert blocks.find(DOC, address).start == start


@pytest.mark.parametrize(("address", "code"), [
    ("Install", "AMBIGUOUS"), ("Nope", "NOT_FOUND"), ("Setup/Install", "NOT_FOUND"),
    ("not a heading", "NOT_FOUND"),
])  # fmt: skip
def test_find_refuses(address: str, code: str) -> None:
    with pytest.raises(CommandError) as info:
        blocks.find(DOC, address, "doc.md")
    assert info.value.code == code


def test_slugify_like_github() -> None:
    assert blocks.slugify("Getting Started: v2.0!") == "getting-started-v20"
    assert blocks.slugify("Über Café") == "über-café"


# -- responses ----------------------------------------------------------------------------------
def test_response_shapes() -> None:
    assert responses.body("Opened a.md", "x\n") == "Opened a.md\n---\nx"
    assert responses.body("Closed: a.md") == "Closed: a.md"
    assert responses.error_body("NOT_FOUND", "a\nb") == "ERROR(NOT_FOUND): a\\nb"
    assert responses.header("1", "/open a\tb\nc") == "re: [1] /open a b\\nc"
    assert responses.numbered(["a", "b"], 9) == "   9 | a\n  10 | b"
    assert responses.preview([str(n) for n in range(10)], 3) == "0\n1\n2\n... (7 more lines)"
    assert responses.readable("a\r\n\n\n\nb\u202e\n") == "a\n\nb\\u202e"


# -- rendering for the notebook -----------------------------------------------------------------
def test_registry_and_detect() -> None:
    assert set(DIALECTS) >= {"operator", "commands"}
    assert module("commands").NAME == "commands"
    with pytest.raises(ValueError, match="unknown dialect"):
        module("klingon")
    assert detect("/open notes.md\n/ls") == "commands"
    assert detect("\n  [r1] /ls") == "commands"
    assert detect("Here is my plan.\n/open notes.md") == "operator"
    assert detect("/open a\nOPERATOR_CMD\n") == "operator"


def test_every_dialect_code_is_documented() -> None:
    from pathlib import Path

    from jupyter_operator.dialects.commands import codes

    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text("utf-8")
    missing = [code for code in codes.DIALECT_CODES if f"| `{code}` |" not in doc]
    assert not missing, missing
