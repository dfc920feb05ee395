"""Shell operations in the engine: what a card shows before approval, running, and the record.

Commands are not journaled file by file: undo covers file operations only. Each run is recorded
in the operator's shell history (``shell_history``): command, working folder, exit code, timing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .. import shell
from ..dialects.json_ops import Shell
from ..dialects.json_ops import response_events as events
from ..protocol import OperatorError
from ..workspace import Journal, Workspace, working_dir
from ..workspace.sandbox_masks import SandboxMasks
from . import mutations
from .shell_policy import ShellPolicy

STREAM_INTERVAL_S = 0.2  # how often a running command's card is refreshed

#: What a failed command is told when files open in a page or a room were read-only for it.
LIVE_READ_ONLY = ("\njupyter-operator: open in a page or a collaborative room, so read-only "
                  "for this command: {files}. Change an open file with a file or nb.* change "
                  "for the person to approve; it is applied in the open document.\n")


@dataclass
class ShellState:
    """A shell item's command as shown for approval, and its output once it runs.

    ``cwd`` is the workspace-relative folder (``.`` for the root); ``env`` only the extra
    variables. ``stdout``/``stderr`` fill in while it runs (the person's bounded copy).
    """

    command: str
    cwd: str
    env: dict[str, str]
    timeout_ms: int
    sandboxed: bool
    network: bool
    status: str = "waiting"  # waiting | running | finished
    stdout: str = ""
    stderr: str = ""
    exit_code: int | None = None
    duration_ms: int | None = None
    timed_out: bool = False
    truncated: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ShellRecord:
    """One command that ran, for history (shell runs cannot be undone)."""

    time: float
    command_id: str
    command: str
    cwd: str
    exit_code: int
    duration_ms: int
    timed_out: bool
    sandboxed: bool
    decided_by: str | None = None
    rule: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ShellHistory:
    """The shell runs of one operator, oldest first (kept in memory, bounded)."""

    records: list[ShellRecord] = field(default_factory=list)
    limit: int = 1000
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, record: ShellRecord) -> None:
        with self.lock:
            self.records.append(record)
            del self.records[: -self.limit]


def describe(op: Shell, policy: ShellPolicy) -> ShellState:
    """The state shown on the card before a decision: exact command, cwd, extra env."""
    return ShellState(
        command=op.command,
        cwd=op.cwd if op.cwd not in (None, "") else ".",
        env=dict(op.env),
        timeout_ms=op.timeout_ms or policy.timeout_ms,
        sandboxed=policy.sandbox and shell.sandbox_available(),
        network=policy.network,
    )


def resolve(ws: Workspace, op: Shell) -> Path:
    """The working folder through the jail (raises OperatorError)."""
    return working_dir(ws, op.cwd)


def execute(
    ws: Workspace, op: Shell, state: ShellState, policy: ShellPolicy, notify: Callable[[], None],
    journal: Journal | None = None, session: str | None = None,
    live: Callable[[], Collection[str]] | None = None,
) -> dict[str, Any]:
    """Run an approved (or allowed) command; fill ``state``; return its response event.

    With a ``journal``, a notebook the command gave its own policy (the sandbox keeps the
    policies there read-only, but a command can write a new notebook or add one to a notebook
    that had none) is moved to the trash afterwards, journaled, and the output says so.

    ``live`` names the files open in a page or a room (``live_route.open_files``): the sandbox
    binds them read-only, as the page or the room holds the person's working copy (a write
    beneath it would be lost at the next save, or reload the room for every collaborator).
    A command that fails is told which they were and how to change them instead.
    """
    cwd = resolve(ws, op)
    state.status = "running"
    notify()
    last = [0.0]
    dirty = [False]

    def on_output(stream: str, text: str) -> None:
        if text:
            setattr(state, stream, getattr(state, stream) + text)
            dirty[0] = True
        now = time.monotonic()
        if dirty[0] and now - last[0] >= STREAM_INTERVAL_S:  # at most 5 redraws a second
            last[0], dirty[0] = now, False
            notify()

    masks: tuple = ((), ())
    found = None
    if policy.sandbox and shell.sandbox_available():
        # protected paths read-only, secrets hidden, files open in a page or a room read-only
        found = ws.sandbox_masks(live() if live is not None else ())
        masks = (found.read_only, found.hidden)
    outcome = shell.run(
        op.command,
        root=ws.root,
        cwd=cwd,
        env=dict(op.env),
        allow_env=policy.env_allow,
        limits=shell.Limits(timeout_s=state.timeout_ms / 1000),
        use_sandbox=policy.sandbox,
        network=policy.network,
        read_only=shell.python_homes(),
        masks=masks,
        on_output=on_output,
    )
    state.stdout, state.stderr = outcome.stdout_full, outcome.stderr_full
    state.exit_code, state.duration_ms = outcome.exit_code, outcome.duration_ms
    state.timed_out, state.truncated = outcome.timed_out, outcome.truncated
    state.sandboxed = outcome.sandboxed
    notes = ""
    if journal is not None and found is not None:
        notes = set_aside_new_policies(ws, journal, found, op.id, session)
    if found is not None and found.live and outcome.exit_code not in (0, None):
        notes += LIVE_READ_ONLY.format(files=", ".join(found.live))
    state.stderr += notes
    state.status = "finished"
    if outcome.timed_out:
        return events.timed_out(op, outcome.duration_ms)
    return events.shell(op, outcome.exit_code, outcome.stdout, outcome.stderr + notes,
                        outcome.duration_ms, outcome.sandboxed)  # fmt: skip


def set_aside_new_policies(ws: Workspace, journal: Journal, before: SandboxMasks,
                           command_id: str, session: str | None) -> str:  # fmt: skip
    """Set aside every notebook that carries its own policy now and did not ``before`` a
    command or a cell ran in the sandbox (``mutations.set_aside``); a line for each."""
    try:
        now = ws.sandbox_masks()
    except OperatorError as exc:
        return f"\njupyter-operator: notebooks were not checked after the command ({exc.message})\n"
    lines = []
    for path in sorted(set(now.policy_notebooks) - set(before.policy_notebooks)):
        try:
            entry_id = mutations.set_aside(ws, journal, path, command_id, session=session)
        except OperatorError as exc:
            lines.append(f"jupyter-operator: {path} was given its own policy "
                         f"(metadata.jupyter_operator) and could not be set aside: {exc.message}")
            continue
        lines.append(f"jupyter-operator: {path} was given its own policy (metadata."
                     f"jupyter_operator), which only its author sets; it was moved to the trash "
                     f"({entry_id}; the person can undo that)")  # fmt: skip
    return "".join(f"\n{line}" for line in lines) + "\n" if lines else ""
