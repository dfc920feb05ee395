"""What the engine's helper modules need of a session and of a run, and nothing more.

``Operator`` (``operator.py``) and ``Run`` (``run.py``) call down into the modules that carry
items out (``carry_out``, ``run_items``, ``live_route``, ``file_api``) and pass themselves along.
Those modules end an item with ``outcome_notes.finish`` and carry one out with
``carry_out.carry_out`` themselves: control does not go back up through the session for that.
Those modules type that argument with these protocols instead of importing ``session`` or
``run``: they see the workspace, the journal, the cell runner, the policy and a handful of
public calls, never the session's private state, and no import goes back up (the no-circles
rule of ``tests/test_layers.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import threading

    from ..execution import CellRunner
    from ..workspace import Journal, Snapshot, Workspace
    from .decisions import Decision
    from .items import Item
    from .policy import Policy
    from .reads import OutputBudget


class Operating(Protocol):
    """A session as its helper modules use it (``Operator`` is the one implementation)."""

    root: Path
    workspace: Workspace
    journal: Journal
    #: The session's name, recorded with every change it applies.
    session: str
    policy: Policy
    extensions: tuple[str, ...]
    #: The pages holding notebooks open (``live_route.LivePages``), or None.
    pages: Any

    @property
    def lock(self) -> threading.RLock:
        """Held while the session plans or applies (one decision at a time)."""

    @property
    def runner(self) -> CellRunner:
        """What runs cells (the session's own headless kernels are started on first use)."""

    @property
    def started_runner(self) -> CellRunner | None:
        """The cell runner if there is one already (asking never starts a kernel)."""

    @property
    def notebook_cap(self) -> str | None:
        """The most any notebook's own policy may allow in this session."""

    def replan(self, item: Item, base: Snapshot | None, refused: str | None = None,
               edited: str | None = None) -> None:  # fmt: skip
        """Plan a pending change again, now that the change it was built on is decided."""

    def start_read(self, item: Item, budget: OutputBudget) -> None:
        """Run a released read now, or leave it for approval when the policy asks."""


class Deciding(Protocol):
    """A run as the helper modules use it (``Run`` is the one implementation)."""

    #: What the reads (and the runs' outputs) of the reply may still return.
    budget: OutputBudget

    @property
    def operator(self) -> Operating:
        """The session the run belongs to."""

    def finish_live(self, id: str, answer: dict[str, Any]) -> Decision:
        """The answer of the page asked to apply an approved notebook change."""

    def ran(self, item: Item) -> None:
        """A cell run of ``item`` ended after ``run_items.start`` returned (a kernel's answer
        on its thread): release what waited for it, tell every subscriber."""


__all__ = ["Deciding", "Operating"]
