"""``POST undo-run``: the changes of one run undone in one step, previewed first, or refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from server_helpers import Api
from support.cell_notebooks import cells_of, standard
from support.replies import b64, block

REPLY = "\n".join([
    block("w1", "fs.write", path="a.txt", content_b64=b64("A2\n")),
    block("w2", "fs.write", path="b.txt", content_b64=b64("B\n")),
    block("w3", "fs.write", path="c.txt", content_b64=b64("C2\n")),
    block("c1", "nb.replaceCell", notebook="nb.ipynb", cell_id="calc", content_b64=b64("y = 3")),
])  # fmt: skip


async def _applied(api: Api, root: Path) -> str:
    (root / "a.txt").write_text("A\n")
    (root / "c.txt").write_text("C\n")
    (root / "nb.ipynb").write_text(standard())
    _, other = await api("scan", body={"text": block("o1", "fs.write", path="other.txt",
                                                       content_b64=b64("O\n"))})  # fmt: skip
    await api("sessions", other["session"], "decide-all", body={"decision": "approve"})
    status, scanned = await api("scan", body={"text": REPLY})
    assert status == 200, scanned
    _, decided = await api("sessions", scanned["session"], "decide-all",
                           body={"decision": "approve"})  # fmt: skip
    assert decided["done"] is True
    _, history = await api("history")
    runs = {e["session"] for e in history["history"] if e["command_id"] != "o1"}
    assert len(runs) == 1
    return runs.pop()


async def test_a_run_is_previewed_then_undone_in_one_step(api: Api, root: Path) -> None:
    run = await _applied(api, root)
    status, preview = await api("undo-run", body={"run": run, "preview": True})
    assert status == 200, preview
    assert [e["command_id"] for e in preview["entries"]] == ["c1", "w3", "w2", "w1"]
    assert preview["preview"] is True and (root / "b.txt").exists()  # nothing undone yet
    status, done = await api("undo-run", body={"run": run})
    assert status == 200, done
    assert [e["undone"] for e in done["entries"]] == [True] * 4
    assert (root / "a.txt").read_text() == "A\n" and not (root / "b.txt").exists()
    assert (root / "c.txt").read_text() == "C\n"
    assert ("calc", "code", "y = x + 1") in cells_of(root / "nb.ipynb")
    assert (root / "other.txt").read_text() == "O\n"  # another run's change stays
    _, history = await api("history")
    assert {e["command_id"] for e in history["history"] if e["undone"]} == {"w1", "w2", "w3",
                                                                             "c1"}


async def test_a_file_changed_since_refuses_the_run_and_changes_nothing(
    api: Api, root: Path
) -> None:
    run = await _applied(api, root)
    (root / "c.txt").write_text("the person's\n")
    for preview in (True, False):
        status, body = await api("undo-run", body={"run": run, "preview": preview})
        assert status == 409 and body["error"]["code"] == "ERR_UNDO_CONFLICT"
        assert "c.txt changed after" in body["error"]["message"]
    assert (root / "a.txt").read_text() == "A2\n" and (root / "b.txt").read_text() == "B\n"
    assert ("calc", "code", "y = 3") in cells_of(root / "nb.ipynb")
    _, history = await api("history")
    assert not any(e["undone"] for e in history["history"])


async def test_an_unknown_run_has_nothing_to_undo(api: Api, root: Path) -> None:
    status, body = await api("undo-run", body={"run": "no-such-run"})
    assert status == 404 and body["error"]["code"] == "ERR_NOT_FOUND"
    status, body = await api("undo-run", body={"run": ""})
    assert status == 400


async def test_the_preview_lists_the_runs_cell_runs_as_not_undone(
    api: Api, root: Path, jp_serverapp: Any
) -> None:
    """A run's cell runs come with the preview (the panel offers Rebuild state): only that
    run's, and an undo leaves them in the ledger."""
    from jupyter_operator.workspace.ledger import ExecutionRecord, executions, record_execution

    run = await _applied(api, root)
    extension = jp_serverapp.extension_manager.extension_points["jupyter_operator"].app
    journal = extension.registry.history_operator("default").journal
    for session, cell in ((run, "calc"), ("another-run", "load")):
        record_execution(journal, ExecutionRecord(
            time=1.0, session=session, command_id=f"run-{cell}", action="nb.runCell",
            notebook="nb.ipynb", cell_id=cell, source_sha256=None, kernel_name="python3",
            kernel_identity=None, where="live", execution_count=1, status="ok"))  # fmt: skip
    _, preview = await api("undo-run", body={"run": run, "preview": True})
    assert [(r["cell_id"], r["status"]) for r in preview["executions"]] == [("calc", "ok")]
    _, done = await api("undo-run", body={"run": run})
    assert [r["cell_id"] for r in done["executions"]] == ["calc"]
    assert len(executions(journal)) == 2


