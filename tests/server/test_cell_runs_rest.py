"""Cell runs through the REST API: the panel runs the cell in the open notebook and posts back."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from server_helpers import Api, cmd, write_cmd
from support.cell_notebooks import code, notebook

from jupyter_operator.protocol import parse_results

ERROR_OUTPUT = {"output_type": "error", "ename": "NameError",
                "evalue": "name 'totl' is not defined",
                "traceback": ["\x1b[31mNameError\x1b[0m: name 'totl' is not defined"]}  # fmt: skip


def _notebook(root: Path) -> None:
    (root / "nb.ipynb").write_text(notebook(code("values = [3, 4, 5]", id="load"),
                                            code("print(totl)", id="mean")))  # fmt: skip


async def _approved_run(api: Api, root: Path, cell_id: str) -> str:
    """The session of an approved ``nb.runCell`` (id ``r1``) of a cell of ``nb.ipynb``: the
    page runs it, and the server waits for the page's word."""
    _notebook(root)
    status, body = await api("scan", body={"text": cmd("r1", "nb.runCell", notebook="nb.ipynb",
                                                       cell_id=cell_id)})  # fmt: skip
    assert status == 200, body
    session: str = body["session"]
    status, decided = await api("sessions", session, "decide",
                                body={"id": "r1", "decision": "approve"})  # fmt: skip
    assert status == 200 and decided["item"]["status"] == "running", decided
    return session


