"""Root pytest configuration: the jupyter-server fixtures (jp_fetch, jp_ws_fetch, ...)."""

from __future__ import annotations

import pytest

pytest_plugins = ("pytest_jupyter.jupyter_server",)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Playwright's sync API keeps its event loop running for the whole browser session, and
    # pytest-jupyter's per-test loop fixture cannot close a running loop: so the real-browser
    # tests run last (a stable sort keeps every other order).
    items.sort(key=lambda item: item.nodeid.startswith("tests/browser/"))
