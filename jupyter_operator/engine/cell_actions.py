"""The notebook cell actions (``nb.*``) in the engine: one read and four planned changes.

A cell change is an ordinary ``Proposal`` whose ``new_bytes`` is the whole new notebook, so
what applies to any change applies here unchanged: the preview the person approves (and the
cell diff of a ``.ipynb``), edits before approval, rules, the sha256 guard at apply time
(``ERR_STALE_PREVIEW``), the undo journal. Only the scan (``protocol``, when the host enables
the ``nb`` extension) and the transform (``workspace.cells``) are new.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..protocol import CELL_ACTIONS, Command, OperatorError, Result, codes
from ..workspace import (
    MAX_PLANNED_BYTES,
    FileTooLarge,
    Snapshot,
    Workspace,
    canonical_path,
    check_size,
    diff_with_stats,
    is_notebook,
    validate_notebook,
)
from ..workspace import cell_transforms as nbcells
from .items import Proposal

__all__ = ["CELL_ACTIONS", "plan", "read_cells", "success_summary"]


def _require_notebook(path: str) -> None:
    if not is_notebook(path):
        raise OperatorError(
            codes.ERR_NOT_A_NOTEBOOK, f"{path} is not a .ipynb file; nothing was done."
        )


def _load(ws: Workspace, path: str, base: Snapshot | None) -> tuple[Snapshot, nbcells.Notebook]:
    _require_notebook(path)
    snapshot = base if base is not None else ws.snapshot(path, limit=MAX_PLANNED_BYTES)
    if snapshot.is_dir:
        raise OperatorError(codes.ERR_NOT_A_FILE, f"{path} is a directory.")
    if not snapshot.exists:
        raise OperatorError(codes.ERR_NOT_FOUND, f"{path} does not exist; create it first.")
    return snapshot, nbcells.load_notebook(snapshot.data, path)


def _change(nb: nbcells.Notebook, cmd: Command) -> tuple[str, bool]:
    """Apply the command to the parsed notebook: the pending summary's first words, and
    whether anything changed (the same source again, or a move to where the cell is, does not).
    """
    p = cmd.params
    if cmd.action == "nb.insertCell":
        where = nbcells.insert_cell(nb, p.index, p.cell_type, p.content)
        return f"insert {p.cell_type} cell at {where}", True
    position = nbcells.locate(nb, p.cell_id, p.index)
    what = nbcells.describe_cell(nb, position)
    if cmd.action == "nb.replaceCell":
        return f"replace {what}", nbcells.replace_cell(nb, position, p.content, p.cell_type)
    if cmd.action == "nb.deleteCell":
        nbcells.delete_cell(nb, position)
        return f"delete {what}", True
    return f"move {what} to {p.to_index}", nbcells.move_cell(nb, position, p.to_index)


def plan(ws: Workspace, cmd: Command, base: Snapshot | None = None) -> Proposal:
    """The whole new notebook a cell change would write, and its diff; nothing is written.

    ``base`` is the outcome of an earlier pending change to the same notebook in the reply.
    Raises OperatorError: ``ERR_NOT_A_NOTEBOOK``, ``ERR_NOT_FOUND``, ``ERR_CELL_NOT_FOUND``,
    ``ERR_CELL_INDEX_MISMATCH``, ``ERR_INVALID_CELL_PARAMS``, ``ERR_INVALID_NOTEBOOK`` (the
    result would not validate), ``ERR_RESULT_TOO_LARGE``.
    """
    path = cmd.params.path
    snapshot, nb = _load(ws, path, base)
    what, changed = _change(nb, cmd)
    if not changed:
        # The same source again, or a move to where the cell is: the engine settles it as
        # "no change" (nothing to approve) instead of offering a reformatted file.
        return Proposal(snapshot.data, snapshot, "modify", "", 0, 0, f"{what}, no change")
    new_bytes = nbcells.dump_notebook(nb)
    check_size(len(new_bytes))
    validate_notebook(new_bytes)
    diff, added, removed = diff_with_stats(snapshot.data, new_bytes, path)
    proposal = Proposal(new_bytes, snapshot, "modify", diff, added, removed, "")
    # Count what the person sees: the cells' source lines (the card draws the change as cells),
    # not the lines of notebook JSON behind them.
    cells = proposal.cells
    if cells is not None:
        proposal.added = sum(entry["added"] for entry in cells["cells"])
        proposal.removed = sum(entry["removed"] for entry in cells["cells"])
    proposal.summary = f"{what}, +{proposal.added} -{proposal.removed} lines"
    return proposal


def _kernel_name(nb: nbcells.Notebook) -> str:
    spec = nb.doc.get("metadata", {}).get("kernelspec")
    name = spec.get("name") if isinstance(spec, dict) else None
    return name if isinstance(name, str) and name else "python3"


def read_cells(ws: Workspace, cmd: Command,
               kernel: Callable[[str, str], dict[str, Any]] | None = None) -> Result:  # fmt: skip
    """``nb.readCells``: the cells of a range, JSON in the details (outputs summarised), and
    the notebook's kernel as ``kernel(notebook, kernel_name)`` describes it."""
    p = cmd.params
    _require_notebook(p.path)
    try:
        data = ws.read_bytes(p.path, limit=MAX_PLANNED_BYTES)  # what a change may plan over
    except FileTooLarge as exc:
        message = f"the notebook is too large for nb.readCells ({exc.size} bytes)."
        raise OperatorError(codes.ERR_FILE_TOO_LARGE, message) from None
    nb = nbcells.load_notebook(data, p.path)  # (the workspace refused it if it is off)
    view = nbcells.cell_view(nb, p.path, p.start_index, p.count)
    if kernel is not None:
        view["kernel"] = kernel(canonical_path(p.path), _kernel_name(nb))
    shown = view["cells"]
    total = view["cell_count"]
    if shown:
        summary = f"Read cells {shown[0]['index']}-{shown[-1]['index']} of {total}"
    elif total:
        summary = f"Read cells (past the end: the notebook has {total} cells)"
    else:
        summary = "Read cells (the notebook has no cells)"
    return Result(cmd.id, True, summary, nbcells.view_text(view))


