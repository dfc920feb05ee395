"""Bash lines of a string-command session: a proposal that shows the exact command and the
folder it runs in, carried out in the bubblewrap sandbox once a person approves it (or at once
when the shell policy allows that command).

The session's folder (``cwd``) only ever names a folder inside the workspace: ``cd`` lines are
answered by the session itself through the jail, and the folder is resolved through the jail
again when the command starts (a folder replaced by a link since is refused, nothing runs).
Inside the sandbox only the workspace is writable and there is no network (``ShellPolicy``).

The answer is ``exit: N | cwd: path`` and, when the command printed anything, ``---`` and its
output (stdout, then stderr, capped like the JSON dialect's shell events, control characters
spelled out).
"""

from __future__ import annotations

import logging
import shlex
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ... import shell
from ...dialects.commands import codes, responses
from ...dialects.commands.parse import CommandError
from ...dialects.json_ops import Shell
from ...protocol import OperatorError, Result
from ...protocol import codes as operator_codes
from ...workspace import working_dir
from .. import live_route, shell_ops
from ..decidable import DecidableRun
from ..items import Item
from ..shell_policy import ShellPolicy, outside_sandbox

if TYPE_CHECKING:
    from ..operator import Operator

log = logging.getLogger(__name__)

#: ``CommandSession(shell=SANDBOX)`` (the default): bash lines run in the bubblewrap sandbox.
SANDBOX = "sandbox"
#: A host's own runner: ``runner(command, cwd) -> (exit_status, output)``.
ShellRunner = Callable[[str, str], tuple[int, str]]
ACTION = "shell"  # the action name the item and the fronts show

NO_SANDBOX = (
    "bash lines run only inside the bubblewrap sandbox, which this host does not have "
    "(install bubblewrap); /open, /ls, /write and the other slash commands still work."
)
SANDBOX_OFF = (
    "the shell policy switches the sandbox off (sandbox=off), and bash lines of string "
    "commands run only inside it."
)


def unavailable(runner: ShellRunner | str | None, policy: ShellPolicy) -> str | None:
    """Why bash lines cannot run in this session, or None when they can."""
    if runner is None:
        return "this session has no shell runner; bash lines other than cd are refused."
    if runner != SANDBOX:
        return None
    if not policy.sandbox:
        return SANDBOX_OFF
    if not shell.sandbox_available():
        return NO_SANDBOX
    return None


_SHELL_SYNTAX = set(";&|<>`$(){}*?[]\n")


def cd_words(line: str) -> list[str] | None:
    """The words of a plain ``cd`` line (quotes allowed), which the session answers itself;
    None for any other line, ``cd docs && ls`` included (that one runs in a shell)."""
    if line.split()[:1] != ["cd"] or _SHELL_SYNTAX & set(line):
        return None
    try:
        return shlex.split(line)
    except ValueError:  # an unclosed quote: the shell says so
        return None


def shell_policy_of(operator: Operator) -> ShellPolicy:
    """The operator's shell policy (the default asks before every command)."""
    policy = getattr(operator, "shell_policy", None)
    return policy if isinstance(policy, ShellPolicy) else ShellPolicy()


@dataclass(eq=False)
class BashItem(Item):
    """The item of one bash line: ``shell`` is what the card shows (command, folder, sandbox,
    then the output); ``response`` the answer's body once it ran."""

    shell: shell_ops.ShellState | None = None
    response: str | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data.update(dialect="commands", shell=self.shell.to_dict() if self.shell else None)
        return data


def answer(status: int, cwd: str, stdout: str, stderr: str, timed_out: bool = False,
           duration_ms: int = 0) -> str:  # fmt: skip
    """The response body: ``exit: N | cwd: path`` and the output after ``---`` when there is any."""
    limit = shell.Limits().model_chars
    output = shell.cap_for_model(stdout, limit)
    if stderr:
        output += ("" if not output or output.endswith("\n") else "\n") + shell.cap_for_model(
            stderr, limit
        )
    if timed_out:
        joint = "" if not output or output.endswith("\n") else "\n"
        output += f"{joint}[stopped after {duration_ms:,} ms: the time limit]"
    shown = responses.visible(output).strip("\n")
    return responses.body(f"exit: {status} | cwd: {responses.one_line(cwd)}", shown or None)


