"""ReplayModel: scripted replies from a list, a JSON or JSONL file, or a function."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from jupyter_operator.agent import ReplayModel


async def collect(
    model: ReplayModel, messages: list[dict[str, str]] | None = None
) -> tuple[str, object]:
    reply = model.stream(messages or [{"role": "user", "content": "task"}])
    text = "".join([d async for d in reply])
    return text, reply


def test_a_list_plays_in_order_then_empty() -> None:
    model = ReplayModel(["one", "two"], chunk=1)
    assert asyncio.run(collect(model))[0] == "one"
    text, reply = asyncio.run(collect(model))
    assert text == "two"
    assert reply.finish_reason == "stop" and reply.usage.completion_tokens == 1
    assert asyncio.run(collect(model))[0] == ""


def test_json_and_jsonl_files(tmp_path: Path) -> None:
    listed = tmp_path / "script.json"
    listed.write_text(json.dumps(["a", {"content": "b"}]))
    lines = tmp_path / "script.jsonl"
    lines.write_text('"a"\n\n{"content": "b"}\n')
    for path in (listed, lines):
        model = ReplayModel(path)
        assert [asyncio.run(collect(model))[0] for _ in range(3)] == ["a", "b", ""]
        assert model.name == f"replay:{path.stem}"
    bad = tmp_path / "bad.json"
    bad.write_text("[1]")
    with pytest.raises(ValueError, match="entry 1 is not a reply"):
        ReplayModel(bad)


def test_a_function_sees_the_last_results() -> None:
    model = ReplayModel(lambda last, turn: f"{turn}:{last}")
    assert asyncio.run(collect(model, [{"role": "user", "content": "R"}]))[0] == "1:R"


def test_closing_stops_the_stream() -> None:
    async def main() -> str:
        reply = ReplayModel(["abcdef"], chunk=1).stream([])
        out = []
        async for delta in reply:
            out.append(delta)
            await reply.aclose()
        return "".join(out)

    assert asyncio.run(main()) == "a"
