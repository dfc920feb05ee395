"""A kernel's magics never write a notebook beneath a collaborative room: they ask the server
that started the kernel (``kernel/server_rooms.py``) and refuse a change to a notebook a room
holds (``ERR_PAGE_UNAVAILABLE``, saying to propose it from the panel), undo and redo too."""

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
    """The server's ``GET jupyter-operator/api/rooms?path=``: rooms open for ``held`` paths,
    403 without the server's token."""

    def __init__(self) -> None:
        self.held: set[str] = set()
        self.asked: list[str] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                url = urlparse(self.path)
                path = parse_qs(url.query).get("path", [""])[0]
                owner.asked.append(path)
                if self.headers.get("Authorization") != f"token {TOKEN}" or (
                        url.path != "/base/jupyter-operator/api/rooms"):  # fmt: skip
                    self.send_response(403)
                    self.end_headers()
                    return
                body = json.dumps({"open": path in owner.held}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(body)

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


def test_a_kernel_change_to_a_notebook_in_a_room_is_refused_not_written(
    ip: Any, workspace: Path, server: FakeServer
) -> None:
    nb_path = workspace / "shared.ipynb"
    nb_path.write_text(standard())
    server.held.add(str(nb_path))
    before = nb_path.read_bytes()
    ip.run_cell_magic("operator", f"--root {workspace}", block(
        "c1", "nb.replaceCell", notebook="shared.ipynb", cell_id="calc", content="y = 0"))
    run = jupyter_operator.last_run()
    run.approve("c1")
    item = run.item("c1")
    assert item.status == "failed" and item.result.code == codes.ERR_PAGE_UNAVAILABLE
    assert "collaborative room" in item.result.summary and "panel" in item.result.summary
    assert nb_path.read_bytes() == before  # never written beneath the room
    assert server.asked == [str(nb_path)]


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
    from jupyter_operator.kernel.session import session

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
