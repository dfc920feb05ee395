"""Running notebook cells: the one small module every front reaches a kernel through.

``CellRunner`` is what the engine asks to run a cell; ``HeadlessKernels`` runs them in kernels
the session owns (``jupyter_client``, inside the bubblewrap sandbox where it exists); the
server and the kernel magics hand runs to the open notebook in JupyterLab instead
(``DeferredRunner``). ``report`` turns what ran into text a model can act on.
"""

from .cell_runner import Capabilities, CellRunner, DeferredRunner, NoRunner
from .outcome import KernelInfo, Outcome, RunRequest
from .report import report

__all__ = [
    "Capabilities",
    "CellRunner",
    "DeferredRunner",
    "KernelInfo",
    "NoRunner",
    "Outcome",
    "RunRequest",
    "report",
]
