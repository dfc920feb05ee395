"""The response events' text form, and the shapes of failure events."""

from __future__ import annotations

import json

import pytest

from jupyter_operator.dialects.json_ops import format_events, parse, parse_events
from jupyter_operator.dialects.json_ops import response_events as events


def test_round_trip_and_one_event_per_line() -> None:
    evs = [{"type": "message", "content": "a\nb </script> \u202e"}, {"type": "x", "success": False}]
    text = format_events(evs)
    assert parse_events(text) == evs
    assert text.count("\n") == 3 and text.isascii()
    assert format_events([]) == "[]"
    with pytest.raises(ValueError):
        parse_events('{"type": "x"}')


def test_ids_are_echoed_only_when_given() -> None:
    given, generated = parse(
        json.dumps(
            [
                {"type": "deleteFile", "path": "a", "id": "d1"},
                {"type": "deleteFile", "path": "b"},
            ]
        )
    )
    assert events.deleted(given, "a") == {
        "type": "deleteFile",
        "id": "d1",
        "path": "a",
        "success": True,
    }
    assert "id" not in events.deleted(generated, "b")
    denied = events.policy_denied(given, "r", "s")
    assert denied["operationId"] == "d1" and "operationId" not in events.policy_denied(
        generated, "r", "s"
    )


def test_invalid_operation_event_names_the_refused_path_safely() -> None:
    """The seed's error events carry the path; a refused one is the model's own text, echoed
    with controls and bidi marks escaped and long ones cut (never resolved on the host)."""
    [op] = parse(json.dumps({"type": "readFile", "path": "../x"}))
    assert events.invalid(op) == {
        "type": "readFile",
        "path": "../x",
        "success": False,
        "error": op.message,
        "code": "ERR_PATH_ESCAPE",
    }
    [op] = parse(json.dumps({"type": "readFile", "path": "../\u202epasswd\u001b[2J"}))
    assert events.invalid(op)["path"] == "../\\u202epasswd\\u001b[2J"
    [op] = parse(json.dumps({"type": "readFile", "path": "../" + "a" * 5000}))
    assert len(events.invalid(op)["path"]) == 303 and events.invalid(op)["path"].endswith("...")
    for host_path in ("/etc/passwd", "\\\\server\\share"):
        [op] = parse(json.dumps({"type": "readFile", "path": host_path}))
        assert "path" not in events.invalid(op)  # a host path is never echoed


def test_failed_command_event() -> None:
    [op] = parse(json.dumps({"type": "shell", "command": "false"}))
    event = events.shell(op, 1, "", "boom\n", 5)
    assert event["success"] is False and event["exitCode"] == 1
    assert event["code"] == "ERR_COMMAND_FAILED" and "1" in event["error"]


def test_invalid_operation_event_names_a_good_path() -> None:
    [op] = parse(json.dumps({"type": "readFile", "path": "a.txt", "encoding": "utf-16"}))
    assert events.invalid(op)["path"] == "a.txt"
