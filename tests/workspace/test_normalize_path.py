"""``normalize_path``: the Editor File API's lexical path rule (``parse_path`` stays stricter)."""

from __future__ import annotations

import posixpath

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_operator.protocol import OperatorError, codes
from jupyter_operator.workspace import normalize_path, parse_path


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("a/../b.txt", "b.txt"),
        ("./a/./b", "a/b"),
        ("a//b/", "a/b"),
        ("a/b/../../c", "c"),
        ("a/..", "."),
        (".", "."),
        ("a\\..\\b", "b"),
        ("x/../.git", ".git"),  # protected paths are the workspace's business, later
    ],
)
def test_normalises(path: str, expected: str) -> None:
    assert normalize_path(path) == expected


@pytest.mark.parametrize(
    "path",
    ["", "..", "../a", "a/../../x", "a/b/../../..", "/a/../b", "\\a", "a\x00/../b", "a\u202e/../b"],
)
def test_refuses(path: str) -> None:
    with pytest.raises(OperatorError) as info:
        normalize_path(path)
    assert info.value.code == codes.ERR_PATH_ESCAPE
    assert path not in info.value.message or path == ""


def test_length_is_counted_in_characters_before_normalising() -> None:
    assert normalize_path("\u00e9" * 4096) == "\u00e9" * 4096
    with pytest.raises(OperatorError, match="4096 characters"):
        normalize_path("a" * 4097)
    with pytest.raises(OperatorError, match="4096 characters"):
        normalize_path("x/../" * 820)


def test_the_operator_protocol_keeps_refusing_dot_dot() -> None:
    with pytest.raises(OperatorError, match=r"'\.\.'"):
        parse_path("a/../b.txt")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "..", ".", ""]), min_size=1, max_size=8))
def test_agrees_with_posix_normpath_or_refuses(parts: list[str]) -> None:
    path = "/".join(parts)
    depth, escapes = 0, False
    for comp in parts:
        depth += -1 if comp == ".." else comp not in ("", ".")
        escapes = escapes or depth < 0
    if not path or path.startswith("/") or escapes:
        with pytest.raises(OperatorError):
            normalize_path(path)
        return
    result = normalize_path(path)
    assert result == posixpath.normpath(path)
    assert ".." not in result.split("/")
