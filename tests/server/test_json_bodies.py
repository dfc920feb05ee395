"""The JSON body check: lone surrogates anywhere in a body are found, and nothing else is."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as hs

from jupyter_operator.server.json_bodies import holds_lone_surrogate

# Text with every kind of character, lone surrogates included (categories Cs).
TEXT = hs.text(hs.characters(codec=None), max_size=12)
JSON = hs.recursive(
    hs.none() | hs.booleans() | hs.integers() | TEXT,
    lambda inner: hs.lists(inner, max_size=4) | hs.dictionaries(TEXT, inner, max_size=4),
    max_leaves=20,
)


def _encodes(data: object) -> bool:
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@settings(max_examples=400, deadline=None)
@given(JSON)
def test_agrees_with_encoding_the_whole_body(data: object) -> None:
    assert holds_lone_surrogate(data) is not _encodes(data)


def test_finds_one_in_a_key_deep_in_lists() -> None:
    assert holds_lone_surrogate({"a": [[{"ok": 1, "\udc80": 2}]]})
    assert holds_lone_surrogate(["x", ["é", "\ud800"]])
    assert not holds_lone_surrogate({"text": "\U0001f600 \ud55c \\ud800", "n": [1, None, True]})
