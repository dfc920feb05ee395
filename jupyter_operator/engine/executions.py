"""Cell runs in the engine: planned like a change, decided like one, recorded in the ledger.

``plan`` reads the notebook once (or the state an earlier pending change of the reply leaves),
finds the cell and takes the guards of the preview: the sha256 of the exact source shown and
the kernel's identity. ``request`` checks them again just before the run (a cell edited or a
kernel restarted since is ``stale``; outputs and metadata are not edits). ``finish`` turns the
outcome into the model's result, records the run in the ledger and, for a kernel the session
owns, saves the outputs into the ``.ipynb`` through an ordinary journaled change.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field, replace
from typing import Any

from ..execution import CellRunner, KernelInfo, Outcome, RunRequest, report
from ..notebooks import teacher
from ..protocol import RUN_TIMEOUT_DEFAULT_S, Command, OperatorError, Result, codes
from ..workspace import (
    MAX_PLANNED_BYTES,
    Journal,
    Snapshot,
    Workspace,
    canonical_path,
    unified_diff,
)
from ..workspace import cell_transforms as nbcells
from ..workspace.cell_transforms import source_sha256
from ..workspace.ledger import (
    ExecutionRecord,
    executions,
    record_execution,
    since_restart,
    to_rebuild,
)
from . import mutations
from .cell_actions import _kernel_name
from .items import Item, Proposal

log = logging.getLogger(__name__)

#: Ledger entries a card shows as "ran before in this kernel".
RAN_BEFORE_SHOWN = 5

NOT_ROLLED_BACK = "undo restores files and cells, not the kernel's state (variables, imports)"


@dataclass
class Execution:
    """What a run card shows and what the runner gets once it is approved."""

    request: RunRequest
    kernel: KernelInfo
    what: str  # "cell c1 (index 2)", "the kernel", "the kernel's state (3 cells)"
    policy: str  # the notebook's own policy, capped by the server
    ran_before: list[dict[str, Any]] = field(default_factory=list)
    outcome: Outcome | None = None
    #: The runner it was planned with (``kernel`` is its kernel), which runs it once approved;
    #: None for a run loaded from a saved session (it ended long ago).
    runner: CellRunner | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "request": self.request.to_dict(),
            "kernel": self.kernel.to_dict(),
            "what": self.what,
            "policy": self.policy,
            "ran_before": self.ran_before,
            "outcome": None if self.outcome is None else {
                "status": self.outcome.status,
                "execution_count": self.outcome.execution_count,
                "duration_ms": self.outcome.duration_ms,
                "outputs": self.outcome.outputs,
            },
        }  # fmt: skip


def notebook_level(nb: nbcells.Notebook, cap: str | None) -> str:
    return teacher.capped(teacher.level_of(nb.doc), cap)


def refuse_by_level(level: str, what: str) -> None:
    """``ERR_NOTEBOOK_POLICY`` when the notebook's own policy does not allow ``what``."""
    if not teacher.allows(level, what):
        raise OperatorError(codes.ERR_NOTEBOOK_POLICY,
                            f"{teacher.MEANING[level]} (policy: {level}).")  # fmt: skip


def _ran_before(journal: Journal, notebook: str, identity: str | None) -> list[dict[str, Any]]:
    if identity is None:
        return []
    found = since_restart(executions(journal), notebook, identity)[-RAN_BEFORE_SHOWN:]
    return [{"cell_id": r.cell_id, "execution_count": r.execution_count, "status": r.status}
            for r in found]  # fmt: skip


