"""Root pytest configuration: the jupyter-server fixtures (jp_fetch, jp_ws_fetch, ...), and the
fixtures every part of the suite shares: a workspace, an Operator on it, the loopback model.
The shared fakes, fixtures and literals themselves are in ``tests/support/`` (replies are built
with ``support.replies``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from support.fake_openai import FakeOpenAI

    from jupyter_operator.engine import Operator

pytest_plugins = ("pytest_jupyter.jupyter_server",)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """An empty workspace folder (``tmp_path/ws``); the journal goes beside it."""
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


@pytest.fixture
def make_operator(tmp_path: Path, root: Path) -> Callable[..., Operator]:
    """``make_operator(**kwargs)``: an ``Operator`` on ``root`` whose journal is outside it."""
    from jupyter_operator.engine import Operator

    def make(**kwargs: object) -> Operator:
        return Operator(root, journal_dir=tmp_path / "journal", **kwargs)  # type: ignore[arg-type]

    return make


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    """A loopback endpoint speaking the chat-completions API (``support.fake_openai``): the
    model of agent runs and of Ask mode. A folder may share one a module (browser tests)."""
    from support.fake_openai import FakeOpenAI

    with FakeOpenAI() as server:
        yield server


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Playwright's sync API keeps its event loop running for the whole browser session, and
    # pytest-jupyter's per-test loop fixture cannot close a running loop: so the real-browser
    # tests run last (a stable sort keeps every other order).
    items.sort(key=lambda item: item.nodeid.startswith("tests/browser/"))
