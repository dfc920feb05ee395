"""The engine: one session object that every front (CLI, magics, widgets, server) uses."""

from ..workspace import HistoryEntry
from .decisions import Decision
from .errors import DecideFirst, EngineError, UnknownItem
from .items import Item, Proposal
from .policy import GROUPS, Policy
from .session import Operator, Run

__all__ = [
    "GROUPS",
    "DecideFirst",
    "Decision",
    "EngineError",
    "HistoryEntry",
    "Item",
    "Operator",
    "Policy",
    "Proposal",
    "Run",
    "UnknownItem",
]
