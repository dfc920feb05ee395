"""``eval --approve ask``: a run's waiting change goes to the test server as a labelled review
session, the person decides through REST, and the run carries out that decision in its copy."""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path
from typing import Any

from server_helpers import Api
from support.replies import b64, block

from jupyter_operator.experiments import Experiment, ModelSpec, load_suite
from jupyter_operator.experiments.review import Review

SUITE = Path(__file__).resolve().parents[1] / "data" / "eval_suite"
EDIT = block("e1", "fs.write", path="notes.txt", content_b64=b64("status: final\n"))
GOOD = ModelSpec.scripted("good", {"edit": [EDIT, "Done."]})


def experiment(tmp_path: Path, jp_serverapp: Any, port: int, base_url: str) -> Experiment:
    review = Review(f"http://127.0.0.1:{port}{base_url}", str(jp_serverapp.identity_provider.token),
                    experiment="exp-7", poll_s=0.05)  # fmt: skip
    edit = [t for t in load_suite(SUITE) if t.name == "edit"]
    return Experiment(edit, [GOOD], out=tmp_path / "out", key_file=tmp_path / "keys" / "k",
                      review=review)  # fmt: skip


async def waiting_session(api: Api) -> dict[str, Any]:
    """The labelled session the run sent, once it is there."""
    for _ in range(400):
        status, body = await api("sessions")
        assert status == 200, body
        labelled = [s for s in body["sessions"] if (s.get("label") or "").startswith("exp-7")]
        if labelled:
            return labelled[0]
        await asyncio.sleep(0.05)
    raise AssertionError("the run's change never reached the server")


async def test_an_eval_run_waits_for_the_person_s_approval_in_the_panel(
    api: Api, root: Path, tmp_path: Path, jp_serverapp: Any, jp_http_port: int,
    jp_base_url: str,
) -> None:  # fmt: skip
    grid = experiment(tmp_path, jp_serverapp, jp_http_port, jp_base_url)
    running = asyncio.ensure_future(asyncio.to_thread(grid.run, workers=0, progress=False))
    listed = await waiting_session(api)
    assert listed["pending"] == 1
    assert listed["label"].startswith("exp-7 · edit · good · repeat 0 · run ")
    assert listed["label"].endswith(" · turn 1")
    status, session = await api("sessions", listed["session"])
    assert status == 200
    (item,) = session["items"]
    # previewed against the run's copy (notes.txt said draft there), not the served folder
    assert item["id"] == "e1" and item["status"] == "pending"
    assert "-status: draft" in item["diff"] and "+status: final" in item["diff"]
    assert not running.done(), "the run did not wait for the person"
    status, decided = await api("sessions", listed["session"], "decide",
                                body={"id": "e1", "decision": "approve"})  # fmt: skip
    assert status == 200, decided
    results = await asyncio.wait_for(running, 60)
    (row,) = results.rows
    assert row["passed"] and row["approvals"] == 1
    (review,) = row["reviews"]
    assert review["decision"] == "approve" and review["decided_by"] == "person"
    assert review["id"] == "e1" and review["session"] == listed["session"]
    assert review["server"] == f"127.0.0.1:{jp_http_port}"
    assert review["asked_at"] <= review["decided_at"]
    records = [json.loads(line)
               for line in (tmp_path / "out" / row["transcript"]).read_text().splitlines()]
    assert [r["decision"] for r in records if r["type"] == "review"] == ["approve"]
    assert listed["label"].split(" · run ")[1].split(" ")[0] == records[0]["run_id"]
    # nothing of the served workspace was read or written for it
    assert not (root / "notes.txt").exists()
    assert session["workspace"] not in [w["name"] for w in (await api("workspaces"))[1]
                                        ["workspaces"]]  # fmt: skip


async def test_a_rejection_in_the_panel_and_its_reason_reach_the_model(
    api: Api, tmp_path: Path, jp_serverapp: Any, jp_http_port: int, jp_base_url: str
) -> None:
    grid = experiment(tmp_path, jp_serverapp, jp_http_port, jp_base_url)
    running = asyncio.ensure_future(asyncio.to_thread(grid.run, workers=0, progress=False))
    listed = await waiting_session(api)
    status, decided = await api("sessions", listed["session"], "decide",
                                body={"id": "e1", "decision": "reject",
                                      "reason": "keep it a draft"})  # fmt: skip
    assert status == 200, decided
    (row,) = (await asyncio.wait_for(running, 60)).rows
    assert not row["passed"] and row["rejections"] == 1
    (review,) = row["reviews"]
    assert (review["decision"], review["reason"]) == ("reject", "keep it a draft")
    text = (tmp_path / "out" / row["transcript"]).read_text()
    assert "Reason: keep it a draft" in text  # what the model was told


async def test_a_review_copy_keeps_its_files_inside_its_own_folder(api: Api, root: Path) -> None:
    """The files of a review copy go through the jail: a path out of it is refused, and
    nothing is written in the served root."""
    for path in ("../escape.txt", "/etc/x", "a/../../b"):
        status, body = await api("scan", body={"text": EDIT, "files": {
            path: base64.b64encode(b"x").decode()}})  # fmt: skip
        assert status in (400, 403), (path, status, body)
    status, body = await api("scan", body={"text": EDIT, "files": {"notes.txt": "%%%"}})
    assert status == 400 and "base64" in body["error"]["message"]
    status, body = await api("scan", body={"text": EDIT, "label": "two\nlines", "files": {}})
    assert status == 400
    assert not (root / "notes.txt").exists() and not (root.parent / "escape.txt").exists()


async def test_a_session_whose_review_copy_was_dropped_answers_not_found(
    api: Api, jp_serverapp: Any
) -> None:
    status, session = await api("scan", body={"text": EDIT, "label": "exp-7", "files": {
        "notes.txt": base64.b64encode(b"status: draft\n").decode()}})  # fmt: skip
    assert status == 200 and session["items"][0]["status"] == "pending"
    extension = jp_serverapp.extension_manager.extension_points["jupyter_operator"].app
    extension.registry._drop_review(session["workspace"])  # as MAX_REVIEWS newer ones would
    status, body = await api("sessions", session["session"], "decide",
                             body={"id": "e1", "decision": "approve"})  # fmt: skip
    assert status == 404 and body["error"]["code"] == "workspace_not_found", body
