"""Running a batch of JSON operations: in order, pausing at the first one that needs a person.

``run_json(operator, text)`` parses the reply (``dialects.json_ops``) and works through the
operations in order. Messages and reads the policy allows run at once; a file change is planned
into its exact bytes; a shell command is checked against the shell policy. The first operation
that needs approval emits ``approvalRequired`` and the batch stops there (the rest are
``waiting``). Approving or rejecting it answers it and the batch continues, up to the next one.
Nothing waits for a person: decisions arrive later as calls, as with ``Run``.

``JsonRun`` offers what fronts use on ``Run`` (``items``, ``pending``, ``done``, ``approve``,
``reject``, ``approve_all``, ``reject_all``, ``subscribe``, ``results_text``), and ``events``:
the response events so far, which ``results_text`` formats for the model. This module orders the
batch and takes the decisions; how one operation is checked, asked about and carried out is in
``json_run_steps.py`` (``JsonItem`` and ``shell_policy_of`` are re-exported from there).
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..dialects.json_ops import Operation, events, format_events, parse
from ..protocol import codes
from . import shell_ops
from .items import Item
from .json_run_steps import APPROVAL_REASONS, NO_SANDBOX, JsonItem, JsonRunSteps, shell_policy_of
from .reads import OutputBudget

if TYPE_CHECKING:
    from .session import Operator

# Also the names now defined in json_run_steps.py: importable from here, as they always were.
__all__ = ["APPROVAL_REASONS", "NO_SANDBOX", "JsonItem", "JsonRun", "run_json", "shell_history",
           "shell_policy_of"]  # fmt: skip

log = logging.getLogger(__name__)

UNEXPECTED = "the operation failed on the host; read the file and try again."


class JsonRun(JsonRunSteps):
    """The items of one batch of JSON operations, in order, and the events produced so far."""

    dialect = "json"

    def __init__(self, operator: Operator, operations: list[Operation]) -> None:
        self._operator = operator
        self._lock = threading.RLock()
        self._subscribers: list[Callable[[Item], None]] = []
        self.events: list[dict[str, Any]] = []
        self.items: list[JsonItem] = []
        # Every operation is answered under its own id: a repeated id gets a new one that
        # equals no id of the reply (given or generated), so no two answers share an id.
        given = {op.id for op in operations}
        used: set[str] = set()
        for op in operations:
            if op.id in used:
                fresh, k = f"{op.id}-{op.index + 1}", 2
                while fresh in used or fresh in given:
                    fresh, k = f"{op.id}-{op.index + 1}-{k}", k + 1
                op = dataclasses.replace(op, id=fresh)
            used.add(op.id)
            self.items.append(self._item(op))
        self._next = 0
        # One output budget for the reads of the reply, as for every dialect (reads.py).
        self._budget = OutputBudget()

    def __repr__(self) -> str:
        return f"<JsonRun items={len(self.items)} pending={len(self.pending)}>"

    # -- what fronts read ---------------------------------------------------------------------
    @property
    def results_text(self) -> str:
        """The response events so far, as the JSON text copied back to the model."""
        return format_events(self.events)

    # -- the hooks of the decision template (``DecidableRun._decide``) ------------------------
    #: Deciding an operation continues the batch: approving or rejecting all goes on to the
    #: operations that come up after it, until none waits.
    approve_all_goes_on = True
    reject_all_goes_on = True

    def _refuse(self, item: JsonItem, note: str) -> None:
        error = "rejected by the person; nothing was done." + note
        self._answer(item, events.failure(item.operation, codes.ERR_REJECTED, error), "rejected")

    def _settle(self, item: JsonItem, and_run: bool) -> list[Item]:
        """Continue the batch after the decided operation (each answer is told as it comes)."""
        self._next = item.index + 1
        self.advance()
        return []

    # -- the batch ----------------------------------------------------------------------------
    def advance(self) -> None:
        """Answer operations in order until one needs approval or the batch ends."""
        with self._lock:
            while self._next < len(self.items):
                item = self.items[self._next]
                try:
                    self._start(item)
                except Exception:  # never a traceback for the model; the log has it for us
                    log.exception("operation %s failed", item.id)
                    failure = events.failure(item.operation, codes.ERR_IO, UNEXPECTED)
                    self._answer(item, failure, "failed")
                if item.needs_approval:
                    for later in self.items[self._next + 1 :]:
                        if later.status == "waiting":
                            later.builds_on = item.id
                            later.summary = f"runs after {item.id} is decided"
                    return
                self._next += 1


def run_json(operator: Operator, text: str) -> JsonRun:
    """Parse ``text`` as JSON operations and answer them in order, up to the first approval."""
    with operator._lock:
        run = JsonRun(operator, parse(text))
        run.advance()
        return run


def shell_history(operator: Operator) -> list[shell_ops.ShellRecord]:
    """The shell commands this operator ran, oldest first."""
    return list(operator.shell_history.records)