def plan(ws: Workspace, journal: Journal, cmd: Command, runner: CellRunner,
         base: Snapshot | None = None, cap: str | None = None) -> Execution:  # fmt: skip
    """The run a command asks for, with the guards of its preview; nothing runs.

    Raises OperatorError: ``ERR_NOT_A_NOTEBOOK``, ``ERR_NOT_FOUND``, ``ERR_CELL_NOT_FOUND``,
    ``ERR_CELL_INDEX_MISMATCH``, ``ERR_NOT_A_CODE_CELL``, ``ERR_NOTEBOOK_POLICY``.
    """
    from .cell_actions import _load

    p = cmd.params
    _snapshot, nb = _load(ws, p.path, base)
    level = notebook_level(nb, cap)
    refuse_by_level(level, "run")
    # One kernel and one ledger history per notebook, however the model spelled its path.
    notebook = canonical_path(p.path)
    kernel = runner.kernel(notebook, _kernel_name(nb))
    ran_before = _ran_before(journal, notebook, kernel.identity)
    # A kernel already dead at the preview is shown so: approving starts a new one, which is
    # what the person saw. One that dies after the preview makes the run stale (the runner).
    alive = kernel.identity if kernel.state != "dead" else None
    common = {"notebook": notebook, "kernel_identity": alive, "kernel_name": kernel.name}
    if cmd.action == "nb.restartKernel":
        request = RunRequest(cell_id=None, index=None, source="", source_sha256=source_sha256(""),
                             timeout_s=RUN_TIMEOUT_DEFAULT_S, restart=True,
                             **common)  # fmt: skip
        return Execution(request, kernel, "the kernel (its state will be lost)", level, ran_before,
                         runner=runner)
    if cmd.action == "nb.rebuildState":
        # Each cell once, in the notebook's order: the kernel comes back in line with it.
        positions = set()
        for record in to_rebuild(executions(journal), notebook, kernel.identity):
            try:
                positions.add(nbcells.locate(nb, record.cell_id, None))
            except OperatorError:
                continue  # a cell deleted since: nothing to run again
        cells = []
        for position in sorted(positions):
            cell = nb.cells[position]
            if cell.get("cell_type") == "code":
                source = nbcells.source_of(cell)
                cells.append((cell.get("id"), source, source_sha256(source)))
        request = RunRequest(cell_id=None, index=None, source="", source_sha256=source_sha256(""),
                             timeout_s=RUN_TIMEOUT_DEFAULT_S, restart=True, cells=tuple(cells),
                             **common)  # fmt: skip
        count = len(cells)
        what = f"the kernel's state: restart, then {count} cell{'s' * (count != 1)} again"
        return Execution(request, kernel, what, level, ran_before, runner=runner)
    position = nbcells.locate(nb, p.cell_id, p.index)
    cell = nb.cells[position]
    if cell.get("cell_type") != "code":
        raise OperatorError(codes.ERR_NOT_A_CODE_CELL,
                            f"{nbcells.describe_cell(nb, position)} is not a code cell.")
    source = nbcells.source_of(cell)
    cell_id = cell.get("id") if isinstance(cell.get("id"), str) else None
    request = RunRequest(cell_id=cell_id, index=position, source=source,
                         source_sha256=source_sha256(source), timeout_s=p.timeout_s,
                         timeout_asked=p.timeout_asked, **common)  # fmt: skip
    return Execution(request, kernel, nbcells.describe_cell(nb, position), level, ran_before,
                     runner=runner)


def result_of(cmd_id: str, execution: Execution, outcome: Outcome) -> Result:
    """The model's result of a finished (or refused) run."""
    if outcome.status == "ok" and execution.request.restart and not execution.request.cells:
        return Result(cmd_id, True, "Restarted the kernel; its variables and imports are gone.")
    request = execution.request
    names = [f"cell {cell_id}" for cell_id, _source, _sha in request.cells]
    result = report(cmd_id, outcome, execution.what, timeout_s=request.timeout_s,
                    steps=names or None)  # fmt: skip
    if request.timeout_asked is not None and outcome.status not in ("stale", "unavailable"):
        note = (f" (timeout_s {request.timeout_asked} is above the maximum: the run had "
                f"{request.timeout_s:g} s)")  # fmt: skip
        result = replace(result, summary=result.summary + note)
    return result


def record(journal: Journal, execution: Execution, outcome: Outcome, *, session: str,
           command_id: str, action: str, decided_by: str | None, rule: str | None,
           where: str) -> None:  # fmt: skip
    """Put a finished run (each cell of a rebuild) in the ledger."""
    request = execution.request
    identity = outcome.kernel_identity or request.kernel_identity
    common = {"time": time.time(), "session": session, "notebook": request.notebook,
              "kernel_name": request.kernel_name, "where": where, "decided_by": decided_by,
              "rule": rule}  # fmt: skip
    if request.restart:
        record_execution(journal, ExecutionRecord(
            command_id=command_id, action="nb.restartKernel", cell_id=None, source_sha256=None,
            kernel_identity=identity, execution_count=None,
            status="ok" if outcome.status != "unavailable" else outcome.status, **common,
        ))  # fmt: skip
    steps = list(zip(request.cells, outcome.steps, strict=False)) if request.cells else []
    if not request.cells and request.source_sha256 and not (request.restart and not request.source):
        steps = [((request.cell_id, request.source, request.source_sha256), outcome)]
    for (cell_id, _source, digest), step in steps:
        if step.status in ("stale", "unavailable"):
            continue
        record_execution(journal, ExecutionRecord(
            command_id=command_id, action="nb.runCell", cell_id=cell_id, source_sha256=digest,
            kernel_identity=step.kernel_identity or identity,
            execution_count=step.execution_count, status=step.status, **common,
        ))  # fmt: skip


