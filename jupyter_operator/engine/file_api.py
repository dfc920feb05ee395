"""One file replaced outside any reply (the server's file API), journaled like any change."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..protocol import OperatorError, codes
from ..workspace import HistoryEntry, parse_path, unified_diff, validate_notebook
from . import live_route, mutations
from .items import Proposal

if TYPE_CHECKING:
    from .operating import Operating


def write_file(operator: Operating, path: str, data: bytes, *, command_id: str,
               action: str) -> HistoryEntry:  # fmt: skip
    """``Operator.write_file``: the person's client decided; a ``.ipynb`` must be a notebook.
    A file open in a collaborative room is not written beneath it (``ERR_PAGE_UNAVAILABLE``):
    the room saves it, and would reload the written file over every collaborator's undo."""
    comps = parse_path(path)
    if comps and comps[-1].lower().endswith(".ipynb"):
        validate_notebook(data)
    with operator.lock:
        live_route.refuse_beneath_room(operator, path)
        before = operator.workspace.snapshot(path, limit=mutations.EDIT_LIMIT)
        if before.is_dir:
            raise OperatorError(codes.ERR_NOT_A_FILE, f"{path} is a directory.")
        change = "modify" if before.exists else "create"
        diff = unified_diff(before.data, data, path)
        proposal = Proposal(data, before, change, diff, 0, 0, "", diffed_as=path)
        entry = mutations.record_for(
            operator.journal, operator.journal.allocate_id(), command_id, action, path, proposal,
            session=operator.session, decided_by="person", rule=None,
        )  # fmt: skip
        mutations.commit(operator.workspace, operator.journal, entry, proposal)
        return entry
