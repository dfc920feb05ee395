"""Decided cards are saved as static output (server/savehook.py), through the real contents API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nbformat
import pytest

from jupyter_operator.server.savehook import WIDGET_VIEW, strip_final_widgets

VIEW = {"model_id": "abc", "version_major": 2, "version_minor": 0}


def _output(final: bool | None, *, html: bool = True) -> dict[str, Any]:
    data: dict[str, Any] = {WIDGET_VIEW: VIEW, "text/plain": "Operator run: 1 command: 1 applied"}
    if html:
        data["text/html"] = "<div>applied</div>"
    metadata = {} if final is None else {"jupyter_operator": {"final": final}}
    return {"output_type": "display_data", "data": data, "metadata": metadata}


def _notebook(*outputs: dict[str, Any]) -> dict[str, Any]:
    cell = {
        "cell_type": "code", "id": "c0", "metadata": {}, "source": "%%operator",
        "execution_count": 1, "outputs": list(outputs),
    }  # fmt: skip
    return {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def test_only_final_cards_lose_their_widget_view() -> None:
    nb = _notebook(_output(True), _output(False), _output(None), _output(True, html=False))
    assert strip_final_widgets(nb) == 1
    final, pending, foreign, bare = nb["cells"][0]["outputs"]
    assert WIDGET_VIEW not in final["data"] and final["data"]["text/html"] == "<div>applied</div>"
    # A run still waiting keeps its live buttons; other widgets are not ours to touch; an
    # output with no static HTML to fall back on is never emptied.
    assert all(WIDGET_VIEW in o["data"] for o in (pending, foreign, bare))


@pytest.fixture(params=[{}, {"static_saved_cards": False}], ids=["on", "off"])
def operator_config(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The server started with the hook (the default) and with it switched off."""
    return dict(request.param)


async def test_saving_through_the_contents_api(
    jp_fetch: Any, root: Path, operator_config: dict[str, Any]
) -> None:
    enabled = operator_config.get("static_saved_cards", True)
    body = {"type": "notebook", "format": "json", "content": _notebook(_output(True))}
    await jp_fetch("api", "contents", "saved.ipynb", method="PUT", body=json.dumps(body))
    saved = nbformat.reads((root / "saved.ipynb").read_text(), as_version=4)
    data = saved.cells[0].outputs[0]["data"]
    assert (WIDGET_VIEW in data) is not enabled
    assert data["text/html"] == "<div>applied</div>"
