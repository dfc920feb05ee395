"""Running a batch of JSON operations: in order, pausing at the first one that needs a person.

``run_json(operator, text)`` parses the reply (``dialects.json_ops``) and works through the
operations in order. Messages and reads the policy allows run at once; a file change is planned
into its exact bytes; a shell command is checked against the shell policy. The first operation
that needs approval emits ``approvalRequired`` and the batch stops there (the rest are
``waiting``). Approving or rejecting it answers it and the batch continues, up to the next one.
Nothing waits for a person: decisions arrive later as calls, as with ``Run``.

``JsonRun`` is decided as every run is (``DecidableRun``) and adds ``events``: the response
events so far, which ``results_text`` formats for the model. It orders the batch (ids, order,
what a decision continues) and takes each operation from its ``JsonItem`` to its answer: checked
against the file and shell policies, asked about or refused, carried out, its event recorded.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..dialects.json_ops import (
    PATH_TYPES,
    InvalidOperation,
    Message,
    Operation,
    ReadFile,
    Shell,
    events,
    format_events,
    parse,
)
from ..protocol import OperatorError, Result, codes
from ..shell import sandbox_available
from ..workspace import parse_path
from . import edited_proposals as edits
from . import json_files, live_route, shell_ops
from .decidable import DecidableRun
from .globs import normalise_path
from .items import Item
from .reads import OutputBudget
from .shell_policy import ShellPolicy, outside_sandbox

if TYPE_CHECKING:
    from .operator import Operator

log = logging.getLogger(__name__)

UNEXPECTED = "the operation failed on the host; read the file and try again."

#: Why a shell operation is refused where bubblewrap cannot run (see ``_start_shell``).
NO_SANDBOX = (
    "shell commands run only inside the bubblewrap sandbox, which this host does not have "
    "(install Debian's bubblewrap), or where the person turned it off (sandbox=off)"
)

APPROVAL_REASONS = {
    "readFile": "Reading files requires approval",
    "createFile": "File changes require approval",
    "editFile": "File changes require approval",
    "deleteFile": "Deleting files requires approval",
}


@dataclass(eq=False)
class JsonItem(Item):
    """An ``Item`` for one JSON operation: its response ``event`` and, for shell, ``shell``."""

    operation: Operation | None = field(default=None, repr=False)
    event: dict[str, Any] | None = None
    shell: shell_ops.ShellState | None = None

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data.update(
            dialect="json",
            event=self.event,
            decided_by=self.decided_by,
            rule=self.rule,
            shell=self.shell.to_dict() if self.shell else None,
        )
        return data


def shell_policy_of(operator: Operator) -> ShellPolicy:
    """The operator's shell policy (the default asks for every command)."""
    policy = operator.shell_policy
    if not isinstance(policy, ShellPolicy):
        raise TypeError("Operator.shell_policy must be a ShellPolicy")
    return policy


