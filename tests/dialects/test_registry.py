"""The dialect registry and detection."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from jupyter_operator import dialects
from jupyter_operator.dialects import _FENCED_JSON, _has_fenced_json, detect


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"type": "createFile", "path": "a", "content": ""}', "json"),
        ('[{"type": "message", "content": "x"}]', "json"),
        ('{"operations": []}', "json"),
        ('{"id": "s1", "type": "shell", "command": "ls"}', "json"),
        ('Sure:\n```json\n{"type": "message", "content": "x"}\n```', "json"),
        ("OPERATOR_CMD\nversion: 1\nid: a\naction: fs.read\npath: a\nEND_OPERATOR_CMD", "operator"),
        # A JSON example inside an Operator reply stays Operator.
        ('OPERATOR_CMD\n...\n```json\n{"type": "message"}\n```', "operator"),
        ('{"name": "package.json, not operations"}', "operator"),
        ("plain prose", "operator"),
        ("", "operator"),
    ],
)
def test_detect(text: str, expected: str) -> None:
    assert detect(text) == expected


def test_registry_modules() -> None:
    assert set(dialects.DIALECTS) >= {"operator", "json"}
    assert dialects.module("json").parse is not None
    assert dialects.module("operator").scan is not None
    with pytest.raises(ValueError, match="unknown dialect 'yaml'"):
        dialects.module("yaml")


@settings(max_examples=500, deadline=None)
@given(
    hs.lists(hs.sampled_from(["```", "`", " ", "\t", "json", "JSON", "\n", "\r", "x"]), max_size=24)
)
def test_the_fence_search_agrees_with_the_pattern(parts: list[str]) -> None:
    text = "".join(parts)
    assert _has_fenced_json(text) == (_FENCED_JSON.search(text) is not None)
