"""Carrying out an approved item: a read runs, a mutation's exact previewed bytes are applied,
a cell run starts. Whatever goes wrong becomes the item's one result, never a traceback."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..protocol import CELL_WRITE_ACTIONS, OperatorError, Result, codes
from ..workspace import canonical_path
from . import cell_actions as cells
from . import live_route, mutations, outcome_notes, run_items
from .reads import OutputBudget, run_read

if TYPE_CHECKING:
    from .items import Item
    from .operating import Deciding, Operating

log = logging.getLogger(__name__)

UNEXPECTED = "the operation failed on the host; read the file and try again."


def unexpected(id: str) -> Result:
    """The result of a failure we did not foresee: no traceback, no host path."""
    return Result.failure(id, codes.ERR_IO, UNEXPECTED)


def carry_out(op: Operating, item: Item, budget: OutputBudget, run: Deciding | None = None, *,
              disk: bool = False, and_run: bool = False) -> None:  # fmt: skip
    """``Operator.carry_out``: run the read, apply the change, or start the cell run.

    A change to a notebook open in a collaborative room goes to that room, one open in a page
    to that page (``live_route``) unless ``disk`` (the page has let go of it); ``and_run``
    (Approve & Run) clears the replaced cells' outputs there with the change.
    """
    cmd = item.command
    if item.kind == "run":
        run_items.start(op, run, item)
        return
    try:
        if item.kind == "read":
            result = run_read(op.workspace, cmd, budget, extensions=op.extensions,
                              policy=op.policy,
                              kernel=lambda nb, name: run_items.kernel_view(op, nb, name))
            outcome_notes.finish(item, result, "done" if result.ok else "failed")
            return
        if (cmd.action in CELL_WRITE_ACTIONS and not item.edited
                and not live_route.in_room(op, cmd.params.path)):  # a room's cells are the base
            item.proposal = cells.rebased(op.workspace, cmd, item.proposal)
        if live_route.route(op, item, run, and_run, disk=disk):
            return  # the room or the page applies it; beneath a room, refused
        result, item.entry_id = mutations.apply(
            op.workspace, op.journal, cmd, item.proposal, session=op.session,
            decided_by=item.decided_by, rule=item.rule, label=op.label,
        )  # fmt: skip
        # only a cell change asks for the started runner (the walk stays short otherwise)
        runner = op.started_runner if cmd.action in CELL_WRITE_ACTIONS else None
        if runner is not None and runner.capabilities.takes_cell_changes:
            # A live runner keeps the open notebook's cells in line with the file.
            runner.cells_written(canonical_path(cmd.params.path), item.proposal.snapshot.data,
                                 item.proposal.new_bytes)  # fmt: skip
    except Exception as exc:
        if not isinstance(exc, OperatorError):
            log.exception("%s %s failed", cmd.action, cmd.id)
            outcome_notes.finish(item, unexpected(cmd.id), "failed")
            return
        if exc.code == codes.ERR_STALE_PREVIEW:
            message = f"{exc.message} Read the file again."
            outcome_notes.finish(item, Result.failure(cmd.id, exc.code, message), "stale")
        else:
            outcome_notes.finish(item, Result.of_error(cmd.id, exc), "failed")
        return
    outcome_notes.finish(item, result, "applied")
