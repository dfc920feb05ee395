"""The REST API end to end: scan, decide, stale previews, undo, history and every error shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jupyter_core.paths import jupyter_runtime_dir
from server_helpers import Api, cmd, write_cmd

from jupyter_operator.protocol import interface_spec, parse_results


async def test_workspaces_list_names_and_paths_under_the_server_root(api: Api, root: Path) -> None:
    status, body = await api("workspaces")
    assert status == 200
    assert body == {"workspaces": [{"name": "default", "path": "."}]}
    assert str(root) not in json.dumps(body)


async def test_spec_is_the_interface_spec(api: Api) -> None:
    status, body = await api("spec")
    assert status == 200
    assert body["spec"].startswith("Operator Interface Specification (version: 3)")
    # What operator.getInterfaceSpec gives a model of a server session: cell actions included.
    assert body["spec"] == interface_spec(actions=("nb",))
    # What no workspace may reach, home-relative, for the panel to show.
    assert "~/.ssh" in body["out_of_reach"]
    assert jupyter_runtime_dir() in body["out_of_reach"]  # set outside the home in these tests


async def test_scan_runs_reads_and_plans_writes(api: Api, root: Path) -> None:
    (root / "notes.txt").write_text("hello\n")
    reply = (
        "Some prose.\n"
        + cmd("r1", "fs.read", path="notes.txt")
        + write_cmd("w1", "out.txt", "new\n")
    )
    status, body = await api("scan", body={"text": reply})
    assert status == 200
    assert body["workspace"] == "default" and body["truncated_chars"] == 0
    read, write = body["items"]
    assert (read["id"], read["status"], read["ok"]) == ("r1", "done", True)
    assert (write["id"], write["status"], write["needs_approval"]) == ("w1", "pending", True)
    assert write["change"] == "create" and "+new" in write["diff"]
    assert not (root / "out.txt").exists(), "nothing is written before approval"
    results = parse_results(body["results_text"])
    assert [r.id for r in results] == ["r1"]
    assert "hello" in results[0].details or "hello" in results[0].summary


async def test_approve_writes_previewed_bytes_and_reports(api: Api, root: Path) -> None:
    _, scanned = await api("scan", body={"text": write_cmd("w1", "out.txt", "one\ntwo\n")})
    session = scanned["session"]
    status, body = await api(
        "sessions", session, "decide", body={"id": "w1", "decision": "approve"}
    )
    assert status == 200
    assert body["item"]["status"] == "applied" and body["done"] is True
    assert (root / "out.txt").read_bytes() == b"one\ntwo\n"
    [result] = parse_results(body["results_text"])
    assert result.id == "w1" and result.ok
    # The session view agrees with the decision's answer, which sends nothing else again: no
    # other item, and not the diff the scan sent.
    status, view = await api("sessions", session)
    assert "diff" not in body["item"] and body["items"] == []
    assert status == 200 and view["items"] == [{**scanned["items"][0], **body["item"]}]
    assert view["done"] is True


async def test_reject_with_reason_leaves_disk_alone(api: Api, root: Path) -> None:
    (root / "keep.txt").write_text("old\n")
    _, scanned = await api("scan", body={"text": write_cmd("w1", "keep.txt", "new\n")})
    status, body = await api(
        "sessions",
        scanned["session"],
        "decide",
        body={"id": "w1", "decision": "reject", "reason": "not now"},
    )
    assert status == 200 and body["item"]["status"] == "rejected"
    assert (root / "keep.txt").read_text() == "old\n"
    [result] = parse_results(body["results_text"])
    assert not result.ok and "ERR_REJECTED" in result.summary and "not now" in result.summary


async def test_second_decision_is_409(api: Api, root: Path) -> None:
    _, scanned = await api("scan", body={"text": write_cmd("w1", "a.txt", "x\n")})
    path = ("sessions", scanned["session"], "decide")
    assert (await api(*path, body={"id": "w1", "decision": "approve"}))[0] == 200
    status, body = await api(*path, body={"id": "w1", "decision": "reject"})
    assert status == 409 and body["error"]["code"] == "already_decided"
    assert (root / "a.txt").read_text() == "x\n"


async def test_a_change_built_on_an_undecided_one_must_wait(api: Api, root: Path) -> None:
    reply = write_cmd("w1", "a.txt", "one\n") + write_cmd("w2", "a.txt", "two\n")
    _, scanned = await api("scan", body={"text": reply})
    assert [i["builds_on"] for i in scanned["items"]] == [None, "w1"]
    path = ("sessions", scanned["session"], "decide")
    status, body = await api(*path, body={"id": "w2", "decision": "approve"})
    assert status == 409 and body["error"]["code"] == "decide_first"
    assert "decide w1 first" in body["error"]["message"] and not (root / "a.txt").exists()
    assert (await api(*path, body={"id": "w1", "decision": "approve"}))[0] == 200
    assert (await api(*path, body={"id": "w2", "decision": "approve"}))[0] == 200
    assert (root / "a.txt").read_text() == "two\n"


async def test_a_decision_answers_with_what_it_changed(api: Api, root: Path) -> None:
    """The decided item, and of the others only those the decision changed (a change built on
    it no longer waits for it): merged into what the client has, they make the session's view."""
    (root / "keep.txt").write_text("kept\n")
    reply = (cmd("r1", "fs.read", path="keep.txt") + write_cmd("w1", "a.txt", "one\n")
             + write_cmd("w2", "a.txt", "two\n") + write_cmd("w3", "b.txt", "B\n"))  # fmt: skip
    _, scanned = await api("scan", body={"text": reply})
    shown = {item["index"]: item for item in scanned["items"]}
    path = ("sessions", scanned["session"], "decide")
    status, body = await api(*path, body={"id": "w1", "decision": "approve"})
    assert status == 200 and body["item"]["id"] == "w1" and body["item"]["status"] == "applied"
    assert [item["id"] for item in body["items"]] == ["w2"]  # no longer waiting on w1
    # Only what changed; the diffs, unchanged, are not sent again.
    assert "diff" not in body["item"] and "diff" not in body["items"][0]
    assert {k for k, v in body["items"][0].items() if shown[2][k] != v} == {"builds_on"}
    for item in (body["item"], *body["items"]):
        shown[item["index"]] = {**shown[item["index"]], **item}
    _, view = await api("sessions", scanned["session"])
    assert view["items"] == [shown[index] for index in sorted(shown)]
    assert body["results_text"] == view["results_text"] and body["done"] is view["done"] is False


