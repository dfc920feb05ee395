"""A proposal: the exact bytes a person approves, and the views of them every front shows.

Below ``items`` (an item holds its proposal), ``edits`` (the person's edit of it) and
``notebook_cells`` (the notes a notebook change earns), which all build on it; it imports none
of them.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

Change = Literal["create", "modify", "delete"]


@dataclass
class Proposal:
    """A mutation computed without touching the disk: exactly the bytes a person approves.

    ``new_bytes`` is None for a delete. ``snapshot`` is the state the bytes were computed from;
    applying checks the file still has it (else ``ERR_STALE_PREVIEW``).
    """

    new_bytes: bytes | None
    snapshot: Any  # workspace.Snapshot
    change: Change
    diff: str
    added: int
    removed: int
    summary: str
    #: The path ``diff`` is ``diff_with_stats(snapshot.data, new_bytes, path)`` of, when it is
    #: exactly that (None: made otherwise, or not known): the history can then make a created
    #: file's diff again from its new bytes (``mutations.record_for``).
    diffed_as: str | None = None
    #: True when applying would write the bytes the file already has: nothing to approve.
    #: A field, not a property: the planner reads it once per change (``Operator._plan``).
    unchanged: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        snapshot = self.snapshot
        self.unchanged = (self.change == "modify" and snapshot is not None
                          and self.new_bytes == snapshot.data)  # fmt: skip

    @cached_property
    def cells(self) -> dict[str, Any] | None:
        """The cell-by-cell diff of a ``.ipynb`` change (``NotebookDiff.to_dict()``), computed on
        first use; None for other files, folders, or when a side is not a valid notebook."""
        return proposal_cells(self)

    @cached_property
    def edits(self) -> dict[str, Any] | None:
        """The cell edits of a notebook's modification (``notebooks.cell_edits``: ops, guards,
        sources), computed on first use; None for anything else. What a page holding the
        notebook applies, both at the click on Approve and once the engine has decided
        (``live_route``): callers that change them take a copy (``planned_edits``)."""
        snapshot = self.snapshot
        if (self.change != "modify" or snapshot is None or snapshot.is_dir
                or not is_notebook_path(snapshot.path)):  # fmt: skip
            return None
        from ..notebooks.cell_edits import cell_edits

        return cell_edits(snapshot.data, self.new_bytes)


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


def planned_edits(proposal: Proposal) -> dict[str, Any] | None:
    """A copy of ``proposal.edits`` its caller may change (Approve & Run clears outputs)."""
    return copy.deepcopy(proposal.edits)


def proposed_text(proposal: Proposal | None) -> str | None:
    """The proposal's new content as text (a BOM kept as U+FEFF), or None.

    None for a delete, a missing proposal, or bytes that are not UTF-8 (they cannot be edited
    as text).
    """
    if proposal is None or proposal.new_bytes is None:
        return None
    try:
        return proposal.new_bytes.decode("utf-8")
    except UnicodeDecodeError:
        return None
