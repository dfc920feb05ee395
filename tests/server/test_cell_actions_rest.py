"""The server's sessions (the panel, Ask mode) run the notebook cell actions."""

from __future__ import annotations

from pathlib import Path

import pytest
from server_helpers import Api, cmd
from support.cell_notebooks import cells_of, standard

from jupyter_operator.protocol import interface_spec, parse_results


async def test_a_cell_change_is_planned_decided_and_undone_through_the_api(
    api: Api, root: Path
) -> None:
    (root / "nb.ipynb").write_text(standard())
    before = (root / "nb.ipynb").read_bytes()
    reply = cmd("r1", "nb.readCells", notebook="nb.ipynb") + cmd(
        "d1", "nb.deleteCell", notebook="nb.ipynb", cell_id="intro", index="0"
    )
    status, body = await api("scan", body={"text": reply})
    assert status == 200
    read, delete = body["items"]
    assert (read["status"], read["ok"]) == ("done", True)
    assert (delete["status"], delete["path"], delete["change"]) == ("pending", "nb.ipynb", "modify")
    assert '-    "# Title"' in delete["diff"]
    status, decided = await api(
        "sessions", body["session"], "decide", body={"id": "d1", "decision": "approve"}
    )
    assert status == 200 and decided["item"]["status"] == "applied"
    assert [c[0] for c in cells_of(root / "nb.ipynb")] == ["load", "calc"]
    [_, result] = parse_results(decided["results_text"])
    assert (result.id, result.summary) == ("d1", "Deleted cell intro")
    entry_id = decided["item"]["entry_id"]
    status, _ = await api("undo", body={"workspace": "default", "id": entry_id})
    assert status == 200
    assert (root / "nb.ipynb").read_bytes() == before


@pytest.mark.parametrize("operator_config", [{"cell_actions": False}])
async def test_cell_actions_can_be_turned_off(api: Api, root: Path) -> None:
    """``c.OperatorExtension.cell_actions = False``: the spec leaves them out and a reply using
    them gets ERR_UNKNOWN_ACTION, with the notebook untouched."""
    (root / "nb.ipynb").write_text(standard())
    before = (root / "nb.ipynb").read_bytes()
    status, body = await api("spec")
    assert status == 200 and body["spec"] == interface_spec(actions=())
    assert "nb.insertCell" not in body["spec"]
    reply = cmd("d1", "nb.deleteCell", notebook="nb.ipynb", cell_id="intro", index="0")
    status, body = await api("scan", body={"text": reply})
    assert status == 200
    [item] = body["items"]
    assert item["status"] != "pending"
    assert "ERR_UNKNOWN_ACTION" in body["results_text"]
    assert (root / "nb.ipynb").read_bytes() == before


async def test_every_action_with_every_field_gets_a_coded_result_never_a_500(
    api: Api, root: Path
) -> None:
    """A field an action does not take (``content_b64`` on ``nb.readCells``) is ignored like
    any other: the scan answers 200 with a result or a pending card for every block, and
    approving them all answers 200 too."""
    from support.cell_runs import every_action, every_field_reply, spec_fields

    (root / "nb.ipynb").write_text(standard())
    status, body = await api("scan", body={"text": every_field_reply()})
    assert status == 200, body
    items = body["items"]
    assert len(items) == len(every_action()) * (len(spec_fields()) + 1)
    for item in items:
        assert item["status"] in ("pending", "waiting") or item["ok"] or item["error_code"], item
    status, body = await api("sessions", body["session"], "decide-all",
                             body={"decision": "approve"})  # fmt: skip
    assert status == 200, body
    codes = {result.id: result.ok or result.code for result in parse_results(body["results_text"])}
    assert len(codes) == len(items) and all(codes.values())
