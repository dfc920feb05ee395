"""``normalize_path``: the Editor File API's lexical path rule (``parse_path`` stays stricter)."""

from __future__ import annotations

import pytest

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
