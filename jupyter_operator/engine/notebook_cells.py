"""The cell diff of a proposal that changes a notebook (what fronts show instead of JSON)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .proposals import Proposal


#: How the note of ``stale_outputs_note`` starts (a run of the cell takes it away again).
STALE_MARK = "; outputs stale:"


def without_stale_note(summary: str) -> str:
    """``summary`` without the stale-outputs note (the cell ran: its outputs are new)."""
    return summary.split(STALE_MARK)[0]


def stale_outputs_note(proposal: Proposal) -> str:
    """What the model is told of the outputs ``proposal`` leaves behind its new sources: a
    code cell whose source it replaced keeps the old source's outputs. "" when none does."""
    found = proposal.cells if proposal.new_bytes is not None else None
    if not found:
        return ""
    stale = [entry for entry in found.get("cells", []) if entry.get("stale_outputs")]
    if not stale:
        return ""
    names = ", ".join(str(e.get("id") or f"index {e.get('new_index')}") for e in stale[:10])
    more = f" and {len(stale) - 10} more" if len(stale) > 10 else ""
    return (f"{STALE_MARK} cell {names}{more} still shows the outputs of its old source "
            "until it runs again")  # fmt: skip
