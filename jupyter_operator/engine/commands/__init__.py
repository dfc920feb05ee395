"""String-command sessions (the ``commands`` dialect) on top of the engine."""

from .actions import Doc
from .bash import SANDBOX, BashItem, BashRun
from .command_run import CommandRun, run_commands
from .command_session import CommandSession, ShellRunner
from .replies import Batch, Reply

__all__ = [
    "SANDBOX", "BashItem", "BashRun", "Batch", "CommandRun", "CommandSession", "Doc", "Reply",
    "ShellRunner", "run_commands",
]  # fmt: skip
