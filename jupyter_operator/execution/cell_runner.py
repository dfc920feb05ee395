"""What the engine asks of whatever runs cells: a ``CellRunner``.

Three kinds exist: ``HeadlessKernels`` (kernels the session owns), ``DeferredRunner`` (the open
notebook in JupyterLab runs the cell and posts the outcome back: the server and, through a
comm, the kernel magics) and ``NoRunner`` (nothing can run cells here: every run answers
``ERR_KERNEL_UNAVAILABLE`` and nothing runs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from .outcome import KernelInfo, Outcome, RunRequest

#: The one channel a run's outcome comes back on: called once with it, before ``start``
#: returns or later from any thread.
Done = Callable[[Outcome], None]


@dataclass(frozen=True)
class Capabilities:
    """What a runner can do. The engine branches on these, never on which runner it has."""

    #: Whether it runs code at all (``NoRunner``: every run answers ``unavailable``).
    runs_cells: bool
    #: Whether it runs in the person's own live kernel (never sandboxed, the person's state).
    live_kernel: bool
    #: Whether its code runs in the bubblewrap sandbox. A session's own kernel where the
    #: sandbox is missing or cannot start is not: then every run asks, whatever the rules say.
    sandboxed: bool
    #: Whether rules may approve runs without a person (a live kernel is the person's own:
    #: only when the server or the notebook allows it explicitly).
    allows_auto: bool
    #: Whether the engine saves the outputs into the ``.ipynb`` (nobody else shows them; a
    #: live notebook shows and saves its own).
    saves_outputs: bool
    #: Whether the engine checks the cell on disk against the preview right before the run
    #: (the runner runs the source it is given; a page checks against what it shows).
    checks_staleness: bool
    #: Whether it takes cell changes written to a notebook it shows (``cells_written``), so
    #: the next run is checked against what the person sees.
    takes_cell_changes: bool = False


class CellRunner(Protocol):
    """Runs approved cells. ``start`` may call ``done`` before it returns (a headless kernel)
    or later, from any thread (a front end posting the outcome)."""

    capabilities: Capabilities

    def kernel(self, notebook: str, kernel_name: str) -> KernelInfo: ...

    def start(self, request: RunRequest, done: Done) -> None: ...

    def cells_written(self, notebook: str, before: bytes | None, after: bytes | None) -> None:
        """A cell change was written to ``notebook`` (only called with ``takes_cell_changes``)."""

    def close(self) -> None: ...


class NoRunner:
    """Nothing can run cells here (nbclient, a console, a session made without a runner)."""

    capabilities = Capabilities(runs_cells=False, live_kernel=False, sandboxed=False,
                                allows_auto=False, saves_outputs=False,
                                checks_staleness=False)  # fmt: skip

    def __init__(self, why: str = "no front end or kernel can run cells here") -> None:
        self.why = why

    def kernel(self, notebook: str, kernel_name: str) -> KernelInfo:
        return KernelInfo(name=kernel_name, where="none", reach=self.why)

    def start(self, request: RunRequest, done: Done) -> None:
        done(Outcome("unavailable", message=f"{self.why}; nothing ran."))

    def cells_written(self, notebook: str, before: bytes | None, after: bytes | None) -> None:
        return None

    def close(self) -> None:
        return None


class DeferredRunner:
    """The open notebook runs the cell: the item stays ``running`` until its outcome arrives
    (``Run.finish_execution``), posted by the panel or sent back through a comm."""

    def __init__(self, *, allows_auto: bool = False) -> None:
        # The person's own kernel: rules run cells there only when opened to them; the page
        # checks the cell, shows and saves the outputs.
        self.capabilities = Capabilities(runs_cells=True, live_kernel=True, sandboxed=False,
                                         allows_auto=allows_auto, saves_outputs=False,
                                         checks_staleness=False)  # fmt: skip
        self.reach_text = (
            "the notebook's own kernel in JupyterLab: your kernel, NOT sandboxed, with your "
            "permissions and network"
        )

    def kernel(self, notebook: str, kernel_name: str) -> KernelInfo:
        return KernelInfo(name=kernel_name, state="not_started", where="live",
                          reach=self.reach_text)  # fmt: skip

    def start(self, request: RunRequest, done: Done) -> None:
        """Nothing to do here: the front end runs the cell and posts its outcome."""

    def cells_written(self, notebook: str, before: bytes | None, after: bytes | None) -> None:
        return None  # the page applies cell changes itself (``live_route``)

    def close(self) -> None:
        return None
