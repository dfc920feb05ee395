"""The notebook's display of one run: a ``RunWidget`` wired to the run's own workspace.

Undo, redo and the history in a card view act on the workspace the run changed (its
``Operator``), whatever the kernel's current root is now.
"""

from __future__ import annotations

from typing import Any

from ..widgets.run_widget import RunWidget
from .session import session


def _operator_of(run: Any) -> Any:
    operator = getattr(run, "_operator", None)  # Run, JsonRun
    if operator is None:  # CommandRun: its command session's
        operator = getattr(getattr(run, "session", None), "operator", None)
    return operator if operator is not None else session().current_operator()


def widget_for(
    run: Any, *, title: str | None = None, dry_run: bool = False, note: str = ""
) -> RunWidget:
    """The cards of ``run`` (any dialect with items), with undo and history of its workspace."""
    operator = _operator_of(run)

    def undo(entry_id: str | None) -> str:
        entry = operator.undo(entry_id)
        session().refresh_history_views()
        return f"Undone: {entry.action} {entry.path} (entry {entry.entry_id})"

    def redo(entry_id: str | None) -> str:
        entry = operator.redo(entry_id)
        session().refresh_history_views()
        return f"Redone: {entry.action} {entry.path} (entry {entry.entry_id})"

    def history() -> dict[str, Any]:
        from ..engine.executions import executions

        return {"history": [entry.to_dict() for entry in operator.history()],
                "executions": [r.to_dict() for r in executions(operator.journal)]}  # fmt: skip

    options: dict[str, Any] = {"dry_run": dry_run, "note": note}
    if title:
        options["title"] = title
    return RunWidget(run, undo=undo, redo=redo, history=history, **options)
