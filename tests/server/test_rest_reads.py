"""A read's content goes out once in a REST answer: whole in the results for the model, and
only the lines its card shows in the item."""

from __future__ import annotations

import json
from pathlib import Path

from server_helpers import Api, cmd

from jupyter_operator.dialects.json_ops import parse_events
from jupyter_operator.engine.reads import DETAILS_SHOWN_CHARS, DETAILS_SHOWN_LINES
from jupyter_operator.protocol import parse_results

LINE = "abcdefghi\n"


async def test_a_json_read_answer_carries_the_content_once(api: Api, root: Path) -> None:
    (root / "big.txt").write_text(LINE * 1000)
    text = json.dumps([{"type": "readFile", "path": "big.txt"}] * 3)
    status, body = await api("scan", body={"text": text, "dialect": "json"})
    assert status == 200
    events = [e for e in parse_events(body["results_text"]) if e.get("type") == "readFile"]
    assert [e["content"] for e in events] == [LINE * 1000] * 3  # the model gets it whole
    for item in body["items"]:
        assert "content" not in item["event"] and item["event"]["size"] == 10_000
        assert item["details"] == LINE * DETAILS_SHOWN_LINES
        assert item["details_more"] == len(LINE) * (1000 - DETAILS_SHOWN_LINES)
    # Each read's 10,000 characters once, in the results, plus 2,000 for each card.
    assert json.dumps(body).count("abcdefghi") == 3 * 1000 + 3 * DETAILS_SHOWN_LINES
    _status, again = await api("sessions", body["session"])
    assert json.dumps(again).count("abcdefghi") == 3 * 1000 + 3 * DETAILS_SHOWN_LINES


async def test_a_one_line_file_is_cut_by_characters_for_the_card(api: Api, root: Path) -> None:
    (root / "wide.txt").write_text("w" * 200_000)
    status, body = await api("scan", body={"text": cmd("r1", "fs.read", path="wide.txt")})
    assert status == 200
    [item] = body["items"]
    [result] = parse_results(body["results_text"])
    whole = result.details or ""
    assert "w" * 200_000 in whole
    assert len(item["details"]) == DETAILS_SHOWN_CHARS and whole.startswith(item["details"])
    assert item["details_more"] == len(whole) - DETAILS_SHOWN_CHARS
