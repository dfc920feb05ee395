"""Run items of a reply (``nb.runCell``, ``nb.restartKernel``, ``nb.rebuildState``) in a ``Run``.

The session plans them, the rules and the person decide them, and the runner reaches the
kernel; this module is the glue. A run previewed on top of a pending change of the same reply
waits for it (``builds_on``) and is planned again from the disk once it is decided, so what
runs is the source the person approved (edited or not), never the old one.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

from ..execution import CellRunner, Outcome
from ..notebooks import teacher
from ..protocol import OperatorError, Result, codes
from ..workspace import MAX_PLANNED_BYTES, Snapshot, Workspace
from ..workspace import cell_transforms as nbcells
from ..workspace.sandbox_masks import SandboxMasks
from . import executions, live_route, mutations, outcome_notes, shell_ops
from .items import Item

if TYPE_CHECKING:
    from .executions import Execution
    from .operating import Deciding, Operating
    from .rules import Verdict

log = logging.getLogger(__name__)

LIVE_ASKS = ("runs in a live notebook's kernel ask unless the server or the notebook allows "
             "rules to run them")  # fmt: skip
UNATTENDED_UNSANDBOXED = ("--approve all runs no code outside the sandbox (bubblewrap is missing "
                          "or cannot start here); run it with a person's approval of this run")
UNSANDBOXED_ASKS = ("runs ask where the session's kernel is not sandboxed (bubblewrap is missing "
                    "or cannot start here): the code would run with your permissions")  # fmt: skip


def plan(operator: Operating, item: Item, base: Snapshot | None) -> None:
    """Plan ``item``'s run (raises OperatorError for command faults); a notebook open in a
    page is planned on what the page shows (``live_route.base``)."""
    path = getattr(item.command.params, "path", None)
    if base is None and isinstance(path, str):
        base = live_route.base(operator, path)
    workspace = operator.workspace
    item.execution = executions.plan(workspace, operator.journal, item.command,
                                     operator.runner, base, workspace.notebook_cap)  # fmt: skip
    item.summary = f"run {item.execution.what}"


def may_auto(operator: Operating, item: Item) -> bool:
    """Whether a rule may approve this run: the session's own kernel, or a live one the
    server (the runner) or the notebook (``auto-run``) explicitly opened to rules."""
    if item.execution is None:
        return False
    if operator.runner.capabilities.allows_auto:
        return True
    return teacher.allows(item.execution.policy, "auto-run")


def runs_unsandboxed(operator: Operating) -> bool:
    """Whether the session's own kernel would run code outside the sandbox (bubblewrap missing
    or not starting): then no rule runs code, a person decides each run. A live kernel is the
    person's own and never sandboxed; rules reach it only where the person opened it to them
    (:func:`may_auto`). Where nothing runs cells, nothing would run unsandboxed."""
    can = operator.runner.capabilities
    return can.runs_cells and not can.live_kernel and not can.sandboxed


def replan(operator: Operating, item: Item, refused: str | None, edited: str | None) -> None:
    """Plan a dependent run again from the disk, now that the change it waited for is decided."""
    item.builds_on = None
    if refused is not None:
        message = f"it runs after {refused}, which was rejected; nothing ran."
        outcome_notes.finish(item, Result.failure(item.id, codes.ERR_BASE_REJECTED, message),
                             "rejected")  # fmt: skip
        return
    try:
        plan(operator, item, None)
    except OperatorError as exc:
        if edited is not None:
            exc = OperatorError(exc.code, f"{exc.message} (it runs after {edited}, which the "
                                "person edited before approving.)")  # fmt: skip
        outcome_notes.finish(item, Result.of_error(item.id, exc), "failed")


def start(operator: Operating, run: Deciding | None, item: Item) -> None:
    """Run an approved item: guards first, then the runner; ``finish`` ends it (maybe later).

    Every caller settles ``run`` once this returns (the decision's ``Run._settle``, or a
    page's answer's): a run that ended by then, on this thread, is settled there, and
    ``run.ran`` is only for one that ends later (a kernel's answer on another thread)."""
    execution = item.execution
    assert execution is not None
    if not teacher.allows(execution.policy, "apply"):
        outcome_notes.finish(item, Result.failure(item.id, codes.ERR_NOTEBOOK_POLICY,
                                                  teacher.MEANING[execution.policy] + "."),
                             "denied")  # fmt: skip
        return
    # The runner the run was planned with (its kernel is the one the card shows).
    runner = execution.runner or operator.runner
    can = runner.capabilities
    if can.checks_staleness:
        stale = _stale(operator.workspace, execution)
        if stale is not None:
            finish(operator, run, item, stale, runner=runner, settled_by_caller=True)
            return
    item.move_to("running")  # a change under Approve & Run too: the run waits for its output
    item.summary = f"running {execution.what}"
    once = threading.Lock()
    # The notebooks carrying their own policy before a sandboxed cell runs: one that carries
    # a policy after it and not before, the cell gave it.
    before = None
    if can.sandboxed:
        before = operator.workspace.sandbox_masks()

    starting = [threading.get_ident()]  # emptied once ``runner.start`` returned

    def done(outcome: Outcome) -> None:
        if once.acquire(blocking=False):  # a runner that answers twice is answered once
            now = threading.get_ident() in starting  # still inside start, on its thread
            finish(operator, run, item, outcome, before, runner=runner, settled_by_caller=now)

    try:
        runner.start(execution.request, done)
    except Exception:
        log.exception("starting %s failed", item.id)
        done(Outcome("unavailable", message="the kernel could not be reached"))
    finally:
        starting.clear()


def _stale(ws: Workspace, execution: Execution) -> Outcome | None:
    """A ``stale`` outcome when a cell on disk is no longer the one previewed, else None: the
    cell of a run, or each cell of a rebuild (its old source would run, and its outputs be
    saved under the edited cell).

    Only the source counts: outputs, execution counts and metadata are not edits.
    """
    request = execution.request
    if request.cells:
        guarded = [(cell_id, None, digest) for cell_id, _source, digest in request.cells]
    elif request.cell_id is not None or request.index is not None:
        guarded = [(request.cell_id, request.index, request.source_sha256)]
    else:
        return None
    try:
        nb = nbcells.load_notebook(ws.read_bytes(request.notebook, limit=MAX_PLANNED_BYTES),
                                   request.notebook)  # fmt: skip
    except OperatorError as exc:
        why = f"the notebook cannot be read ({exc.message}); nothing ran."
        return Outcome("stale", message=why)
    for cell_id, index, digest in guarded:
        what = f"cell {cell_id}" if cell_id else f"the cell at index {index}"
        try:
            position = nbcells.locate(nb, cell_id, None if cell_id else index)
        except OperatorError as exc:
            return Outcome("stale", message=f"{what} is no longer there ({exc.message}); nothing "
                           "ran.")  # fmt: skip
        if nbcells.source_sha256(nbcells.source_of(nb.cells[position])) != digest:
            return Outcome("stale", message=f"{what} was edited since the preview; nothing ran. "
                           "Read it again (nb.readCells) before running it.")  # fmt: skip
    return None


def finish(operator: Operating, run: Deciding | None, item: Item, outcome: Outcome,
           before: SandboxMasks | None = None, *, runner: CellRunner | None = None,
           settled_by_caller: bool = False) -> None:  # fmt: skip
    """Record a finished run, tell the model, save the outputs (session's own kernels); with
    ``before`` (the sandbox's masks when the cell started), set aside the notebooks it gave a
    policy (``shell_ops.set_aside_new_policies``). ``runner``: the one that ran it (by default
    the session's). ``run.ran`` is told unless ``settled_by_caller`` (``start``)."""
    saves = (runner or operator.runner).capabilities.saves_outputs
    result = executions.finish(operator.workspace, operator.journal, item, outcome,
                               session=operator.session, label=operator.label,
                               saves_outputs=saves)  # fmt: skip
    if before is not None:
        notes = shell_ops.set_aside_new_policies(operator.workspace, operator.journal, before,
                                                 item.id, operator.session)  # fmt: skip
        if notes:
            result = Result(result.id, result.ok, result.summary,
                            (result.details or "") + notes, result.code)
    if run is not None:
        result = _charged(run, result)
    status = "done" if result.ok else "stale" if outcome.status == "stale" else "failed"
    if item.kind != "run":  # Approve & Run on a change: the change's result tells both
        if item.status != "applied":  # still applied when the cell was stale before it ran
            item.move_to("applied")
        _combine(item, result)
    else:
        outcome_notes.finish(item, result, status)
        item.summary = result.summary
    if run is not None and not settled_by_caller:
        run.ran(item)


def _charged(run: Deciding, result: Result) -> Result:
    """The result with its details taken from the reply's output budget (the reads' one): a
    run that happened is never refused, its details are cut to what is left instead."""
    from ..execution.report import head_tail

    details = result.details or ""
    budget = run.budget
    left = max(budget.limit - budget.used, 0)
    size = len(details.encode("utf-8"))
    if size > left:
        details = head_tail(details, left // 4)  # characters: at most 4 bytes each
        size = len(details.encode("utf-8"))
    budget.used += size
    return Result(result.id, result.ok, result.summary, details or None, result.code)


def _combine(item: Item, ran: Result) -> None:
    change = item.result
    if change is None:
        return
    from .notebook_cells import without_stale_note

    # The cell ran: its outputs are the new source's, whatever the change's note said.
    change = Result(change.id, change.ok, without_stale_note(change.summary), change.details,
                    change.code)  # fmt: skip
    if ran.ok:
        summary = f"{change.summary}, then ran it: {ran.summary}"
        item.result = Result(change.id, True, summary, ran.details)
    else:  # the change is applied; the run failed: the failure's own form, code first
        from .labels import person_text

        what = f"{change.summary.rstrip('.')}, then ran it: {person_text(ran.summary)}"
        item.result = Result.failure(change.id, ran.code or codes.ERR_CELL_ERROR, what,
                                     ran.details)  # fmt: skip
    item.summary = item.result.summary


def _not_run(item: Item, refused: Result) -> None:
    """Approve & Run whose run is refused: the change's result, with the refusal's code and
    why the cell did not run."""
    change = item.result
    if change is None:
        return
    from .labels import person_text

    what = f"{change.summary.rstrip('.')}; the cell did not run: {person_text(refused.summary)}"
    item.result = Result.failure(change.id, refused.code or codes.ERR_POLICY_DENIED, what)
    item.summary = item.result.summary


def runs_refused(operator: Operating, notebook: str) -> str | None:
    """The rule that refuses running cells of ``notebook`` (``rule 1: deny runs``), or None."""
    verdict = operator.policy.verdict("nb.runCell", notebook)
    return verdict.text if verdict.verdict == "deny" else None


def after_change(operator: Operating, run: Deciding, item: Item) -> bool:
    """Approve & Run: run the cell an applied insert or replace just wrote. False when there is
    nothing to run (a markdown cell, or the change was not applied) or the rules refuse runs in
    that notebook: the person's click approves the change and asks for the run, it does not
    lift a ``deny`` rule (the change's result then says why nothing ran)."""
    cmd = item.command
    if item.status != "applied" or cmd is None or cmd.action not in ("nb.insertCell",
                                                                     "nb.replaceCell"):
        return False
    # Applied in the open page, the change is what the page shows (the file is older).
    base = mutations.after(item.proposal) if item.live and item.proposal else None
    try:
        data = (base.data if base is not None else
                operator.workspace.read_bytes(cmd.params.path, limit=mutations.EDIT_LIMIT))
        nb = nbcells.load_notebook(data, cmd.params.path)
        if cmd.action == "nb.insertCell":
            position = min(cmd.params.index, len(nb.cells) - 1)
        else:
            position = nbcells.locate(nb, cmd.params.cell_id, cmd.params.index)
        cell = nb.cells[position]
    except (OperatorError, IndexError):
        return False
    if cell.get("cell_type") != "code":
        return False
    refused = runs_refused(operator, cmd.params.path)
    if refused is not None:
        message = f"nb.runCell is not allowed in this workspace ({refused})."
        _not_run(item, Result.failure(item.id, codes.ERR_POLICY_DENIED, message))
        return False
    from ..protocol import RunCell

    cell_id = cell.get("id") if isinstance(cell.get("id"), str) else None
    params = RunCell(path=cmd.params.path, cell_id=cell_id,
                     index=None if cell_id else position)  # fmt: skip
    runner_cmd = type(cmd)(id=cmd.id, action="nb.runCell", path=cmd.params.path,
                           line=cmd.line, fields={}, params=params)  # fmt: skip
    try:
        item.execution = executions.plan(operator.workspace, operator.journal, runner_cmd,
                                         operator.runner, base, operator.workspace.notebook_cap)
    except OperatorError as exc:  # nothing ran: the change's result says why
        _not_run(item, Result.of_error(item.id, exc))
        return False
    start(operator, run, item)
    return True


def kernel_view(operator: Operating, notebook: str, kernel_name: str) -> dict[str, Any]:
    """What ``nb.readCells`` says of a notebook's kernel (never starts one)."""
    info = operator.runner.kernel(notebook, kernel_name)
    return {"name": info.name, "state": info.state, "execution_count": info.execution_count,
            "where": info.where}  # fmt: skip


def plan_item(operator: Operating, item: Item, verdict: Verdict, earlier: Item | None) -> Item:
    """Plan a cell run of a reply: on top of the pending change it follows, or from the disk;
    a rule's ``auto`` marks it to start once the run exists (``Operator.run``)."""
    base = None
    if earlier is not None and earlier.kind == "mutation" and earlier.proposal is not None:
        base = mutations.after(earlier.proposal)
    item.builds_on = earlier.id if earlier else None
    try:
        plan(operator, item, base)
    except OperatorError as exc:
        return outcome_notes.finish(item, Result.of_error(item.id, exc), "failed")
    except Exception:
        log.exception("planning %s failed", item.id)
        message = "the operation failed on the host; read the file and try again."
        return outcome_notes.finish(item, Result.failure(item.id, codes.ERR_IO, message), "failed")
    item.rule = verdict.text
    if verdict.verdict == "auto" and not item.builds_on:
        if not may_auto(operator, item):
            item.rule = f"{verdict.text}; {LIVE_ASKS}"
        elif runs_unsandboxed(operator):  # after the rules: no rule runs code unsandboxed
            item.rule = f"{verdict.text}; {UNSANDBOXED_ASKS}"
        else:
            item.decided_by = "rule"
    return item