async def test_stale_preview_is_not_applied(api: Api, root: Path) -> None:
    target = root / "doc.txt"
    target.write_text("version 1\n")
    _, scanned = await api("scan", body={"text": write_cmd("w1", "doc.txt", "from model\n")})
    target.write_text("edited by a person meanwhile\n")
    status, body = await api(
        "sessions", scanned["session"], "decide", body={"id": "w1", "decision": "approve"}
    )
    assert status == 200
    assert body["item"]["status"] == "stale" and body["item"]["error_code"] == "ERR_STALE_PREVIEW"
    assert target.read_text() == "edited by a person meanwhile\n"
    [result] = parse_results(body["results_text"])
    assert not result.ok and "ERR_STALE_PREVIEW" in result.summary


async def test_decide_all_in_block_order(api: Api, root: Path) -> None:
    reply = write_cmd("a", "a.txt", "A\n") + write_cmd("b", "b.txt", "B\n")
    _, scanned = await api("scan", body={"text": reply})
    status, body = await api(
        "sessions", scanned["session"], "decide-all", body={"decision": "approve"}
    )
    assert status == 200 and body["done"] is True
    assert [item["id"] for item in body["decided"]] == ["a", "b"]
    assert (root / "a.txt").read_text() == "A\n" and (root / "b.txt").read_text() == "B\n"
    assert [r.id for r in parse_results(body["results_text"])] == ["a", "b"]