def _lease(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """How long a run holds without word from its page (short, so a test sees it lapse)."""
    from jupyter_operator.server import sessions

    monkeypatch.setattr(sessions, "RUN_LEASE_SECONDS", seconds)


async def test_a_run_waits_for_the_front_end_and_ends_with_its_outcome(
    api: Api, root: Path
) -> None:
    _notebook(root)
    before = (root / "nb.ipynb").read_bytes()
    status, body = await api("scan", body={"text": cmd("r1", "nb.runCell", notebook="nb.ipynb",
                                                       cell_id="mean")})  # fmt: skip
    assert status == 200
    (item,) = body["items"]
    assert (item["kind"], item["status"]) == ("run", "pending")
    execution = item["execution"]
    assert execution["request"]["source"] == "print(totl)"
    assert execution["kernel"]["where"] == "live" and not execution["kernel"]["sandboxed"]
    assert "NOT sandboxed" in execution["kernel"]["reach"]
    status, decided = await api("sessions", body["session"], "decide",
                                body={"id": "r1", "decision": "approve"})  # fmt: skip
    assert status == 200 and decided["item"]["status"] == "running"
    assert decided["results_text"] == ""  # the model waits for the outcome
    outcome = {"status": "error", "execution_count": 3, "duration_ms": 12,
               "outputs": [ERROR_OUTPUT], "kernel_identity": "k-1"}  # fmt: skip
    status, done = await api("sessions", body["session"], "items", "r1", "execution",
                             body=outcome)  # fmt: skip
    assert status == 200 and done["item"]["status"] == "failed"
    (result,) = parse_results(done["results_text"])
    assert result.code == "ERR_CELL_ERROR" and "In [3]" in result.summary
    assert "[error] NameError: name 'totl' is not defined" in (result.details or "")
    assert "\x1b[" not in (result.details or "")
    assert (root / "nb.ipynb").read_bytes() == before  # the open notebook keeps its outputs
    status, _again = await api("sessions", body["session"], "items", "r1", "execution",
                              body=outcome)  # fmt: skip
    assert status == 409
    status, history = await api("history")
    assert [(r["cell_id"], r["status"], r["where"], r["execution_count"])
            for r in history["executions"]] == [("mean", "error", "live", 3)]  # fmt: skip


async def test_approve_and_run_applies_the_change_then_waits_for_the_run(
    api: Api, root: Path
) -> None:
    _notebook(root)
    reply = cmd("e1", "nb.replaceCell", notebook="nb.ipynb", cell_id="mean",
                content="print(sum(values))")  # fmt: skip
    status, body = await api("scan", body={"text": reply})
    assert body["items"][0]["can_run"] is True
    status, decided = await api(
        "sessions",
        body["session"],
        "decide",
        body={"id": "e1", "decision": "approve", "and_run": True},
    )
    assert status == 200
    item = decided["item"]
    assert item["status"] == "running" and item["execution"]["request"]["source"] == (
        "print(sum(values))"
    )
    assert "".join(json.loads((root / "nb.ipynb").read_text())["cells"][1]["source"]) == (
        "print(sum(values))"
    )
    outcome = {
        "status": "ok",
        "execution_count": 4,
        "duration_ms": 5,
        "outputs": [{"output_type": "stream", "name": "stdout", "text": "12\n"}],
    }
    status, done = await api("sessions", body["session"], "items", "e1", "execution",
                             body=outcome)  # fmt: skip
    assert done["item"]["status"] == "applied"
    (result,) = parse_results(done["results_text"])
    assert result.ok and result.summary.startswith("Replaced cell mean, then ran it: Ran cell 1")
    assert "[stdout]\n12" in (result.details or "")


async def test_a_stale_run_reported_by_the_front_end_ran_nothing(api: Api, root: Path) -> None:
    session = await _approved_run(api, root, "load")
    outcome = {"status": "stale", "message": "the cell was edited since the preview; nothing ran."}
    status, done = await api("sessions", session, "items", "r1", "execution", body=outcome)
    assert status == 200 and done["item"]["status"] == "stale"
    assert "ERR_STALE_PREVIEW" in done["results_text"]
    _status, history = await api("history")
    assert history["executions"] == []


async def test_a_bad_outcome_body_is_refused(api: Api, root: Path) -> None:
    session = await _approved_run(api, root, "load")
    status, _error = await api("sessions", session, "items", "r1", "execution",
                              body={"status": "fine"})  # fmt: skip
    assert status == 400


@pytest.mark.parametrize("operator_config", [{"policy_rules": ["auto nb.runCell **"]}])
async def test_rules_never_run_cells_in_a_live_kernel_unless_allowed(api: Api, root: Path) -> None:
    _notebook(root)
    reply = cmd("r1", "nb.runCell", notebook="nb.ipynb", cell_id="load")
    status, body = await api("scan", body={"text": reply})
    assert status == 200
    item = body["items"][0]
    assert item["status"] == "pending"
    assert "live notebook's kernel ask" in item["rule"]


@pytest.mark.parametrize(
    "operator_config", [{"policy_rules": ["auto nb.runCell **"], "allow_auto_runs": True}]
)
async def test_the_server_may_allow_rules_to_run_cells(api: Api, root: Path) -> None:
    _notebook(root)
    reply = cmd("r1", "nb.runCell", notebook="nb.ipynb", cell_id="load")
    _status, body = await api("scan", body={"text": reply})
    assert body["items"][0]["status"] == "running"
    assert body["items"][0]["decided_by"] == "rule"


@pytest.mark.parametrize(
    "operator_config",
    [{"policy_rules": [rule], "allow_auto_runs": True}
     for rule in ("auto notes/**", "auto **", "auto * notes/**", "auto **/*.ipynb")],
)  # fmt: skip
async def test_a_path_rule_writes_a_notebook_but_never_runs_it(api: Api, root: Path) -> None:
    """Even where the server lets rules run cells, only a rule naming runs may: a reply that
    writes a notebook under a path rule does not get to run the code it just wrote."""
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("app\n")
    cell = notebook(code("import shutil\nshutil.rmtree('src')", id="c1"))
    reply = write_cmd("w1", "notes/x.ipynb", cell) + cmd(
        "r1", "nb.runCell", notebook="notes/x.ipynb", cell_id="c1"
    )
    status, body = await api("scan", body={"text": reply})
    assert status == 200
    written, ran = body["items"]
    assert (written["status"], written["decided_by"]) == ("applied", "rule")
    assert (ran["status"], ran["decided_by"], ran["rule"]) == ("pending", None, "default: ask")
    assert ran["rule_note"] == "asked by default: ask"
    assert (root / "src" / "app.py").exists()


@pytest.mark.parametrize(
    "operator_config",
    [{"policy_rules": ["deny fs.delete **", "auto nb.runCell **"], "allow_auto_runs": True}],
)
async def test_a_deny_rule_on_files_holds_back_a_run_the_rules_name(api: Api, root: Path) -> None:
    _notebook(root)
    reply = cmd("r1", "nb.runCell", notebook="nb.ipynb", cell_id="load")
    _status, body = await api("scan", body={"text": reply})
    item = body["items"][0]
    assert (item["status"], item["decided_by"]) == ("pending", None)
    assert item["rule"] == ("rule 2: auto nb.runCell **, but rule 1: deny fs.delete ** binds "
                            "files, not code that runs")  # fmt: skip


@pytest.mark.parametrize("operator_config", [{"policy_rules": ["deny nb.runCell nb.ipynb"]}])
async def test_approve_and_run_under_a_rule_denying_runs_applies_the_change_only(
    api: Api, root: Path
) -> None:
    _notebook(root)
    reply = cmd("e1", "nb.replaceCell", notebook="nb.ipynb", cell_id="mean",
                content="print(sum(values))")  # fmt: skip
    _status, body = await api("scan", body={"text": reply})
    assert body["items"][0]["can_run"] is False  # the card offers no Approve & Run
    status, decided = await api("sessions", body["session"], "decide",
                                body={"id": "e1", "decision": "approve", "and_run": True})
    assert status == 200
    item = decided["item"]
    assert item["status"] == "applied" and item["execution"] is None
    (result,) = parse_results(decided["results_text"])
    assert result.code == "ERR_POLICY_DENIED"
    assert result.summary.endswith("the cell did not run: nb.runCell is not allowed in this "
                                   "workspace (rule 1: deny nb.runCell nb.ipynb).")  # fmt: skip
    assert "".join(json.loads((root / "nb.ipynb").read_text())["cells"][1]["source"]) == (
        "print(sum(values))"
    )


@pytest.mark.parametrize("bad", [
    {"status": "ok", "steps": [{}]},
    {"status": "ok", "steps": [{"status": "ok", "outputs": "x"}]},
    {"status": "ok", "steps": [{"status": "ok", "steps": []}]},
    {"status": "ok", "steps": ["ok"]},
])  # fmt: skip
async def test_a_malformed_step_is_a_400_and_the_run_still_waits_for_its_outcome(
    api: Api, root: Path, bad: dict
) -> None:
    _notebook(root)
    status, body = await api("scan", body={"text": cmd("k1", "nb.rebuildState",
                                                       notebook="nb.ipynb")})  # fmt: skip
    session = body["session"]
    await api("sessions", session, "decide", body={"id": "k1", "decision": "approve"})
    status, error = await api("sessions", session, "items", "k1", "execution", body=bad)
    assert (status, error["error"]["code"]) == (400, "bad_request"), error
    assert "steps" in error["error"]["message"]
    _status, view = await api("sessions", session)
    assert view["items"][0]["status"] == "running"  # untouched: a good outcome may still come
    status, done = await api("sessions", session, "items", "k1", "execution",
                             body={"status": "ok", "steps": []})  # fmt: skip
    assert status == 200 and done["item"]["status"] == "done"


@pytest.mark.parametrize("output", [
    {"output_type": "error", "ename": 1, "evalue": None, "traceback": 5},
    {"output_type": "execute_result", "data": ["x"], "execution_count": "x"},
    {"output_type": "display_data", "data": {"text/plain": [1, None], "image/png": 7}},
    {"output_type": "stream", "name": 3, "text": {"a": 1}},
    {"output_type": 5},
    {},
])  # fmt: skip
async def test_odd_outputs_from_the_front_end_end_the_run_with_a_result(
    api: Api, root: Path, output: dict
) -> None:
    """Outputs are the front end's data: whatever their shape, the run ends with a result."""
    session = await _approved_run(api, root, "load")
    status, done = await api("sessions", session, "items", "r1", "execution",
                             body={"status": "error", "outputs": [output]})  # fmt: skip
    assert status == 200, done
    assert done["item"]["status"] == "failed"
    (result,) = parse_results(done["results_text"])
    assert result.code == "ERR_CELL_ERROR"


async def test_a_run_whose_page_went_away_ends_interrupted_and_never_runs_again(
    api: Api, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _lease(monkeypatch, 0.3)
    session = await _approved_run(api, root, "mean")
    # The page running the cell says so: the run holds past the lease.
    for _ in range(3):
        status, alive = await api("sessions", session, "items", "r1", "execution", "alive",
                                  body={})  # fmt: skip
        assert status == 200 and alive["running"] is True
        await asyncio.sleep(0.15)
    status, view = await api("sessions", session)
    assert view["items"][0]["status"] == "running"
    # The page reloads: no more word from it; the next look at the session ends the run.
    await asyncio.sleep(0.4)
    status, view = await api("sessions", session)
    (item,) = view["items"]
    assert item["status"] == "failed" and item["execution"]["outcome"]["status"] == "interrupted"
    (result,) = parse_results(view["results_text"])
    assert result.code == "ERR_CELL_INTERRUPTED" and "went away" in result.summary
    # The lost page's late outcome, and any page's claim, are refused: nothing is recorded twice.
    late = {"status": "ok", "execution_count": 9, "duration_ms": 5, "outputs": []}
    status, _late = await api("sessions", session, "items", "r1", "execution", body=late)
    assert status == 409
    status, _alive = await api("sessions", session, "items", "r1", "execution", "alive", body={})
    assert status == 409
    _status, history = await api("history")
    assert [r["status"] for r in history["executions"]] == ["interrupted"]


async def test_a_run_its_page_finished_keeps_its_outcome_after_the_lease(
    api: Api, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _lease(monkeypatch, 0.2)
    session = await _approved_run(api, root, "load")
    await api("sessions", session, "items", "r1", "execution", "alive", body={})
    outcome = {"status": "ok", "execution_count": 2, "duration_ms": 5, "outputs": []}
    status, done = await api("sessions", session, "items", "r1", "execution", body=outcome)
    assert status == 200 and done["item"]["status"] == "done"
    await asyncio.sleep(0.3)
    status, view = await api("sessions", session)
    assert view["items"][0]["status"] == "done"
    assert view["items"][0]["execution"]["outcome"]["status"] == "ok"


async def test_a_page_going_away_ends_its_run_at_once(api: Api, root: Path) -> None:
    session = await _approved_run(api, root, "mean")
    alive = ("sessions", session, "items", "r1", "execution", "alive")
    status, _bad = await api(*alive, body={"gone": "yes"})
    assert status == 400
    status, _ = await api("sessions", session)
    assert _["items"][0]["status"] == "running"  # a bad body changed nothing
    status, went = await api(*alive, body={"gone": True})
    assert status == 200 and went == {"running": False}
    status, view = await api("sessions", session)
    assert view["items"][0]["execution"]["outcome"]["status"] == "interrupted"
    assert "ERR_CELL_INTERRUPTED" in view["results_text"]
    status, _again = await api(*alive, body={"gone": True})
    assert status == 409
