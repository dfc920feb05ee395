"""A kernel's magics never write a notebook beneath a collaborative room: they ask the server
that started the kernel (``kernel/server_rooms.py``), have an approved change to a notebook a
room holds applied there by the server (``POST rooms``), and refuse it when the server does
not apply it (``ERR_PAGE_UNAVAILABLE``), undo and redo too.

The stand-in server here holds real ``YNotebook`` rooms and answers as the extension's handler
does (``tests/server/test_room_state_rest.py`` runs the real handler)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from support.cell_notebooks import standard
from support.replies import block

import jupyter_operator
from jupyter_operator.kernel import server_rooms
from jupyter_operator.kernel.server_rooms import ServerRooms
from jupyter_operator.protocol import OperatorError, codes

TOKEN = "secret-token"


class FakeServer:
    """The server's ``jupyter-operator/api/rooms``: ``GET ?path=`` says rooms are open for
    ``held`` paths (with ``content=1``, the room's notebook of ``docs``), ``POST`` applies cell
    edits to ``docs`` as the server does (500 while ``broken``); 403 without the token."""

    def __init__(self) -> None:
        self.held: set[str] = set()
        self.docs: dict[str, Any] = {}
        self.asked: list[str] = []
        self.posted: list[dict[str, Any]] = []
        self.broken = False
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self, status: int, body: dict[str, Any] | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(json.dumps(body or {}).encode())

            def _allowed(self) -> bool:
                return self.headers.get("Authorization") == f"token {TOKEN}" and (
                    urlparse(self.path).path == "/base/jupyter-operator/api/rooms")

            def do_GET(self) -> None:
                from jupyter_operator.server.rooms import notebook_bytes

                query = parse_qs(urlparse(self.path).query)
                path = query.get("path", [""])[0]
                owner.asked.append(path)
                if not self._allowed():
                    return self._answer(403)
                body: dict[str, Any] = {"open": path in owner.held}
                if body["open"] and query.get("content") == ["1"] and path in owner.docs:
                    body["content"] = notebook_bytes(owner.docs[path]).decode()
                self._answer(200, body)

            def do_POST(self) -> None:
                from jupyter_operator.server.rooms import apply_edits

                if not self._allowed():
                    return self._answer(403)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.posted.append(body)
                if owner.broken:
                    return self._answer(500)
                doc = owner.docs.get(body["path"]) if body["path"] in owner.held else None
                self._answer(200, {"state": "gone"} if doc is None else apply_edits(
                    doc, body["edits"]))

            def log_message(self, *args: Any) -> None:
                return None

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.info = {"url": f"http://127.0.0.1:{self.httpd.server_port}/base/", "token": TOKEN}
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    fake = FakeServer()
    monkeypatch.setattr(server_rooms, "parent_server", lambda: fake.info)
    yield fake
    fake.httpd.shutdown()
    fake.httpd.server_close()


def room_of(path: Path) -> Any:
    """A real shared notebook loaded from ``path``, as a room holds it."""
    jupyter_ydoc = pytest.importorskip("jupyter_ydoc", reason="jupyter-collaboration is not "
                                       "installed (pip install -e '.[test]')")  # fmt: skip
    from pycrdt import Awareness, Doc

    ydoc = Doc()
    doc = jupyter_ydoc.YNotebook(ydoc, Awareness(ydoc))
    doc.set(json.loads(path.read_text()))
    return doc


def test_a_kernel_change_to_another_notebook_in_a_room_is_applied_there_by_the_server(
    ip: Any, workspace: Path, server: FakeServer
) -> None:
    nb_path = workspace / "shared.ipynb"
    nb_path.write_text(standard())
    server.held.add(str(nb_path))
    room = server.docs[str(nb_path)] = room_of(nb_path)
    room.set_cell(0, source="# Title (Bob, unsaved)")  # the preview is the room's cells
    before = nb_path.read_bytes()
    ip.run_cell_magic("operator", f"--root {workspace}", block(
        "c1", "nb.replaceCell", notebook="shared.ipynb", cell_id="calc", content="y = 0"))
    run = jupyter_operator.last_run()
    assert b"Bob, unsaved" in run.item("c1").proposal.snapshot.data
    run.approve("c1")
    item = run.item("c1")
    assert item.status == "applied" and "in the shared notebook" in item.result.summary
    assert [str(c["source"]) for c in room.ycells] == [
        "# Title (Bob, unsaved)", "x = 1\nprint(x)", "y = 0"]
    assert nb_path.read_bytes() == before  # never written beneath the room
    [posted] = server.posted
    assert posted["path"] == str(nb_path) and posted["actor"].startswith("Operator")
    from jupyter_operator.kernel.operators import session

    op = session().operator_for(workspace)
    [entry] = op.history()
    assert entry.route == "room" and entry.entry_id == item.entry_id
    # Undo goes through the server's room too.
    op.undo(item.entry_id)
    assert str(room.ycells[2]["source"]) == "y = x + 1" and nb_path.read_bytes() == before


def test_a_kernel_change_to_a_cell_edited_in_the_room_since_is_refused_by_name(
    ip: Any, workspace: Path, server: FakeServer
) -> None:
    nb_path = workspace / "shared.ipynb"
    nb_path.write_text(standard())
    server.held.add(str(nb_path))
    room = server.docs[str(nb_path)] = room_of(nb_path)
    ip.run_cell_magic("operator", f"--root {workspace}", block(
        "c1", "nb.replaceCell", notebook="shared.ipynb", cell_id="calc", content="y = 0"))
    run = jupyter_operator.last_run()
    room.set_cell(2, source="y = x * 10")  # Bob types in the cell the change replaces
    run.approve("c1")
    item = run.item("c1")
    assert item.status == "stale" and item.result.code == codes.ERR_STALE_PREVIEW
    assert "cell calc" in item.result.summary
    assert str(room.ycells[2]["source"]) == "y = x * 10"


def test_a_kernel_change_the_server_does_not_apply_is_refused_not_written(
    ip: Any, workspace: Path, server: FakeServer
) -> None:
    nb_path = workspace / "shared.ipynb"
    nb_path.write_text(standard())
    server.held.add(str(nb_path))
    server.broken = True  # it says a room holds the notebook, then fails to apply the change
    before = nb_path.read_bytes()
    ip.run_cell_magic("operator", f"--root {workspace}", block(
        "c1", "nb.replaceCell", notebook="shared.ipynb", cell_id="calc", content="y = 0"))
    run = jupyter_operator.last_run()
    run.approve("c1")
    item = run.item("c1")
    assert item.status == "failed" and item.result.code == codes.ERR_PAGE_UNAVAILABLE
    assert "collaborative room" in item.result.summary
    assert nb_path.read_bytes() == before  # never written beneath the room
    assert len(server.posted) == 1


def test_a_kernel_change_no_room_holds_is_written_and_its_undo_refused_once_one_does(
    ip: Any, workspace: Path, server: FakeServer
) -> None:
    nb_path = workspace / "nb.ipynb"
    nb_path.write_text(standard())
    ip.run_cell_magic("operator", f"--root {workspace}", block(
        "c1", "nb.replaceCell", notebook="nb.ipynb", cell_id="calc", content="y = 0"))
    run = jupyter_operator.last_run()
    run.approve("c1")
    assert run.item("c1").status == "applied" and "y = 0" in nb_path.read_text()
    written = nb_path.read_bytes()
    server.held.add(str(nb_path))  # a collaborator opens it: a room holds it now
    from jupyter_operator.kernel.operators import session

    op = session().operator_for(workspace)
    for undo in (lambda: op.undo(), lambda: op.undo_group([run.item("c1").entry_id])):
        with pytest.raises(OperatorError) as refused:
            undo()
        assert refused.value.code == codes.ERR_PAGE_UNAVAILABLE
    assert nb_path.read_bytes() == written
    server.held.clear()
    op.undo()
    assert "y = x + 1" in nb_path.read_text()
    server.held.add(str(nb_path))
    with pytest.raises(OperatorError) as refused:
        op.redo()
    assert refused.value.code == codes.ERR_PAGE_UNAVAILABLE
    assert "y = x + 1" in nb_path.read_text()


def test_the_server_is_asked_with_its_token_and_a_silent_one_counts_as_a_room(
    tmp_path: Path, server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No server (a console, nbclient): no room. A server that does not answer: a room when
    jupyter-collaboration is installed here (refused rather than written), else none."""
    path = tmp_path / "nb.ipynb"
    server.held.add(str(path))
    assert ServerRooms(server.info).holds(path)
    assert not ServerRooms(server.info).holds(tmp_path / "other.ipynb")
    no_token = {**server.info, "token": ""}
    assert ServerRooms(no_token, collaboration=lambda: True).holds(tmp_path / "other.ipynb")
    assert not ServerRooms(no_token, collaboration=lambda: False).holds(path)
    monkeypatch.setattr(server_rooms, "parent_server", lambda: None)
    assert not ServerRooms(collaboration=lambda: True).holds(path)


def test_a_folder_is_asked_about_in_one_question_and_a_silent_server_holds_it(
    tmp_path: Path,
) -> None:
    """``holding``: one ``GET rooms?path=&below=1`` for the whole folder; the file the server
    names, the folder itself when it names none it can (held somewhere below), None when
    nothing is open; a server that does not answer holds the folder when jupyter-collaboration
    is installed here; an empty folder is not asked about."""
    folder, inner = tmp_path / "work", tmp_path / "work" / "nb.ipynb"
    asked: list[str] = []

    def answering(answer: dict[str, Any]) -> Any:
        def ask(url: str, headers: dict[str, str]) -> dict[str, Any]:
            asked.append(url)
            return answer

        return ask

    info = {"url": "http://h:1/", "token": "t"}
    rooms = ServerRooms(info, ask=answering({"open": True, "file": str(inner)}))
    assert rooms.holding(folder, [inner, folder / "b.py"]) == inner
    [url] = asked
    assert parse_qs(urlparse(url).query) == {"path": [str(folder)], "below": ["1"]}
    assert ServerRooms(info, ask=answering({"open": True, "file": "nb.ipynb"})).holding(
        folder, [inner]) == folder  # fmt: skip
    assert ServerRooms(info, ask=answering({"open": False})).holding(folder, [inner]) is None
    assert ServerRooms(info, ask=answering({"open": True})).holding(folder, []) is None

    def silent(url: str, headers: dict[str, str]) -> dict[str, Any]:
        raise OSError("refused")

    assert ServerRooms(info, ask=silent, collaboration=lambda: True).holding(
        folder, [inner]) == folder  # fmt: skip
    assert ServerRooms(info, ask=silent, collaboration=lambda: False).holding(
        folder, [inner]) is None  # fmt: skip


def test_the_parent_server_is_found_by_the_kernels_parent_pid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import jupyter_core.paths

    monkeypatch.setattr(jupyter_core.paths, "jupyter_runtime_dir", lambda: str(tmp_path))
    (tmp_path / "jpserver-4242.json").write_text(json.dumps({"url": "http://h:1/", "token": "t"}))
    monkeypatch.setenv("JPY_PARENT_PID", "4242")
    assert server_rooms.parent_server() == {"url": "http://h:1/", "token": "t"}
    monkeypatch.setenv("JPY_PARENT_PID", "../4242")
    assert server_rooms.parent_server() is None
    monkeypatch.delenv("JPY_PARENT_PID")
    assert server_rooms.parent_server() is None


def test_the_files_open_below_a_folder_are_asked_in_one_question(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``open_below``: one ``GET rooms?path=&open=1``; only absolute names are taken; a
    server that does not answer names none (the command runs as with no server). The
    kernel's own page names its notebook; its room edits leave the listing to the holders."""
    from jupyter_operator.kernel.live_runs import OwnPage
    from jupyter_operator.kernel.server_rooms import ServerRoomEdits

    asked: list[str] = []
    inner = tmp_path / "work" / "nb.ipynb"

    def ask(url: str, headers: dict[str, str]) -> dict[str, Any]:
        asked.append(url)
        return {"files": [str(inner), "relative.md", 3]}

    info = {"url": "http://h:1/", "token": "t"}
    assert ServerRooms(info, ask=ask).open_below(tmp_path) == [inner]
    [url] = asked
    assert parse_qs(urlparse(url).query) == {"path": [str(tmp_path)], "open": ["1"]}

    def silent(url: str, headers: dict[str, str]) -> dict[str, Any]:
        raise OSError("refused")

    assert ServerRooms(info, ask=silent).open_below(tmp_path) == []
    assert ServerRoomEdits(server=info, ask=ask).open_below(tmp_path) == []
    assert len(asked) == 1
    inner.parent.mkdir()
    monkeypatch.setenv("JPY_SESSION_NAME", str(inner))  # the notebook the kernel runs in
    page = OwnPage(tmp_path.resolve())
    assert page.open_below(tmp_path.resolve()) == [inner.resolve()]
    assert page.open_below(tmp_path.resolve() / "other") == []