async def test_reject_all_passes_the_reason(api: Api, root: Path) -> None:
    reply = write_cmd("a", "a.txt", "A\n") + write_cmd("b", "b.txt", "B\n")
    _, scanned = await api("scan", body={"text": reply})
    status, body = await api(
        "sessions", scanned["session"], "decide-all", body={"decision": "reject", "reason": "no"}
    )
    assert status == 200 and [i["status"] for i in body["decided"]] == ["rejected"] * 2
    assert body["items"] == [] and body["done"] is True
    assert not any(root.iterdir())


async def test_undo_and_history(api: Api, root: Path) -> None:
    (root / "f.txt").write_text("before\n")
    _, scanned = await api("scan", body={"text": write_cmd("w1", "f.txt", "after\n")})
    await api("sessions", scanned["session"], "decide", body={"id": "w1", "decision": "approve"})
    assert (root / "f.txt").read_text() == "after\n"

    status, history = await api("history", params={"workspace": "default"})
    assert status == 200
    [entry] = history["history"]
    assert (entry["command_id"], entry["path"], entry["undone"]) == ("w1", "f.txt", False)

    status, undone = await api("undo", body={"workspace": "default", "id": entry["entry_id"]})
    assert status == 200 and undone["entry"]["entry_id"] == entry["entry_id"]
    assert undone["entry"]["undone"] is True
    assert (root / "f.txt").read_text() == "before\n"

    _, history = await api("history")
    assert history["history"][0]["undone"] is True
    status, body = await api("undo", body={"workspace": "default"})
    assert status == 404 and body["error"]["code"] == "ERR_NOT_FOUND"


async def test_undo_refuses_when_file_changed_since(api: Api, root: Path) -> None:
    _, scanned = await api("scan", body={"text": write_cmd("w1", "g.txt", "model\n")})
    await api("sessions", scanned["session"], "decide", body={"id": "w1", "decision": "approve"})
    (root / "g.txt").write_text("person\n")
    status, body = await api("undo", body={})
    assert status == 409 and body["error"]["code"] == "ERR_UNDO_CONFLICT"
    assert (root / "g.txt").read_text() == "person\n"
    assert str(root) not in body["error"]["message"]


async def test_duplicate_ids_are_tracked_per_session(api: Api, root: Path) -> None:
    first = write_cmd("same", "x.txt", "1\n")
    _, one = await api("scan", body={"text": first + write_cmd("same", "x.txt", "2\n")})
    assert [i["status"] for i in one["items"]] == ["pending", "error"]
    assert one["items"][1]["error_code"] == "ERR_DUPLICATE_ID"
    # A new session starts with no ids claimed.
    _, two = await api("scan", body={"text": first})
    assert [i["status"] for i in two["items"]] == ["pending"]
    assert two["session"] != one["session"]


@pytest.mark.parametrize(
    ("parts", "body", "status", "code"),
    [
        (("scan",), {"text": "x", "workspace": "nope"}, 404, "workspace_not_found"),
        (("scan",), {"text": "x", "workspace": "/etc"}, 404, "workspace_not_found"),
        (("scan",), {"workspace": "default"}, 400, "bad_request"),
        (("scan",), {"text": 5}, 400, "bad_request"),
        (("scan",), {"text": "x", "root": "/"}, 400, "bad_request"),
        (("scan",), "[1, 2]", 400, "bad_request"),
        (("scan",), "{not json", 400, "bad_request"),
        (("scan",), '{"text": "\\ud800"}', 400, "invalid_utf8"),
        (("scan",), '{"text": "a\\uDFFF"}', 400, "invalid_utf8"),
        (("scan",), b'{"text": "\xed\xa0\x80"}', 400, "invalid_utf8"),  # encoded surrogate
        (("scan",), '{"text": "\ud800"}'.encode("utf-16-le", "surrogatepass"), 400, "invalid_utf8"),
        (("sessions", "missing", "decide"), {"id": "a", "decision": "approve"}, 404, None),
        (("undo",), {"workspace": "nope"}, 404, "workspace_not_found"),
    ],
)
async def test_bad_requests(
    api: Api, parts: tuple[str, ...], body: object, status: int, code: str | None
) -> None:
    got, answer = await api(*parts, body=body)
    assert got == status
    assert set(answer) == {"error"} and set(answer["error"]) == {"code", "message"}
    assert answer["error"]["code"] == (code or "session_not_found")
    assert "Traceback" not in answer["error"]["message"]


