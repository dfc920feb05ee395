"""Cells run from a kernel's magics: the open notebook in JupyterLab runs them.

``%%operator`` and ``%%operator_agent`` live in the notebook's own kernel. Running a cell from
there must look exactly as if the person had run it: the output in the open cell, the
execution count in the margin. So the kernel does not execute the source itself; it asks the
front end through a comm (target ``jupyter_operator.cells``, registered by the JupyterLab
extension on every notebook's kernel), which runs the cell with JupyterLab's own
``CodeCell.execute`` and sends the outputs back. An approved change to that notebook goes the
same way (``OwnPage``): the open page applies its cell edits, the file is not written beneath.

Only the notebook this kernel runs (``JPY_SESSION_NAME``, set by jupyter-server) can run cells
this way. Where no front end answers (nbclient, a console, a front end without the extension),
the run is ``ERR_KERNEL_UNAVAILABLE`` and nothing runs: the comm is only asked to run once it
has acknowledged, within ``ACK_SECONDS``.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..execution import Capabilities, KernelInfo, Outcome, RunRequest
from ..execution.cell_runner import Done
from ..notebooks.cell_sync import cell_changes

TARGET = "jupyter_operator.cells"
ACK_SECONDS = 5.0

LIVE_REACH = ("this notebook's own kernel in JupyterLab: your kernel, NOT sandboxed, with your "
              "permissions, files and network")  # fmt: skip
NO_FRONT_END = (
    "no front end runs this notebook's cells here (JupyterLab or Notebook 7 with "
    "jupyter-operator's extension is needed: nbclient and consoles cannot)"
)


def own_notebook(root: Path) -> str | None:
    """The notebook this kernel runs, relative to ``root`` (None when not inside it)."""
    name = os.environ.get("JPY_SESSION_NAME")
    if not name or not name.lower().endswith(".ipynb"):
        return None
    path = Path(name)
    if not path.is_absolute():
        return None
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None


class CommRunner:
    """The ``CellRunner`` of a kernel's magics (see the module docstring)."""

    def __init__(self, root: Path, *, allows_auto: bool = False) -> None:
        self.notebook = own_notebook(root)
        # The person's own kernel: rules never run cells there unless the notebook allows it
        # (``auto-run`` in its own policy, checked by the engine); the open page checks the
        # cell, shows and saves the outputs, and takes the cell changes written to its file.
        self.capabilities = Capabilities(runs_cells=True, live_kernel=True, sandboxed=False,
                                         allows_auto=allows_auto, saves_outputs=False,
                                         checks_staleness=False,
                                         takes_cell_changes=True)  # fmt: skip

    def kernel(self, notebook: str, kernel_name: str) -> KernelInfo:
        if notebook != self.notebook:
            reach = (f"only {self.notebook} (the notebook this kernel runs) can run cells from "
                     "here" if self.notebook else NO_FRONT_END)  # fmt: skip
            return KernelInfo(name=kernel_name, state="not_started", where="none", reach=reach)
        ipython = _ipython()
        kernel = getattr(ipython, "kernel", None)
        identity = getattr(getattr(kernel, "session", None), "session", None)
        count = max(int(getattr(ipython, "execution_count", 1)) - 1, 0)
        return KernelInfo(name=kernel_name, state="idle", execution_count=count,
                          identity=identity, where="live", sandboxed=False,
                          reach=LIVE_REACH)  # fmt: skip

    def start(self, request: RunRequest, done: Done) -> None:
        if request.notebook != self.notebook:
            done(Outcome("unavailable", message=self.kernel(request.notebook, "").reach +
                         "; nothing ran."))  # fmt: skip
            return
        if request.restart:
            done(Outcome("unavailable", message="a kernel cannot restart itself from its own "
                         "cell; restart it from the notebook's Kernel menu (then Rebuild state "
                         "from the history); nothing ran."))  # fmt: skip
            return
        try:
            _ask_front_end({"run": request.to_dict()}, done)
        except Exception as exc:  # no comm support in this kernel
            done(Outcome("unavailable", message=f"{NO_FRONT_END} ({type(exc).__name__}); "
                         "nothing ran."))  # fmt: skip

    def cells_written(self, notebook: str, before: bytes | None, after: bytes | None) -> None:
        """A cell change was written to ``notebook``: when it is the one open here, the open
        cells take it too (JupyterLab keeps the person's unsaved edits elsewhere), so the next
        run is checked against what the person sees."""
        if notebook != self.notebook:
            return
        changes = cell_changes(before, after)
        if changes:
            try:
                _ask_front_end({"sync": changes}, lambda _outcome: None)
            except Exception:  # no front end: the file is right; the open copy is the person's
                return

    def close(self) -> None:
        return None