def saved_outputs(ws: Workspace, execution: Execution,
                  outcome: Outcome) -> tuple[Proposal, str] | None:  # fmt: skip
    """The notebook with the run's outputs in its cells, as a change to journal, or None.

    Only for kernels the session owns (a live notebook shows and saves its own outputs).
    """
    request = execution.request
    steps = zip(request.cells, outcome.steps, strict=False)
    pairs = [(cell[0], step) for cell, step in steps] if request.cells else []
    if not request.cells and request.source and outcome.status not in ("stale", "unavailable"):
        pairs = [(request.cell_id, outcome)]
    if not pairs:
        return None
    before = ws.snapshot(request.notebook, limit=MAX_PLANNED_BYTES)
    if not before.exists or before.is_dir:
        return None
    nb = nbcells.load_notebook(before.data, request.notebook)
    changed = False
    for cell_id, step in pairs:
        try:
            position = nbcells.locate(nb, cell_id, None if cell_id else request.index)
        except OperatorError:
            continue
        cell = nb.cells[position]
        cell["outputs"] = step.outputs
        cell["execution_count"] = step.execution_count
        changed = True
    if not changed:
        return None
    new_bytes = nbcells.dump_notebook(nb)
    if new_bytes == before.data:
        return None
    if len(new_bytes) > MAX_PLANNED_BYTES:  # every nb.* action would refuse the notebook after
        raise OperatorError(codes.ERR_RESULT_TOO_LARGE, f"the outputs were not saved: the "
                            f"notebook would be {len(new_bytes):,} bytes, more than the "
                            f"{MAX_PLANNED_BYTES:,} a notebook action reads.")  # fmt: skip
    diff = unified_diff(before.data, new_bytes, request.notebook)
    return Proposal(new_bytes, before, "modify", diff, 0, 0, "outputs of the run"), request.notebook


def finish(ws: Workspace, journal: Journal, item: Item, outcome: Outcome, *, session: str,
           label: str | None, saves_outputs: bool) -> Result:  # fmt: skip
    """What a finished run of ``item`` leaves behind, and the model's result of it: the item's
    execution gets its outcome, the ledger the run, and with ``saves_outputs`` (a runner whose
    capabilities say so) the notebook its outputs, through a journaled change. What could not be
    recorded or saved is a note in the result: the run happened."""
    execution = item.execution
    assert execution is not None
    item.execution = replace(execution, outcome=outcome)
    try:
        result = result_of(item.id, execution, outcome)
    except Exception:  # the run ended: it must end here too, not stay "running" for ever
        log.exception("reporting the run of %s failed", item.id)
        result = Result.failure(item.id, codes.ERR_IO, f"the run ended ({outcome.status}), but "
                                "its outputs could not be read; read the cells (nb.readCells).")
    try:
        if outcome.status not in ("stale", "unavailable"):
            record(journal, execution, outcome, session=session, command_id=item.id,
                   action=item.action or "", decided_by=item.decided_by, rule=item.rule,
                   where=execution.kernel.where)  # fmt: skip
        found = saved_outputs(ws, execution, outcome) if saves_outputs else None
        if found is not None:
            proposal, path = found
            entry = mutations.record_for(
                journal, journal.allocate_id(), item.id, "nb.runCell", path, proposal,
                session=session, decided_by=item.decided_by, rule=item.rule, label=label,
            )  # fmt: skip
            mutations.commit(ws, journal, entry, proposal)
    except OperatorError as exc:  # the run happened; only its record or its outputs failed
        result = Result(result.id, result.ok, result.summary,
                        (result.details or "") + f"\nnote: {exc.message}\n", result.code)
    return result
