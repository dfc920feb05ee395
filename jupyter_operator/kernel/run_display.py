"""The notebook's display of one run: a ``RunWidget`` wired to the run's own workspace.

Undo, redo and the history in a card view act on the workspace the run changed (its
``Operator``), whatever the kernel's current root is now, and after the run's engine session
closed (``workspace_history``).
"""

from __future__ import annotations

from typing import Any

from ..widgets.run_widget import RunWidget, engine_operator, workspace_history
from .session import session


def widget_for(
    run: Any, *, title: str | None = None, dry_run: bool = False, note: str = ""
) -> RunWidget:
    """The cards of ``run`` (any dialect with items), with undo and history of its workspace."""
    operator = engine_operator(run) or session().current_operator()
    undo, redo, history = workspace_history(operator, after=session().refresh_history_views)
    options: dict[str, Any] = {"dry_run": dry_run, "note": note}
    if title:
        options["title"] = title
    return RunWidget(run, undo=undo, redo=redo, history=history, **options)