class OwnPage:
    """The page that shows this kernel's own notebook, as the engine's ``LivePages``: an
    approved change to that notebook is applied there (``engine/live_route.py``), sent through
    the comm as cell edits, and the page's answer ends it. Where no front end acknowledges
    (nbclient, a page without the extension) the answer is ``gone`` and the file is written."""

    def __init__(self, root: Path) -> None:
        notebook = own_notebook(root)
        self._path = root.resolve().joinpath(*notebook.split("/")) if notebook else None
        self._shown: tuple[str | None, bytes] | None = None

    def holds(self, path: Path) -> bool:
        return self._path is not None and path == self._path

    def open_below(self, root: Path) -> list[Path]:
        """The kernel's own notebook, when it lies below ``root``."""
        path = self._path
        return [path] if path is not None and path.is_relative_to(root) else []

    def expect(self, path: Path, disk_sha256: str | None, data: bytes) -> None:
        if self.holds(path):
            self._shown = (disk_sha256, data)

    def expected(self, path: Path, disk_sha256: str | None) -> bytes | None:
        if not self.holds(path) or self._shown is None or self._shown[0] != disk_sha256:
            self._shown = None
            return None
        return self._shown[1]

    def deliver(self, live: dict[str, Any], answered: Callable[[dict[str, Any]], None]) -> None:
        """Send the cell edits to the page; ``answered`` gets its answer (``gone`` when none)."""
        try:
            _ask_front_end({"apply": live}, lambda _o: answered({"state": "gone"}),
                           answered=answered)  # fmt: skip
        except Exception:  # no comm support in this kernel: nobody shows the notebook
            answered({"state": "gone"})


def _ipython() -> Any:
    from IPython import get_ipython

    return get_ipython()


def _ask_front_end(payload: dict[str, Any], done: Done,
                   answered: Callable[[dict[str, Any]], None] | None = None) -> None:  # fmt: skip
    """Open the comm, wait for the front end's acknowledgement, then send ``payload`` (a run,
    cell changes to take, or cell edits to apply); ``done`` receives the outcome of a run (or
    that nobody answered), ``answered`` the page's answer to cell edits."""
    from comm import create_comm

    state = {"acked": False, "finished": False}
    comm = create_comm(target_name=TARGET, data={"hello": 1})

    def finish(outcome: Outcome) -> None:
        if not state["finished"]:
            state["finished"] = True
            done(outcome)

    def on_msg(msg: dict[str, Any]) -> None:
        data = msg.get("content", {}).get("data", {})
        if data.get("ack") and not state["acked"] and not state["finished"]:
            state["acked"] = True
            comm.send(payload)
        elif data.get("synced"):
            finish(Outcome("ok"))
            comm.close()
        elif isinstance(data.get("live"), dict) and answered is not None:
            if not state["finished"]:
                state["finished"] = True
                answered(data["live"])
            comm.close()
        elif isinstance(data.get("outcome"), dict):
            try:
                finish(Outcome.from_dict(data["outcome"]))
            except (KeyError, TypeError, ValueError):
                finish(Outcome("unavailable", message="the front end sent no outcome"))
            comm.close()

    def on_close(_msg: Any) -> None:
        if not state["acked"]:
            finish(Outcome("unavailable", message=f"{NO_FRONT_END}; nothing ran."))
        else:
            finish(Outcome("interrupted", message="the front end closed the run"))

    comm.on_msg(on_msg)
    comm.on_close(on_close)

    def no_answer() -> None:
        if not state["acked"] and not state["finished"]:
            finish(Outcome("unavailable", message=f"{NO_FRONT_END}; nothing ran."))
            comm.close()

    try:
        asyncio.get_running_loop().call_later(ACK_SECONDS, no_answer)
    except RuntimeError:  # no loop between cells (a terminal IPython): nobody can answer
        no_answer()
