"""What the engine asks of whatever runs cells: a ``CellRunner``.

Three kinds exist: ``HeadlessKernels`` (kernels the session owns), ``DeferredRunner`` (the open
notebook in JupyterLab runs the cell and posts the outcome back: the server and, through a
comm, the kernel magics) and ``NoRunner`` (nothing can run cells here: every run answers
``ERR_KERNEL_UNAVAILABLE`` and nothing runs).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from .outcome import KernelInfo, Outcome, RunRequest

Done = Callable[[Outcome], None]


class CellRunner(Protocol):
    """Runs approved cells. ``start`` may call ``done`` before it returns (a headless kernel)
    or later, from any thread (a front end posting the outcome)."""

    where: str
    #: Whether rules may approve runs without a person (a live kernel is the person's own:
    #: only when the server or the notebook allows it explicitly).
    allows_auto: bool
    #: Whether its code runs in the bubblewrap sandbox. A session's own kernel where the
    #: sandbox is missing or cannot start is not: then every run asks, whatever the rules say.
    sandboxed: bool

    def kernel(self, notebook: str, kernel_name: str) -> KernelInfo: ...

    def start(self, request: RunRequest, done: Done) -> None: ...

    def close(self) -> None: ...


class NoRunner:
    """Nothing can run cells here (nbclient, a console, a session made without a runner)."""

    where = "none"
    allows_auto = False
    sandboxed = False

    def __init__(self, why: str = "no front end or kernel can run cells here") -> None:
        self.why = why

    def kernel(self, notebook: str, kernel_name: str) -> KernelInfo:
        return KernelInfo(name=kernel_name, where="none", reach=self.why)

    def start(self, request: RunRequest, done: Done) -> None:
        done(Outcome("unavailable", message=f"{self.why}; nothing ran."))

    def close(self) -> None:
        return None


class DeferredRunner:
    """The open notebook runs the cell: the item stays ``running`` until its outcome arrives
    (``Run.finish_execution``), posted by the panel or sent back through a comm."""

    where = "live"
    sandboxed = False  # the person's own kernel: rules run cells there only when opened to them

    def __init__(self, *, allows_auto: bool = False) -> None:
        self.allows_auto = allows_auto
        self.reach_text = (
            "the notebook's own kernel in JupyterLab: your kernel, NOT sandboxed, with your "
            "permissions and network"
        )

    def kernel(self, notebook: str, kernel_name: str) -> KernelInfo:
        return KernelInfo(name=kernel_name, state="not_started", where="live",
                          reach=self.reach_text)  # fmt: skip

    def start(self, request: RunRequest, done: Done) -> None:
        """Nothing to do here: the front end runs the cell and posts its outcome."""

    def close(self) -> None:
        return None
