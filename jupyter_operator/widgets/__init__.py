"""ipywidgets approval display for runs: cards, diffs, Approve / Reject, results with Copy.

The widgets never touch files; every decision goes through the engine's ``Run``.
"""

from __future__ import annotations

from .cards import ItemCard, StaticCard
from .copybox import CopyBox
from .history import HistoryView
from .panel import RunView, text_listing
from .render import escape, render_diff

__all__ = [
    "CopyBox",
    "HistoryView",
    "ItemCard",
    "RunView",
    "StaticCard",
    "escape",
    "render_diff",
    "text_listing",
]