async def test_text_that_only_looks_like_a_surrogate_is_taken(api: Api) -> None:
    """A surrogate pair, Hangul (UTF-8 bytes starting 0xED) and an escaped backslash before
    ``ud800`` are all valid text."""
    text = "\U0001f600 \ud55c\uad6d\uc5b4 \\ud800"
    for body in (json.dumps({"text": text}), json.dumps({"text": text}, ensure_ascii=False)):
        status, scanned = await api("scan", body=body.encode("utf-8"))
        assert status == 200, scanned
        assert scanned["items"] == [] and scanned["done"]


async def test_decision_errors(api: Api, root: Path) -> None:
    _, scanned = await api("scan", body={"text": write_cmd("w1", "a.txt", "x\n")})
    path = ("sessions", scanned["session"], "decide")
    status, body = await api(*path, body={"id": "nope", "decision": "approve"})
    assert status == 404 and body["error"]["code"] == "item_not_found"
    status, body = await api(*path, body={"id": "w1", "decision": "maybe"})
    assert status == 400 and body["error"]["code"] == "bad_request"
    status, body = await api("sessions", "not-a-session")
    assert status == 404 and body["error"]["code"] == "session_not_found"
    assert not (root / "a.txt").exists()


async def test_history_of_unknown_workspace(api: Api) -> None:
    status, body = await api("history", params={"workspace": "elsewhere"})
    assert status == 404 and body["error"]["code"] == "workspace_not_found"


async def test_too_large_body_is_413(api: Api, root: Path) -> None:
    text = "x" * 1_600_000
    status, body = await api("scan", body={"text": text})
    assert status == 413 and body["error"]["code"] == "too_large"
    # Just under the limit is accepted (the scanner keeps the last 200,000 characters).
    status, body = await api("scan", body={"text": "y" * 1_500_000})
    assert status == 200 and body["truncated_chars"] == 1_300_000
    assert body["unread_markers"] == 0


async def test_commands_cut_off_are_counted_for_the_panel_and_the_model(api: Api) -> None:
    lost = "OPERATOR_CMD\nversion: 1\nid: e1\naction: fs.list\npath: .\nEND_OPERATOR_CMD\n"
    status, body = await api("scan", body={"text": lost * 2 + "z" * 200_000})
    assert status == 200 and body["items"] == [] and body["unread_markers"] == 2
    assert body["results_text"].startswith("Note: only the last 200,000 characters")
    # The session as the panel reloads it says so as well.
    status, again = await api("sessions", body["session"])
    assert status == 200 and again["unread_markers"] == 2


async def test_scan_error_items_are_results(api: Api) -> None:
    reply = "OPERATOR_CMD\nversion: 2\nid: v\naction: fs.read\npath: a\nEND_OPERATOR_CMD\n"
    status, body = await api("scan", body={"text": reply})
    assert status == 200
    [item] = body["items"]
    assert item["status"] == "error" and item["error_code"] == "ERR_UNSUPPORTED_VERSION"
    assert body["done"] is True
    assert parse_results(body["results_text"])[0].id == "v"


