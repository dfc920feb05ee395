"""After an undo or a redo, make every card of this kernel say what is true now.

The engine marks the item that made an undone entry ``"undone"`` (``"applied"`` again on redo),
replaces its result and calls the run's subscribers, so each card redraws. This module does the
same for an engine that leaves the item as it was, and only then: it never overrides a status
the engine already set.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..engine import Run


#: The code of an undone change's result (an extension code the journal's engine defines).
UNDONE_CODE = "ERR_UNDONE"


def undone_summary() -> str:
    """What the model is told about a change the person undid (docs/protocol.md)."""
    return "Undone (ERR_UNDONE): the person undid this change; the file is as it was before."


def sync(runs: list[Run], entry: Any, *, undone: bool) -> list[Any]:
    """Update the item that made ``entry`` in ``runs``; return the items changed here."""
    from ..protocol import Result

    changed = []
    for run in runs:
        for item in run.items:
            if item.id != entry.command_id or item.kind != "mutation":
                continue
            before = "applied" if undone else "undone"
            if item.status != before:  # the engine did it (or the item never applied)
                continue
            if undone:
                item.status = "undone"
                item.result = Result(item.id, False, undone_summary(), None, UNDONE_CODE)
                item.summary = item.result.summary
                item.error_code = UNDONE_CODE
            else:
                item.status = "applied"
                applied = getattr(item, "_applied_result", None)
                item.result = applied or Result(item.id, True, "Applied again (redo).")
                item.summary = item.result.summary
                item.error_code = None
            changed.append(item)
            notify = getattr(run, "_notify", None)
            if notify is not None:
                notify(item)
    return changed


def remember_applied(runs: list[Run]) -> None:
    """Keep each applied item's result, to give it back on redo."""
    for run in runs:
        for item in run.items:
            if item.status == "applied" and item.result is not None:
                item._applied_result = item.result  # type: ignore[attr-defined]
