"""The notebook's history widget says that undo does not roll a kernel back."""

from __future__ import annotations

from types import SimpleNamespace

from jupyter_operator.widgets.history import KERNEL_NOTE, _row_html


def entry(action: str) -> SimpleNamespace:
    return SimpleNamespace(entry_id="j1", time=0.0, action=action, path="nb.ipynb",
                           command_id="e1", session="s", decided_by="person", rule=None,
                           undone=False, redone=False, diff=None, partial=False)  # fmt: skip


def test_cell_changes_and_runs_carry_the_kernel_note() -> None:
    assert "not the kernel" in KERNEL_NOTE
    assert "not the kernel" in _row_html(entry("nb.replaceCell"))
    assert "not the kernel" in _row_html(entry("nb.runCell"))
    assert "not the kernel" not in _row_html(entry("fs.write"))
