"""The transcript records of one turn's engine run: commands, decisions, results."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..engine import Item, Run


def reason_of(item: Item) -> str | None:
    """The person's reason for a rejection, as the model reads it."""
    summary = item.result.summary if item.result is not None else ""
    return summary.partition(" Reason: ")[2] or None


def commands(run: Run) -> list[dict[str, Any]]:
    """One record per item, as planned (reads have run; mutations wait)."""
    return [
        {"id": item.id, "action": item.action, "path": item.path, "kind": item.kind,
         "status": item.status, "error_code": item.error_code}
        for item in run.items
    ]  # fmt: skip


def decisions(run: Run, decided_at: dict[str, float], waited: float) -> list[dict[str, Any]]:
    """One record per mutation: how it ended, who decided (person or rule), why, how long."""
    return [
        {"id": item.id, "outcome": item.status,
         "decided_by": getattr(item, "decided_by", None), "rule": getattr(item, "rule", None),
         "reason": reason_of(item),
         "wait_seconds": round(decided_at.get(item.id, waited) - waited, 4)}
        for item in run.items
        if item.kind == "mutation"
    ]  # fmt: skip


def results(run: Run) -> list[dict[str, Any]]:
    """One record per result the model is sent; a cell run adds what ran where (the ledger's
    fields: cell, source sha256, kernel, execution count, status)."""
    found = []
    for item in run.items:
        if item.result is None:
            continue
        record = {"id": item.result.id, "ok": item.result.ok, "summary": item.result.summary,
                  "error_code": item.error_code}  # fmt: skip
        execution = getattr(item, "execution", None)
        if execution is not None and execution.outcome is not None:
            request, outcome = execution.request, execution.outcome
            record["execution"] = {
                "notebook": request.notebook, "cell_id": request.cell_id,
                "source_sha256": request.source_sha256, "kernel": request.kernel_name,
                "kernel_identity": outcome.kernel_identity or request.kernel_identity,
                "where": execution.kernel.where, "execution_count": outcome.execution_count,
                "status": outcome.status, "duration_ms": outcome.duration_ms,
            }  # fmt: skip
        found.append(record)
    return found