class BashRun(DecidableRun[Item]):
    """A one-item run for a bash line: what ``Reply.run`` and the fronts decide on.

    Decided as every run is (``DecidableRun``): approving runs the command now (bounded by the
    policy's timeout); nothing waits for a person.
    """

    dialect = "commands"
    truncated_chars = 0
    unread_markers = 0
    skipped_duplicates: tuple[str, ...] = ()

    def __init__(self, operator: Operator, item: BashItem, runner: ShellRunner | str) -> None:
        self._operator = operator
        self._runner = runner
        self.items: list[Item] = [item]
        self._lock = threading.RLock()
        self._subscribers: list[Callable[[Item], None]] = []

    def __repr__(self) -> str:
        return f"<BashRun {self.items[0].id} {self.items[0].status}>"

    @property
    def results_text(self) -> str:
        item = self.items[0]
        return getattr(item, "response", None) or ""

    # -- the hooks of the decision template (``DecidableRun._decide``) ------------------------
    def _refuse(self, item: Item, note: str) -> list[Item]:
        """The command never runs; the person's reason is passed on in the response."""
        self._fail(item, operator_codes.ERR_REJECTED, "the command was not run." + note, "rejected")
        return []  # told already; a bash line is the run's one item

    def _carry_out(self, item: Item, and_run: bool = False) -> list[Item]:
        self._run_command(item)
        return []  # told as it ran; a bash line is the run's one item

    # -- running -----------------------------------------------------------------------------
    def _run_command(self, item: Item) -> None:
        """Run the approved (or allowed) command and settle the item (a bash line has no
        content a person could edit: ``edits.plan_edited`` refuses one)."""
        assert isinstance(item, BashItem)
        state = item.shell
        assert state is not None
        try:
            if self._runner == SANDBOX:
                op = _operation(item, state)
                policy = shell_policy_of(self._operator)
                shell_ops.execute(self._operator.workspace, op, state, policy,
                                  lambda: self._notify(item), self._operator.journal,
                                  self._operator.session,
                                  live=lambda: live_route.open_files(self._operator))  # fmt: skip
                self._record(item, state)
                body = answer(state.exit_code or 0, state.cwd, state.stdout, state.stderr,
                              state.timed_out, state.duration_ms or 0)  # fmt: skip
            else:
                working_dir(self._operator.workspace, state.cwd)  # the jail, again
                status, output = self._runner(state.command, state.cwd)  # type: ignore[operator]
                state.status, state.exit_code, state.stdout = "finished", status, output
                body = answer(status, state.cwd, output, "")
        except OperatorError as exc:  # the folder left the workspace since (a swapped link)
            self._fail(item, exc.code, exc.message, "failed")
            return
        except Exception:  # never a traceback in a response; the log has it for the host
            log.exception("bash line %s failed", item.id)
            self._fail(item, operator_codes.ERR_IO, "the command could not be started.", "failed")
            return
        item.response = body
        item.move_to("done")
        item.summary = body.split("\n", 1)[0]
        item.result = Result(item.id, True, item.summary, body)
        self._notify(item)

    def _record(self, item: BashItem, state: shell_ops.ShellState) -> None:
        self._operator.shell_history.add(shell_ops.ShellRecord(
            time.time(), item.id, state.command, state.cwd, state.exit_code or 0,
            state.duration_ms or 0, state.timed_out, state.sandboxed, item.decided_by, item.rule,
        ))  # fmt: skip

    def _fail(self, item: Item, code: str, message: str, status: str) -> None:
        item.result = Result.failure(item.id, code, message)
        item.move_to(status)
        item.error_code = code
        item.summary = item.result.summary
        self._notify(item)

def _operation(item: BashItem, state: shell_ops.ShellState) -> Shell:
    cwd = None if state.cwd in ("", ".") else state.cwd
    return Shell(item.index, "shell", item.id, True, state.command, cwd, state.timeout_ms, ())


def propose(operator: Operator, runner: ShellRunner | str | None, request_id: str, line: int,
            command: str, cwd: str) -> BashRun:  # fmt: skip
    """The run of one bash line, pending unless the shell policy runs (or refuses) it.

    Raises ``CommandError``: ``BASH_UNAVAILABLE`` without a sandbox, ``DENIED`` when the
    shell policy refuses the command, and the jail's codes when ``cwd`` left the workspace.
    """
    policy = shell_policy_of(operator)
    why = unavailable(runner, policy)
    if why is not None:
        raise CommandError(codes.BASH_UNAVAILABLE, why)
    assert runner is not None
    verdict = operator.policy.command_decision(policy.decide(command))
    if verdict.verdict == "deny":
        raise CommandError(codes.DENIED, f"{verdict.reason}. {policy.suggestion()}")
    working_dir(operator.workspace, cwd)  # PATH_ESCAPE etc. before anything is shown
    state = shell_ops.ShellState(
        command=command, cwd=cwd or ".", env={}, timeout_ms=policy.timeout_ms,
        sandboxed=runner == SANDBOX, network=policy.network,
    )  # fmt: skip
    # After the rules: a host's own runner is not the sandbox, so its commands always ask.
    verdict = outside_sandbox(verdict, state.sandboxed)
    item = BashItem(0, request_id, ACTION, None, line, "shell", "pending", verdict.reason,  # type: ignore[arg-type]
                    shell=state)  # fmt: skip
    run = BashRun(operator, item, runner)
    if verdict.verdict == "run":
        run.approve_by_rule(item.id, verdict.rule)
    else:
        item.rule = verdict.rule or "shell default: ask"  # why it asks, as JSON items say it
    return run
