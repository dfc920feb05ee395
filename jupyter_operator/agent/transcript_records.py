"""The transcript records of one turn's engine run: commands, decisions, results."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

#: Lines of a result kept in a card record (the cards show as many: ``DETAILS_SHOWN_LINES``).
CARD_DETAILS_LINES = 200
#: Characters of a diff kept in a card record: a larger one (a whole new file, say) is left out
#: and counted, so a transcript stays readable beside the reply that already holds the content.
CARD_DIFF_CHARS = 262_144
#: Characters (as JSON) of a cell run's outputs kept in a card record: a plot's image is left
#: out and counted (``outputs_omitted``), as a diff is.
CARD_OUTPUTS_CHARS = 262_144

if TYPE_CHECKING:
    from ..engine import DecidableRun, Item


def reason_of(item: Item) -> str | None:
    """The person's reason for a rejection, as the model reads it."""
    summary = item.result.summary if item.result is not None else ""
    return summary.partition(" Reason: ")[2] or None


def commands(run: DecidableRun) -> list[dict[str, Any]]:
    """One record per item, as planned (reads have run; mutations wait)."""
    return [
        {"id": item.id, "action": item.action, "path": item.path, "kind": item.kind,
         "status": item.status, "error_code": item.error_code}
        for item in run.items
    ]  # fmt: skip


def decisions(run: DecidableRun, decided_at: dict[str, float],
              waited: float) -> list[dict[str, Any]]:  # fmt: skip
    """One record per mutation: how it ended, who decided (person or rule), why, how long."""
    return [
        {"id": item.id, "outcome": item.status,
         "decided_by": getattr(item, "decided_by", None), "rule": getattr(item, "rule", None),
         "reason": reason_of(item),
         "wait_seconds": round(decided_at.get(item.id, waited) - waited, 4)}
        for item in run.items
        if item.kind == "mutation"
    ]  # fmt: skip


def results(run: DecidableRun) -> list[dict[str, Any]]:
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


def _cut(text: str, lines: int) -> tuple[str, int]:
    """The first ``lines`` lines of ``text`` and the characters left out."""
    head = text.split("\n", lines)
    if len(head) <= lines:
        return text, 0
    kept = len(text) - len(head[-1])
    return text[:kept], len(text) - kept


def cards(run: DecidableRun) -> list[dict[str, Any]]:
    """One record per item as its card draws it once the turn settled (``Item.to_dict``: the
    diff or the cell changes, the decision and who made it, the result and a cell run's
    outputs), so a saved run can be drawn again as the person saw it. A result is cut after
    ``CARD_DETAILS_LINES`` lines (``details_more`` counts the rest); a diff larger than
    ``CARD_DIFF_CHARS`` is left out (``diff_omitted`` counts it), and so are a cell run's
    outputs larger than ``CARD_OUTPUTS_CHARS`` (``outputs_omitted``)."""
    found = []
    for item in run.items:
        card = item.to_dict()
        details = card.get("details")
        if isinstance(details, str) and card.get("action") != "nb.readCells":  # JSON, kept whole
            card["details"], more = _cut(details, CARD_DETAILS_LINES)
            if more:
                card["details_more"] = more
        diff = card.get("diff")
        if isinstance(diff, str) and len(diff) > CARD_DIFF_CHARS:
            card["diff"], card["diff_omitted"] = None, len(diff)
        execution = card.get("execution")
        outcome = execution.get("outcome") if isinstance(execution, dict) else None
        if isinstance(outcome, dict) and outcome.get("outputs"):
            size = len(json.dumps(outcome["outputs"], default=str))
            if size > CARD_OUTPUTS_CHARS:
                # copies: the item's own execution keeps its outputs
                card["execution"] = {**execution, "outcome": {
                    **outcome, "outputs": [], "outputs_omitted": size}}  # fmt: skip
        found.append(card)
    return found
