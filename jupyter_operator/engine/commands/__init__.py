"""String-command sessions (the ``commands`` dialect) on top of the engine."""

from .actions import Doc
from .bash import SANDBOX, BashItem, BashRun
from .replies import Batch, Reply
from .run import CommandRun, run_commands
from .session import CommandSession, ShellRunner

__all__ = [
    "SANDBOX", "BashItem", "BashRun", "Batch", "CommandRun", "CommandSession", "Doc", "Reply",
    "ShellRunner", "run_commands",
]  # fmt: skip
