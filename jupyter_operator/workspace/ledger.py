"""The execution ledger: every cell run in a workspace, in order, beside the undo journal.

A run changes no file a person approved byte for byte (its outputs are saved through an
ordinary journaled change), but it changes a kernel's state, which no undo rolls back. The
ledger says what ran where: the cell, the exact source's sha256, the kernel and its identity
(which changes on restart), the execution count, the status and who decided. History shows it,
and ``nb.rebuildState`` replays the cells recorded since a kernel's last restart.

Like the journal, the file is untrusted input: a line that does not check out is skipped
when it is the torn tail of a killed append, and refused otherwise (``ERR_JOURNAL_CORRUPT``).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from jupyter_operator.protocol import OperatorError

from .history_records import DIGEST, corrupt
from .journal import Journal
from .paths import canonical_path

LEDGER = "executions.jsonl"


@dataclass(frozen=True)
class ExecutionRecord:
    """One run: what ran, where, in what order, and how it ended."""

    time: float
    session: str
    command_id: str
    action: str  # nb.runCell | nb.restartKernel | nb.rebuildState
    notebook: str
    cell_id: str | None
    source_sha256: str | None
    kernel_name: str
    kernel_identity: str | None
    where: str  # headless | live
    execution_count: int | None
    status: str
    decided_by: str | None = None
    rule: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _checked(data: Any) -> ExecutionRecord:
    if not isinstance(data, dict):
        raise ValueError("not an object")
    record = ExecutionRecord(**data)
    for name in ("session", "command_id", "action", "kernel_name", "where", "status"):
        if not isinstance(getattr(record, name), str):
            raise ValueError(name)
    if not isinstance(record.notebook, str) or len(record.notebook) > 4096:
        raise ValueError("notebook")
    if record.source_sha256 is not None and not DIGEST.fullmatch(str(record.source_sha256)):
        raise ValueError("digest")
    count = record.execution_count
    if count is not None and (not isinstance(count, int) or isinstance(count, bool)):
        raise ValueError("execution_count")
    if not isinstance(record.time, (int, float)):
        raise ValueError("time")
    return record


def record_execution(journal: Journal, record: ExecutionRecord) -> None:
    """Append one run to the ledger."""
    journal._append(record.to_dict(), name=LEDGER)


def executions(journal: Journal) -> list[ExecutionRecord]:
    """Every recorded run, oldest first (``ERR_JOURNAL_CORRUPT`` for a damaged ledger)."""
    text = journal._read_entries(LEDGER)
    lines = text.split("\n")
    found: list[ExecutionRecord] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            found.append(_checked(json.loads(line)))
        except (ValueError, TypeError, RecursionError):
            if number == len(lines):  # the torn tail of a killed append
                continue
            raise corrupt(f"line {number} of its execution ledger is not valid") from None
    return found


def same_notebook(recorded: str, notebook: str) -> bool:
    """Whether a ledger entry's notebook is ``notebook``, however either was spelled
    (``./n.ipynb`` is ``n.ipynb``); a recorded path the workspace refuses is no notebook."""
    if recorded == notebook:
        return True
    try:
        return canonical_path(recorded) == canonical_path(notebook)
    except OperatorError:
        return False


def since_restart(records: list[ExecutionRecord], notebook: str,
                  identity: str | None) -> list[ExecutionRecord]:  # fmt: skip
    """The cells run in ``notebook``'s kernel ``identity`` (since its last start), in order."""
    return [
        record for record in records
        if same_notebook(record.notebook, notebook) and record.kernel_identity == identity
        and record.action == "nb.runCell" and record.cell_id is not None
    ]  # fmt: skip


def to_rebuild(records: list[ExecutionRecord], notebook: str,
               identity: str | None) -> list[ExecutionRecord]:  # fmt: skip
    """The runs a rebuild repeats: those of the notebook's kernel ``identity`` when it ran
    cells, else (just restarted) those of the latest kernel that did: the state that was lost.
    """
    runs = [r for r in records if same_notebook(r.notebook, notebook) and r.action == "nb.runCell"
            and r.cell_id is not None]  # fmt: skip
    if identity is not None and any(r.kernel_identity == identity for r in runs):
        return [r for r in runs if r.kernel_identity == identity]
    if not runs:
        return []
    last = runs[-1].kernel_identity
    return [r for r in runs if r.kernel_identity == last]