async def test_path_escape_in_a_command_is_a_result(api: Api, root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    (root / "link").symlink_to(outside)
    reply = cmd("r1", "fs.read", path="../outside.txt") + cmd("r2", "fs.read", path="link")
    reply += write_cmd("w1", "link", "pwned\n")
    status, body = await api("scan", body={"text": reply})
    assert status == 200
    assert [i["error_code"] for i in body["items"]] == ["ERR_PATH_ESCAPE"] * 3
    assert "secret" not in json.dumps(body)
    assert str(tmp_path) not in json.dumps(body)
    assert outside.read_text() == "secret\n"


async def test_crlf_and_non_ascii_content_round_trip(api: Api, root: Path) -> None:
    text = "line 1\r\nline 2\n\u00e9\n"
    _, scanned = await api("scan", body={"text": write_cmd("w", "crlf.txt", text)})
    await api("sessions", scanned["session"], "decide", body={"id": "w", "decision": "approve"})
    assert (root / "crlf.txt").read_bytes() == text.encode("utf-8")


async def test_too_large_chunked_body_is_a_json_413(api: Api, root: Path) -> None:
    """A body without Content-Length (chunked) that outgrows the limit: JSON, not a reset."""

    async def producer(write) -> None:  # type: ignore[no-untyped-def]
        chunk = b"x" * 65_536
        await write(b'{"text": "')
        for _ in range(30):  # about 1.9 MB, over the 1.5 MB limit
            await write(chunk)
        await write(b'"}')

    status, body = await api("scan", method="POST", body_producer=producer,
                             allow_nonstandard_methods=True)  # fmt: skip
    assert status == 413 and body["error"]["code"] == "too_large"
    assert not any(root.iterdir())


async def test_open_sessions_are_listed_and_undo_marks_the_card_undone(
    api: Api, root: Path
) -> None:
    (root / "f.txt").write_text("before\n")
    _, scanned = await api("scan", body={"text": write_cmd("w1", "f.txt", "after\n")})
    session = scanned["session"]
    _, listed = await api("sessions")
    assert [s["session"] for s in listed["sessions"]] == [session]
    await api("sessions", session, "decide", body={"id": "w1", "decision": "approve"})
    _, listed = await api("sessions")
    assert listed["sessions"] == []

    _, history = await api("history")
    [entry] = history["history"]
    assert entry["session"] == session and entry["decided_by"] == "person"
    assert "+after" in entry["diff"]

    status, undone = await api("undo", body={"id": entry["entry_id"]})
    assert status == 200 and (root / "f.txt").read_text() == "before\n"
    [item] = undone["session"]["items"]
    assert item["status"] == "undone" and item["ok"] is False
    # The results for the model say what is true now.
    _, state = await api("sessions", session)
    assert "ok: false" in state["results_text"] and "undid" in state["results_text"]


async def test_scan_in_a_subfolder_takes_paths_from_there(api: Api, root: Path) -> None:
    (root / "nb").mkdir()
    (root / "nb" / "data.txt").write_text("in the notebook's folder\n")
    (root / "data.txt").write_text("at the root\n")
    status, scanned = await api(
        "scan", body={"text": cmd("r1", "fs.read", path="data.txt"), "folder": "nb"}
    )
    assert status == 200 and scanned["folder"] == "nb"
    assert scanned["items"][0]["details"] == "in the notebook's folder\n"
    # The folder cannot leave the workspace, be a link, or be a file.
    (root / "link").symlink_to(root / "nb")
    for folder, code in [
        ("../", "ERR_PATH_ESCAPE"),
        ("link", "ERR_PATH_ESCAPE"),
        ("data.txt", "ERR_NOT_A_DIRECTORY"),
        ("missing", "ERR_NOT_FOUND"),
    ]:
        status, body = await api("scan", body={"text": "x", "folder": folder})
        assert status in (400, 404, 409) and body["error"]["code"] == code, (folder, body)


async def test_a_subfolder_session_has_the_history_a_kernel_there_has(
    api: Api, root: Path, journal_dir: Path
) -> None:
    (root / "nb").mkdir()
    text = write_cmd("w1", "out.txt", "made\n")
    _, scanned = await api("scan", body={"text": text, "folder": "nb"})
    await api("sessions", scanned["session"], "decide", body={"id": "w1", "decision": "approve"})
    assert (root / "nb" / "out.txt").read_text() == "made\n"
    _, history = await api("history", params={"workspace": "default", "folder": "nb"})
    [entry] = history["history"]
    assert entry["path"] == "out.txt" and entry["session"] == scanned["session"]
    # The same journal a notebook kernel rooted in nb/ uses.
    from jupyter_operator.engine import Operator

    with Operator(root / "nb", journal_dir=journal_dir) as kernel_side:
        assert [e.entry_id for e in kernel_side.history()] == [entry["entry_id"]]
    status, undone = await api("undo", body={"id": entry["entry_id"], "folder": "nb"})
    assert status == 200 and undone["session"]["items"][0]["status"] == "undone"
    assert not (root / "nb" / "out.txt").exists()
