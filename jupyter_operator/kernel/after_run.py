"""After a ``%%operator`` run: the status of its commands, and undo / redo of history entries.

Apart from magics.py because the history widget's Undo and Redo buttons call the same function
as ``%operator undo`` and ``%operator redo`` (``history_entry``); they need the kernel's
session, not the magics.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .operators import session

if TYPE_CHECKING:
    from ..engine import DecidableRun
    from ..engine.undo import Direction


def status_text(run: DecidableRun) -> str:
    """One line per command of ``run``: what happened, or what it waits for."""
    from ..engine.labels import outcome_line
    from ..widgets.render import visible
    from ..widgets.run_state import run_summary

    lines = [run_summary(run)]
    for item in run.items:
        what = f"{item.action or 'invalid'} {item.path or ''}".rstrip()
        if item.foreign is not None:  # the model's own tool-call format, translated (or not)
            what += f"; the model's own tool-call format: {item.foreign.family_name}"
        if item.status == "pending":
            state = "waiting for you: click Approve or Reject on its card above"
        elif item.status == "waiting":
            state = f"runs once {item.builds_on} is decided"
        else:
            state = outcome_line(item)
        lines.append(f"  {item.id} ({what}): {state}")
    return visible("\n".join(lines))


def history_entry(direction: Direction, entry_id: str | None = None) -> str:
    """Undo one history entry (the latest by default) or redo one (the last undone), in the
    kernel's current workspace; the engine turns the change's card and its result to what is
    true now, and every history view of the notebook is drawn again."""
    from ..widgets.run_widget import history_step

    state = session()
    line = history_step(state.current_operator(), direction, entry_id)
    state.refresh_history_views()
    return line

