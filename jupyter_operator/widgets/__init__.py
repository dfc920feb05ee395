"""The notebook's displays of runs: one widget per run (``RunWidget``), drawn by the lab
extension's own card components bundled as an anywidget module; the history (``HistoryWidget``);
and a text box with Copy (``CopyBox``).

The widgets never touch files; every decision goes through the engine's ``Run``.
"""

from __future__ import annotations

from .copybox import CopyBox
from .history_widget import HistoryWidget
from .render import escape
from .run_state import text_listing
from .run_widget import RunWidget

__all__ = ["CopyBox", "HistoryWidget", "RunWidget", "escape", "text_listing"]
