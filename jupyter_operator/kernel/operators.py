"""The kernel's operator session: one ``Operator`` per workspace root, the policy, the last run.

Kept apart from the magics so the Python API (``jupyter_operator.last_run()``) and tests can
use it without IPython's machinery.
"""

from __future__ import annotations

import os
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..execution import NoRunner
from .live_runs import CommRunner, OwnPage
from .server_rooms import ServerRoomEdits, ServerRooms

if TYPE_CHECKING:
    from ..engine import DecidableRun, Operator, Policy, ShellPolicy
    from ..engine.commands import CommandSession

#: Host extensions of the protocol that ``%%operator`` runs by default: the notebook cell
#: actions.
EXTENSIONS: tuple[str, ...] = ("nb",)

#: The reason a dry run gives the model for every mutation it shows but does not write.
DRY_RUN_REASON = "dry run: the person is only previewing, nothing is written."


@dataclass
class KernelSession:
    """State shared by every ``%operator`` / ``%%operator`` call in one kernel.

    Duplicate command ids are tracked per workspace root for the kernel's lifetime, because
    each root keeps its own ``Operator``. ``root`` is None until set; the kernel's current
    working directory is used then.
    """

    root: Path | None = None
    policy: Policy | None = None
    shell_policy: ShellPolicy | None = None
    operators: dict[Path, Operator] = field(default_factory=dict)
    last_run: DecidableRun | None = None
    last_view: Any = None
    last_dry_run: bool = False
    #: Every run of this kernel, per workspace root (to show decided ones again and to mark
    #: undone changes on their cards).
    runs: dict[Path, list[DecidableRun]] = field(default_factory=dict)
    #: The history widgets on screen, redrawn after every undo or redo from anywhere.
    history_views: weakref.WeakSet[Any] = field(default_factory=weakref.WeakSet)
    #: Host extensions the runs of this kernel use (``%operator cells off`` empties it).
    extensions: tuple[str, ...] = EXTENSIONS
    #: One string-command session per workspace root, for the kernel's lifetime (its open
    #: document, variables and bash folder carry over from one ``%op`` to the next).
    command_sessions: dict[Path, CommandSession] = field(default_factory=dict)

    def resolve_root(self, path: str | os.PathLike[str] | None = None) -> Path:
        """The workspace root for a run: ``path``, else the set root, else the cwd.

        Raises ValueError with a one-line message when it is not an existing folder.
        """
        candidate = Path(path).expanduser() if path is not None else (self.root or Path.cwd())
        if not candidate.is_dir():
            raise ValueError(f"not an existing folder: {os.fspath(path or candidate)}")
        return candidate.resolve()

    def current_policy(self) -> Policy:
        """The session's policy (the engine default until someone sets one)."""
        from ..engine import Policy

        if self.policy is None:
            self.policy = Policy()
        return self.policy

    def current_shell_policy(self) -> ShellPolicy:
        """The session's shell rules (the default asks for every command)."""
        from ..engine import ShellPolicy

        if self.shell_policy is None:
            self.shell_policy = ShellPolicy()
        return self.shell_policy

    def operator_for(self, root: Path) -> Operator:
        """The session's ``Operator`` for ``root`` (created on first use)."""
        from ..engine import Operator

        op = self.operators.get(root)
        if op is None:
            op = Operator(root, policy=self.current_policy(), extensions=self.extensions,
                          runner=CommRunner(root))  # cells run in the open notebook
            op.pages = OwnPage(root)  # and its changes are applied there
            op.room_holders = ServerRooms()  # never written beneath a collaborative room
            op.rooms = ServerRoomEdits(beside=op.pages)  # other files' rooms: by the server
            self.operators[root] = op
        op.extensions = self.extensions
        op.policy = self.current_policy()
        op.shell_policy = self.current_shell_policy()
        return op

    def run(
        self, text: str, *, root: str | None = None, dry_run: bool = False,
        dialect: str | None = "auto",
    ) -> DecidableRun:  # fmt: skip
        """Plan one model reply; reads run at once, mutations wait for decisions.

        ``dialect`` is ``auto`` (detected), ``operator``, ``json`` or ``commands`` (run in the
        root's command session); ValueError otherwise, and for a dry run of string commands
        (they run as they go: there is nothing to preview apart from running them).
        """
        from ..engine import Operator, ShellPolicy, plan, resolve_dialect

        dialect = resolve_dialect(text, dialect)

        where = self.resolve_root(root)
        if dry_run and dialect == "commands":
            raise ValueError("unexpected '--dry-run': string commands have no dry run")
        if dry_run:
            # A throwaway operator: a dry run must not mark ids as seen, or the real run of the
            # same reply afterwards would skip every command as a duplicate. Reads run; every
            # mutation is planned (so its diff is shown) and then refused. A policy ``deny``
            # would refuse it before planning, and the person would see no diff.
            policy = self.current_policy().only_denials()
            dry = Operator(where, policy=policy, extensions=self.extensions,
                           runner=NoRunner("a dry run runs nothing"))
            # No command runs in a dry run: no allow rule applies, so each one is shown.
            dry.shell_policy = ShellPolicy(deny=self.current_shell_policy().deny)
            run = plan(dry, text, dialect)
            run.reject_all(reason=DRY_RUN_REASON)
        elif dialect == "commands":
            commands = self.command_session(where)
            run = plan(commands.operator, text, dialect, commands=commands)
        else:
            run = plan(self.operator_for(where), text, dialect)
            self.runs.setdefault(where, []).append(run)
        self.last_run = run
        self.last_dry_run = dry_run
        return run

    def command_session(self, where: Path) -> CommandSession:
        """The string-command session of the workspace root ``where`` (on its operator)."""
        from ..engine.commands import CommandSession

        operator = self.operator_for(where)
        found = self.command_sessions.get(where)
        if found is None or found.operator is not operator:
            found = self.command_sessions[where] = CommandSession(operator)
        return found

    def earlier_run(self, root: Path, ids: tuple[str, ...]) -> DecidableRun | None:
        """The earlier run of ``root`` that holds every id in ``ids`` (a reply run again)."""
        for run in reversed(self.runs.get(root, [])):
            known = {item.id for item in run.items}
            if ids and set(ids) <= known:
                return run
        return None

    def reset(self) -> None:
        """Start a new session (a notebook run again from the top over a folder it reset): the
        runs and seen command ids are forgotten; the root, the policy and the journal stay."""
        for op in self.operators.values():
            op.close()
        self.operators.clear()
        self.runs.clear()
        self.command_sessions.clear()
        self.last_run = self.last_view = None
        self.last_dry_run = False

    def refresh_history_views(self) -> None:
        """Redraw every history widget (an entry was undone or redone)."""
        for view in list(self.history_views):
            view.refresh()

    def current_operator(self) -> Operator:
        """The ``Operator`` of the current root (for undo and history)."""
        return self.operator_for(self.resolve_root())


_SESSION = KernelSession()


def session() -> KernelSession:
    """This kernel's session."""
    return _SESSION
