"""Fixtures for the notebook experience: a real IPython shell, recorded widget comms, replies."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import comm
import pytest


class RecordingComm:
    """Stands in for a kernel comm: widgets can be built and clicked in a plain process."""

    kernel = "recording"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.comm_id = kwargs.get("comm_id") or f"comm-{id(self):x}"
        self.messages: list[Any] = []

    def open(self, *args: Any, **kwargs: Any) -> None:
        pass

    def on_msg(self, *args: Any, **kwargs: Any) -> None:
        pass

    def on_close(self, *args: Any, **kwargs: Any) -> None:
        pass

    def send(self, *args: Any, **kwargs: Any) -> None:
        self.messages.append((args, kwargs))

    def close(self, *args: Any, **kwargs: Any) -> None:
        pass


def route_comms_to_recorders(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every widget comm a test opens is a ``RecordingComm``: widgets without a kernel."""
    monkeypatch.setattr(comm, "create_comm", lambda *a, **k: RecordingComm(*a, **k))
    monkeypatch.setattr(comm, "get_comm_manager", lambda *a, **k: None)


@pytest.fixture(autouse=True)
def recording_comms(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Route every widget comm to a recorder (ipywidgets' own tests do the same).

    The test's widgets are closed afterwards: a widget left open is closed by its ``__del__``
    at interpreter exit, when ipywidgets' module globals are already gone, and each one then
    prints an "Exception ignored" traceback.
    """
    route_comms_to_recorders(monkeypatch)
    yield
    from ipywidgets import Widget

    Widget.close_all()


@pytest.fixture(autouse=True)
def journal_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Keep the undo journal of every test in its own temporary folder."""
    directory = tmp_path_factory.mktemp("journal")
    monkeypatch.setenv("JUPYTER_OPERATOR_JOURNAL_DIR", str(directory))
    return directory


@pytest.fixture
def workspace(root: Path) -> Path:
    """An empty workspace root: the suite's ``root`` (the root conftest), by the name the
    notebook tests give it."""
    return root


@pytest.fixture
def fresh_session(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A new kernel session for each test (no ids seen, no root, no policy)."""
    from jupyter_operator.kernel import operators as session_module

    fresh = session_module.KernelSession()
    monkeypatch.setattr(session_module, "_SESSION", fresh)
    yield fresh


@pytest.fixture
def ip(fresh_session: Any) -> Iterator[Any]:
    """The shared test IPython shell with the extension loaded."""
    from IPython.testing import globalipapp

    globalipapp.start_ipython()  # idempotent: one shell per test process
    shell = globalipapp.get_ipython()
    shell.run_line_magic("load_ext", "jupyter_operator")
    yield shell
    shell.run_line_magic("unload_ext", "jupyter_operator")


def diff_text(html: str) -> str:
    """A rendered diff as ``+line`` / ``-line`` / `` line`` text (line numbers and tags dropped),
    with entities left escaped: what a person reads, row by row."""
    import re

    html = re.sub(r'<span class="jpo-ln">[^<]*</span>', "", html)
    rows = re.findall(r'<div class="jpo-row[^"]*">(.*?)</div>', html)
    return "\n".join(re.sub(r"<[^>]+>", "", row) for row in rows)
