"""What a run asks for and what comes back: plain data shared by the engine and the fronts."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

KernelState = Literal["not_started", "idle", "busy", "dead"]
RunStatus = Literal["ok", "error", "timeout", "interrupted", "kernel_died", "stale", "unavailable"]
Where = Literal["headless", "live", "none"]


@dataclass(frozen=True)
class KernelInfo:
    """The kernel a notebook's cells run in, as a card and ``nb.readCells`` show it.

    ``identity`` changes when the kernel restarts (the kernel's own session id), so a run
    previewed before a restart is refused as stale instead of running on a state nobody saw.
    """

    name: str
    state: KernelState = "not_started"
    execution_count: int = 0
    identity: str | None = None
    where: Where = "headless"
    sandboxed: bool = False
    #: Said on the card: where the code runs and with what reach.
    reach: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class RunRequest:
    """One approved cell to run: exactly the source the person saw, and the guards of its preview.

    ``source_sha256`` is the sha256 of the cell's source when previewed; ``kernel_identity``
    the kernel's identity then (None: no live kernel was there, so a new one may start; a
    kernel that dies after the preview makes the run stale instead).
    ``restart`` asks for a restart first; ``cells`` is the whole list for a rebuild.
    """

    notebook: str
    cell_id: str | None
    index: int | None
    source: str
    source_sha256: str
    kernel_identity: str | None
    timeout_s: float
    kernel_name: str = "python3"
    restart: bool = False
    #: For ``nb.rebuildState``: (cell_id, source, source_sha256) in order, run after a restart.
    cells: tuple[tuple[str | None, str, str], ...] = ()
    #: The timeout the model asked for when it was above the maximum (``timeout_s`` is the
    #: maximum then), for the result to say so.
    timeout_asked: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["cells"] = [list(cell) for cell in self.cells]
        return data


@dataclass
class Outcome:
    """What a kernel did with a request: nbformat outputs as the kernel sent them.

    ``status`` ``stale`` (the cell or kernel changed since the preview) and ``unavailable``
    (nothing could run it) mean nothing ran; ``message`` then says why.
    """

    status: RunStatus
    execution_count: int | None = None
    duration_ms: int = 0
    outputs: list[dict[str, Any]] = field(default_factory=list)
    kernel_identity: str | None = None
    message: str = ""
    #: For a rebuild: one outcome per cell run, in order.
    steps: list[Outcome] = field(default_factory=list)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Outcome:
        """An outcome posted by a front end (fields checked by the caller's model)."""
        steps = [cls.from_dict(step) for step in data.get("steps") or []]
        return cls(
            status=data["status"],
            execution_count=data.get("execution_count"),
            duration_ms=int(data.get("duration_ms") or 0),
            outputs=list(data.get("outputs") or []),
            kernel_identity=data.get("kernel_identity"),
            message=str(data.get("message") or ""),
            steps=steps,
        )