class JsonRun(DecidableRun[JsonItem]):
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

    def _carry_out(self, item: JsonItem, and_run: bool = False) -> list[Item]:
        self._execute(item)
        return self._settle(item)

    def _refuse(self, item: JsonItem, note: str) -> list[Item]:
        error = "rejected by the person; nothing was done." + note
        self._answer(item, events.failure(item.operation, codes.ERR_REJECTED, error), "rejected")
        return self._settle(item)

    def _settle(self, item: JsonItem) -> list[Item]:
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

    # -- one operation, from its item to its answer ---------------------------------------------
    def _item(self, op: Operation) -> JsonItem:
        path = getattr(op, "path", None)
        if isinstance(op, InvalidOperation):
            kind = "error"
        elif isinstance(op, Shell):
            kind = "shell"
        elif isinstance(op, (Message, ReadFile)):
            kind = "read"
        else:
            kind = "mutation"
        item = JsonItem(
            op.index,
            op.id,
            op.type,
            path,
            op.index + 1,
            kind,
            "waiting",  # type: ignore[arg-type]
            "waits for the operations before it",
            operation=op,
        )
        if isinstance(op, Shell):
            item.shell = shell_ops.describe(op, shell_policy_of(self._operator))
        return item

    def _start(self, item: JsonItem) -> None:
        op = item.operation
        item.builds_on = None
        if isinstance(op, InvalidOperation):
            self._answer(item, events.invalid(op), "error")
        elif isinstance(op, Message):
            self._answer(item, events.message(op, op.content), "done")
        elif isinstance(op, Shell):
            self._start_shell(item, op)
        else:
            self._start_file(item, op)

    def _start_file(self, item: JsonItem, op: Operation) -> None:
        policy = self._operator.policy
        action = json_files.ACTIONS[op.type]
        path = getattr(op, "path", None)
        verdict = policy.verdict(action, path)
        if verdict.verdict == "deny":
            verdicts = {t: policy.verdict(json_files.ACTIONS[t], path) for t in PATH_TYPES}
            allowed = [t for t in PATH_TYPES if verdicts[t].verdict != "deny"]
            suggestion = "Allowed operations: " + ", ".join(["message", *allowed, "shell"])
            item.rule = verdict.text
            self._deny(item, f"{op.type} is not allowed in this workspace ({verdict.text})",
                       suggestion)  # fmt: skip
            return
        if path and normalise_path(path) is None:
            # A path the workspace refuses is never read, asked about or approved.
            try:
                parse_path(path)
            except OperatorError as exc:
                self._answer(item, events.failure(op, exc.code, exc.message), "failed")
                return
        if item.kind == "mutation":
            try:
                item.proposal = json_files.plan(self._operator.workspace, op)
            except OperatorError as exc:
                self._answer(item, events.failure(op, exc.code, exc.message), "failed")
                return
            item.summary = item.proposal.summary
        if verdict.verdict == "auto":
            item.decided_by, item.rule = "rule", verdict.text
            self._execute(item)
            return
        item.rule = verdict.text  # why it asks (a person's decision clears it)
        details = {"path": op.path, "policy": f"{op.type}.approvalRequired"}  # type: ignore[attr-defined]
        self._ask(item, APPROVAL_REASONS[op.type], details)

    def _start_shell(self, item: JsonItem, op: Shell) -> None:
        policy = shell_policy_of(self._operator)
        decision = self._operator.policy.command_decision(policy.decide(op.command, dict(op.env)))
        if decision.verdict == "deny":
            item.rule = decision.rule
            self._deny(item, decision.reason, policy.suggestion())
            return
        if policy.sandbox and not sandbox_available():
            # Outside the sandbox a command runs as this user: it could read the host's
            # environment (an API key) through /proc. Bash lines refuse too; only the person's
            # explicit sandbox=off runs commands unsandboxed.
            self._answer(item, events.failure(op, codes.ERR_SANDBOX_UNAVAILABLE, NO_SANDBOX),
                         "failed")  # fmt: skip
            return
        try:
            shell_ops.resolve(self._operator.workspace, op)
        except OperatorError as exc:
            self._answer(item, events.failure(op, exc.code, exc.message), "failed")
            return
        # After the rules: no rule runs a command outside the sandbox (sandbox=off).
        decision = outside_sandbox(decision, item.shell is not None and item.shell.sandboxed)
        if decision.verdict == "run":
            item.decided_by, item.rule = "rule", decision.rule
            self._execute(item)
            return
        details: dict[str, Any] = {"command": op.command}
        if op.cwd is not None:
            details["cwd"] = op.cwd
        if op.env:
            details["env"] = dict(op.env)
        details["policy"] = "shell.approvalRequired"
        item.rule = decision.rule or "shell default: ask"  # why it asks, as file actions say it
        self._ask(item, decision.reason, details)

    def _ask(self, item: JsonItem, reason: str, details: dict[str, Any]) -> None:
        item.move_to("pending")
        if item.kind != "mutation":
            item.summary = reason
        self.events.append(events.approval_required(item.operation, reason, details))
        self._notify(item)

    def _deny(self, item: JsonItem, reason: str, suggestion: str) -> None:
        event = events.policy_denied(item.operation, reason, suggestion)
        item.decided_by = "rule"
        self._answer(item, event, "denied", code=codes.ERR_POLICY_DENIED, summary=reason)

    def _execute(self, item: JsonItem) -> None:
        """Carry out an approved (or allowed) operation and answer it."""
        op = item.operation
        ws = self._operator.workspace
        try:
            if isinstance(op, Shell):
                event = shell_ops.execute(
                    ws, op, item.shell, shell_policy_of(self._operator), lambda: self._notify(item),
                    self._operator.journal, self._operator.session,
                    live=lambda: live_route.open_files(self._operator),
                )
                self._record_shell(item, op)
                status = "done" if event["success"] else "failed"
            elif isinstance(op, ReadFile):
                event, status = json_files.read(ws, op, self._budget), "done"
            else:
                live_route.refuse_beneath_room(self._operator, op.path)  # the room saves it
                event, item.entry_id = json_files.apply(
                    ws, self._operator.journal, op, item.proposal,
                    session=self._operator.session, decided_by=item.decided_by, rule=item.rule,
                    label=self._operator.label,
                )  # fmt: skip
                status = "applied"
                if item.edited and item.proposed is not None:
                    written = item.proposal.new_bytes
                    diff = edits.edit_diff(item.proposed.new_bytes, written, op.path)
                    event = events.person_edited(event, diff, len(written or b""))
        except OperatorError as exc:
            stale = exc.code == codes.ERR_STALE_PREVIEW
            self._answer(
                item, events.failure(op, exc.code, exc.message), "stale" if stale else "failed"
            )
            return
        self._answer(item, event, status)

    def _record_shell(self, item: JsonItem, op: Shell) -> None:
        state = item.shell
        self._operator.shell_history.add(
            shell_ops.ShellRecord(
                time.time(),
                op.id,
                op.command,
                state.cwd,
                state.exit_code,
                state.duration_ms,
                state.timed_out,
                state.sandboxed,
                item.decided_by,
                item.rule,
            )
        )

    def _answer(
        self,
        item: JsonItem,
        event: dict[str, Any],
        status: str,
        *,
        code: str | None = None,
        summary: str | None = None,
    ) -> None:
        item.event = event
        item.move_to(status)
        ok = bool(event.get("success", event.get("type") == "message"))
        item.error_code = code or event.get("code")
        if summary is None:
            summary = event.get("error") or json_files.summary(event)
        item.summary = summary
        details = event.get("content") if event.get("type") == "readFile" else None
        item.result = Result(item.id, ok, summary, details, None if ok else item.error_code)
        self.events.append(event)
        self._notify(item)


def run_json(operator: Operator, text: str) -> JsonRun:
    """Parse ``text`` as JSON operations and answer them in order, up to the first approval."""
    with operator._lock:
        run = JsonRun(operator, parse(text))
        run.advance()
        return run


def shell_history(operator: Operator) -> list[shell_ops.ShellRecord]:
    """The shell commands this operator ran, oldest first."""
    return list(operator.shell_history.records)
