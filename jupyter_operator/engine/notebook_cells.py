"""The cell diff of a proposal that changes a notebook (what fronts show instead of JSON)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .items import Proposal


def is_notebook_path(path: str | None) -> bool:
    """True for a ``.ipynb`` name (the snapshot's path is already parsed and normalised)."""
    return bool(path) and path.rstrip("/").lower().endswith(".ipynb")


def proposal_cells(proposal: Proposal) -> dict[str, Any] | None:
    """``diff_notebooks`` of the bytes before and after ``proposal``, JSON-ready, or None."""
    snapshot = proposal.snapshot
    if snapshot is None or snapshot.is_dir or not is_notebook_path(snapshot.path):
        return None
    if snapshot.data is None and proposal.new_bytes is None:
        return None
    from ..notebooks.celldiff import diff_notebooks

    found = diff_notebooks(snapshot.data, proposal.new_bytes)
    return found.to_dict() if found is not None else None


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
