"""One operation of a JSON batch, from its item to its answer.

``JsonRunSteps`` is the base of ``JsonRun``: it makes the ``JsonItem`` of an operation, checks it
against the file and shell policies, asks for approval or refuses it, carries it out and records
its response event. ``json_run.py`` keeps what spans the batch (ids, order, the person's
decisions), so each part reads on its own: there, when an operation runs; here, how.
"""

from __future__ import annotations

import time
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
)
from ..protocol import OperatorError, Result, codes
from ..shell import sandbox_available
from ..workspace import parse_path
from . import edits, json_files, live_route, shell_ops
from .decidable import DecidableRun
from .globs import normalise_path
from .items import Item
from .reads import OutputBudget
from .shell_policy import ShellPolicy, outside_sandbox

if TYPE_CHECKING:
    from .session import Operator

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


class JsonRunSteps(DecidableRun[JsonItem]):
    """The steps of one operation; ``JsonRun`` sets the attributes below and orders the steps."""

    _operator: Operator
    _budget: OutputBudget
    events: list[dict[str, Any]]

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
            self._carry_out(item)
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
            self._carry_out(item)
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

    def _carry_out(self, item: JsonItem, and_run: bool = False) -> None:
        op = item.operation
        ws = self._operator.workspace
        try:
            if isinstance(op, Shell):
                event = shell_ops.execute(
                    ws, op, item.shell, shell_policy_of(self._operator), lambda: self._notify(item),
                    self._operator.journal, self._operator.session,
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