PAGE = "page-0123456789"
OPEN_REPLY = "\n".join([
    block("w1", "fs.write", path="a.txt", content_b64=b64("A2\n")),
    block("c1", "nb.replaceCell", notebook="nb.ipynb", cell_id="calc", content_b64=b64("y = 3")),
    block("c2", "nb.replaceCell", notebook="nb.ipynb", cell_id="intro",
          content_b64=b64("# Renamed")),
])  # fmt: skip


async def _applied_in_open_notebook(api: Api, root: Path) -> tuple[str, bytes]:
    """A run that changed a file and two cells of a notebook a page holds open (the page
    applied the cells; the notebook's file is as the page found it). The run, and those bytes."""
    (root / "a.txt").write_text("A\n")
    (root / "nb.ipynb").write_text(standard())
    await api("open-notebooks", body={"page": PAGE, "paths": ["nb.ipynb"]})
    _, scanned = await api("scan", body={"text": OPEN_REPLY})
    session = scanned["session"]
    for item in ("w1", "c1", "c2"):
        _, decided = await api("sessions", session, "decide",
                               body={"id": item, "decision": "approve"})  # fmt: skip
        if item != "w1":
            assert decided["item"]["live"]["state"] == "waiting"
            await api("sessions", session, "items", item, "live", body={"state": "applied"})
    _, history = await api("history")
    return history["history"][0]["session"], (root / "nb.ipynb").read_bytes()


async def test_a_run_that_changed_an_open_notebook_is_undone_through_its_page(
    api: Api, root: Path
) -> None:
    run, notebook_bytes = await _applied_in_open_notebook(api, root)
    status, preview = await api("undo-run", body={"run": run, "preview": True})
    assert status == 200 and [e["command_id"] for e in preview["entries"]] == ["c2", "c1", "w1"]
    status, sent = await api("undo-run", body={"run": run})
    assert status == 200, sent
    # The cell edits of each notebook change, newest first; nothing undone before the page
    # answers.
    assert [(c["entry_id"], c["notebook"], c["direction"]) for c in sent["live"]] == [
        (sent["entries"][0]["entry_id"], "nb.ipynb", "undo"),
        (sent["entries"][1]["entry_id"], "nb.ipynb", "undo")]  # fmt: skip
    assert [c["ops"] for c in sent["live"]] == [
        [{"op": "set", "id": "intro", "fields": {"source": "# Title"}}],
        [{"op": "set", "id": "calc", "fields": {"source": "y = x + 1"}}]]  # fmt: skip
    assert (root / "a.txt").read_text() == "A2\n"
    status, stale = await api("undo-run", body={"run": run, "live": {"state": "stale",
                                                                      "cell": "calc"}})  # fmt: skip
    assert status == 409 and stale["error"]["code"] == "ERR_UNDO_CONFLICT"
    assert "cell calc of nb.ipynb was edited" in stale["error"]["message"]
    assert (root / "a.txt").read_text() == "A2\n"  # refused as a whole: the file stays
    status, done = await api("undo-run", body={"run": run, "live": {"state": "applied"}})
    assert status == 200, done
    assert [(e["command_id"], e["undone"]) for e in done["entries"]] == [
        ("c2", True), ("c1", True), ("w1", True)]  # fmt: skip
    assert (root / "a.txt").read_text() == "A\n"
    assert (root / "nb.ipynb").read_bytes() == notebook_bytes  # the page holds the cells
    _, history = await api("history")
    assert all(e["undone"] for e in history["history"])


async def test_a_page_that_let_go_or_a_changed_file_leaves_the_run_as_it_was(
    api: Api, root: Path
) -> None:
    run, _ = await _applied_in_open_notebook(api, root)
    status, gone = await api("undo-run", body={"run": run, "live": {"state": "gone"}})
    assert status == 409 and gone["error"]["code"] == "ERR_PAGE_UNAVAILABLE"
    (root / "a.txt").write_text("the person's\n")
    status, body = await api("undo-run", body={"run": run})
    assert status == 409 and "a.txt changed after" in body["error"]["message"]
    assert "live" not in body
    _, history = await api("history")
    assert not any(e["undone"] for e in history["history"])
    assert (root / "a.txt").read_text() == "the person's\n"