def success_summary(cmd: Command, proposal: Proposal) -> str:
    """The result summary of an applied cell change (names the new cell's id for an insert)."""
    p = cmd.params
    if cmd.action == "nb.insertCell":
        where = f"Inserted {p.cell_type} cell at index {p.index}"
        try:
            nb = nbcells.load_notebook(proposal.new_bytes, p.path)
            cell_id = nb.cells[p.index].get("id")
        except (OperatorError, IndexError):  # bytes a person edited may not have it
            cell_id = None
        return f"{where} (id {cell_id})" if isinstance(cell_id, str) else where
    cell = f"cell {p.cell_id}" if p.cell_id else f"cell at index {p.index}"
    if cmd.action == "nb.replaceCell":
        return f"Replaced {cell}" + (f" (now {p.cell_type})" if p.cell_type else "")
    if cmd.action == "nb.deleteCell":
        return f"Deleted {cell}"
    return f"Moved {cell} to index {p.to_index}"


def _sources(data: bytes | None, path: str) -> list[tuple[Any, Any, str]] | None:
    try:
        nb = nbcells.load_notebook(data or b"", path)
    except OperatorError:
        return None
    return [(c.get("id"), c.get("cell_type"), nbcells.source_of(c)) for c in nb.cells]


def rebased(ws: Workspace, cmd: Command, proposal: Proposal) -> Proposal:
    """``proposal``, or the same cell change planned again on the notebook as it is now when
    only outputs, execution counts or metadata changed since the preview (a cell run saved its
    outputs, JupyterLab saved the open notebook): those are not edits, so no false alarm. Any
    change to a cell's id, type or source keeps the old proposal, which the apply refuses as
    stale."""
    path = cmd.params.path
    now = ws.snapshot(path, limit=MAX_PLANNED_BYTES)
    before = proposal.snapshot
    if not now.exists or now.is_dir or now.sha256 == before.sha256:
        return proposal
    theirs = _sources(before.data, path)
    if theirs is None or theirs != _sources(now.data, path):
        return proposal
    try:
        again = plan(ws, cmd, now)
    except OperatorError:
        return proposal
    return again
