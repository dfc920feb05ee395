"""notebooks/04-dialects.ipynb runs unattended: the same task in both dialects, tests run by a
shell command in the workspace."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = REPO / "notebooks" / "04-dialects.ipynb"


def printed(outputs: list[dict[str, Any]]) -> str:
    parts = []
    for out in outputs:
        assert out["output_type"] != "error", out
        if out["output_type"] == "stream" and out["name"] == "stdout":
            parts.append(out["text"])
        elif "data" in out:
            parts.append(out["data"].get("text/plain", ""))
    return "".join(parts)


def test_stored_without_outputs() -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert all(cell.outputs == [] and cell.execution_count is None for cell in code)


def test_both_dialects_side_by_side(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    )
    monkeypatch.setenv("JUPYTER_OPERATOR_JOURNAL_DIR", str(tmp_path / "journal"))
    work = tmp_path / "cwd"
    work.mkdir()
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(work)}}
    ).execute()
    out = {cell["id"]: cell.get("outputs", []) for cell in nb.cells if cell.cell_type == "code"}
    assert "[('write-mathx', 'applied'), ('write-test', 'applied')]" in printed(out["cell-07"])
    listing = printed(out["cell-10"])
    # The saved output of the cards follows the decisions made in later cells: a reader of the
    # saved notebook sees the final state.
    assert "[applied] createFile mathx.py (createFile-1)" in listing
    assert "[done] shell (shell-1)" in listing
    decided = printed(out["cell-11"])
    assert "waiting for: ['createFile-1']" in decided
    assert "('shell-1', 'done'), ('message-2', 'done')" in decided
    assert "exit code: 0 | tests: OK" in decided
    events = json.loads(printed(out["cell-13"]))
    assert [e["type"] for e in events].count("approvalRequired") == 3
    assert events[-2]["type"] == "shell" and events[-2]["exitCode"] == 0
    assert "same files in both workspaces: True" in printed(out["cell-15"])
    history = printed(out["cell-16"])
    assert "Shell commands (not undoable)" in history and "python3 -m unittest -v" in history
    assert list(work.iterdir()) == []
