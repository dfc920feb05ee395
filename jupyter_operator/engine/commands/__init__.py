"""String-command sessions (the ``commands`` dialect) on top of the engine."""

from .actions import Doc
from .replies import Batch, Reply
from .session import CommandSession, ShellRunner

__all__ = ["Batch", "CommandSession", "Doc", "Reply", "ShellRunner"]
