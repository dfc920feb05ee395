"""notebooks/04-dialects.ipynb runs unattended: the same task in both dialects, tests run by a
shell command in the workspace."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from notebook_runs import execute, text


def printed(outputs: list[dict[str, Any]]) -> str:
    return text(outputs, streams=("stdout",))


def test_both_dialects_side_by_side(tmp_path: Path) -> None:
    work = tmp_path / "cwd"
    work.mkdir()
    _nb, out = execute("04-dialects.ipynb", work)
    assert "[('write-mathx', 'applied'), ('write-test', 'applied')]" in printed(out["cell-07"])
    listing = printed(out["cell-10"])
    # The saved output of the cards follows the decisions made in later cells: a reader of the
    # saved notebook sees the final state.
    assert "[Applied] createFile mathx.py (createFile-1)" in listing
    assert "[Done] shell (shell-1)" in listing
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
