"""A notebook open in a page: the page reports it (``POST open-notebooks``), an approved change
to it waits for that page (``live``), and the page's answer ends it; the file is not written."""

from __future__ import annotations

from pathlib import Path

from server_helpers import Api, cmd
from support.cell_notebooks import code, notebook

PAGE = "page-0123456789"


async def propose(api: Api, root: Path) -> str:
    (root / "nb.ipynb").write_text(notebook(code("x = 1", id="a"), code("y = 2", id="b")))
    status, body = await api("scan", body={"text": cmd("c1", "nb.replaceCell", notebook="nb.ipynb",
                                                       cell_id="b", content="y = 3")})  # fmt: skip
    assert status == 200, body
    return body["session"]


async def test_a_change_to_a_reported_notebook_waits_for_the_page(api: Api, root: Path) -> None:
    status, beat = await api("open-notebooks", body={"page": PAGE, "paths": ["nb.ipynb"]})
    assert status == 200 and beat["heartbeat"] > 0
    session = await propose(api, root)
    before = (root / "nb.ipynb").read_bytes()
    status, decided = await api("sessions", session, "decide",
                                body={"id": "c1", "decision": "approve"})  # fmt: skip
    assert status == 200 and decided["item"]["status"] == "running"
    live = decided["item"]["live"]
    assert live["state"] == "waiting" and live["notebook"] == "nb.ipynb"
    assert live["ops"] == [{"op": "set", "id": "b", "fields": {"source": "y = 3"}}]
    status, done = await api("sessions", session, "items", "c1", "live",
                             body={"state": "applied"})  # fmt: skip
    assert status == 200 and done["item"]["status"] == "applied"
    assert (root / "nb.ipynb").read_bytes() == before  # the person saves the page
    status, _again = await api("sessions", session, "items", "c1", "live",
                              body={"state": "applied"})  # fmt: skip
    assert status == 409
    status, history = await api("history")
    assert [e["route"] for e in history["history"]] == ["page"]


async def test_a_closed_page_leaves_the_disk_route(api: Api, root: Path) -> None:
    await api("open-notebooks", body={"page": PAGE, "paths": ["nb.ipynb"]})
    await api("open-notebooks", body={"page": PAGE, "paths": [], "closing": True})
    session = await propose(api, root)
    status, decided = await api("sessions", session, "decide",
                                body={"id": "c1", "decision": "approve"})  # fmt: skip
    assert status == 200
    assert decided["item"]["status"] == "applied" and decided["item"]["live"] is None
    assert "y = 3" in (root / "nb.ipynb").read_text()


async def test_paths_leaving_the_root_and_bad_answers_are_refused(api: Api, root: Path) -> None:
    status, _ = await api("open-notebooks", body={"page": PAGE, "paths": ["../nb.ipynb"]})
    assert status == 200  # ignored: it names no notebook of the server
    session = await propose(api, root)
    status, decided = await api("sessions", session, "decide",
                                body={"id": "c1", "decision": "approve"})  # fmt: skip
    assert decided["item"]["status"] == "applied"  # nothing held it: the disk
    status, _ = await api("sessions", session, "items", "c1", "live", body={"state": "nope"})
    assert status == 400
    status, _ = await api("open-notebooks", body={"page": "short", "paths": []})
    assert status == 400


async def test_undo_and_redo_of_an_open_notebook_go_through_the_page(api: Api, root: Path) -> None:
    await api("open-notebooks", body={"page": PAGE, "paths": ["nb.ipynb"]})
    session = await propose(api, root)
    before = (root / "nb.ipynb").read_bytes()
    await api("sessions", session, "decide", body={"id": "c1", "decision": "approve"})
    await api("sessions", session, "items", "c1", "live", body={"state": "applied"})

    status, sent = await api("undo", body={"session": session})
    assert status == 200
    live = sent["live"]
    assert live["direction"] == "undo" and live["notebook"] == "nb.ipynb"
    assert live["ops"] == [{"op": "set", "id": "b", "fields": {"source": "y = 2"}}]
    assert not sent["entry"]["undone"]
    status, stale = await api("undo", body={"id": live["entry_id"], "session": session,
                                            "live": {"state": "stale", "cell": "b"}})  # fmt: skip
    assert status == 409 and stale["error"]["code"] == "ERR_UNDO_CONFLICT"
    status, done = await api("undo", body={"id": live["entry_id"], "session": session,
                                           "live": {"state": "applied"}})  # fmt: skip
    assert status == 200 and done["entry"]["undone"]
    assert [i["status"] for i in done["session"]["items"]] == ["undone"]
    status, sent = await api("redo", body={"session": session})
    assert sent["live"]["ops"] == [{"op": "set", "id": "b", "fields": {"source": "y = 3"}}]
    status, done = await api("redo", body={"id": live["entry_id"], "session": session,
                                           "live": {"state": "applied"}})  # fmt: skip
    assert status == 200 and not done["entry"]["undone"]
    assert (root / "nb.ipynb").read_bytes() == before
