"""The engine: one session object that every front (CLI, magics, widgets, server) uses."""

from ..shell import sandbox_available
from ..workspace import HistoryEntry
from ..workspace.out_of_reach import describe as out_of_reach
from .decidable import DecidableRun
from .decisions import Decision
from .dialect_runs import plan, resolve_dialect
from .errors import BadEdit, DecideFirst, EngineError, IllegalTransition, UnknownItem
from .items import Item, Proposal
from .json_run import JsonItem, JsonRun, run_json, shell_history
from .operator import Operator, Run
from .policy import GROUPS, Policy
from .shell_ops import ShellRecord, ShellState
from .shell_policy import ShellDecision, ShellPolicy

__all__ = [
    "GROUPS",
    "BadEdit",
    "DecidableRun",
    "DecideFirst",
    "Decision",
    "EngineError",
    "HistoryEntry",
    "IllegalTransition",
    "Item",
    "JsonItem",
    "JsonRun",
    "Operator",
    "Policy",
    "Proposal",
    "Run",
    "ShellDecision",
    "ShellPolicy",
    "ShellRecord",
    "ShellState",
    "UnknownItem",
    "out_of_reach",
    "plan",
    "resolve_dialect",
    "run_json",
    "sandbox_available",
    "shell_history",
]
