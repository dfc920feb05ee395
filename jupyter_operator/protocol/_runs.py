"""Running notebook cells (``nb.runCell``, ``nb.restartKernel``, ``nb.rebuildState``), pure.

These belong to the ``nb`` host extension beside the cell changes of ``_cells``: a model names
a cell, the person sees the exact source and the kernel it will run in, approves, and the
outputs come back summarised. This module checks the fields and says what the appendix
tells a model; the engine plans and records runs, and ``execution`` reaches the kernel.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from . import codes
from ._errors import OperatorError, shown

RUN_ACTIONS: frozenset[str] = frozenset({"nb.runCell", "nb.restartKernel", "nb.rebuildState"})

RUN_TIMEOUT_DEFAULT_S = 60.0  # a cell that runs longer is interrupted
RUN_TIMEOUT_MAX_S = 600.0  # a larger timeout_s is clamped

_CELL_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_DIGITS = re.compile(r"[0-9]{1,18}")
_SECONDS = re.compile(r"([0-9]+)(\.[0-9]+)?")

_frozen = dataclass(frozen=True, slots=True, kw_only=True)


@_frozen
class RunCell:
    """``nb.runCell``: run one code cell in the notebook's kernel."""

    action: ClassVar[str] = "nb.runCell"
    path: str
    cell_id: str | None = None
    index: int | None = None
    timeout_s: float = RUN_TIMEOUT_DEFAULT_S
    #: The ``timeout_s`` the model wrote when it was above the maximum (``timeout_s`` then
    #: holds the maximum): the result says the run used less than was asked.
    timeout_asked: str | None = None


@_frozen
class RestartKernel:
    """``nb.restartKernel``: restart the notebook's kernel (its variables are lost)."""

    action: ClassVar[str] = "nb.restartKernel"
    path: str


@_frozen
class RebuildState:
    """``nb.rebuildState``: restart, then run again the cells recorded as run since the last
    restart, in their order (the ledger), so the kernel matches the notebook again."""

    action: ClassVar[str] = "nb.rebuildState"
    path: str


RUN_PARAMS: dict[str, type] = {cls.action: cls for cls in (RunCell, RestartKernel, RebuildState)}


def _fail(message: str) -> OperatorError:
    return OperatorError(codes.ERR_INVALID_CELL_PARAMS, message)


def check_run_fields(action: str, f: dict[str, str], notebook: str) -> dict[str, Any]:
    """The parameter values of a run action (``notebook`` already checked by the caller)."""
    values: dict[str, Any] = {"path": notebook}
    if action != "nb.runCell":
        return values
    cell_id = f.get("cell_id") or None
    if cell_id is not None and not _CELL_ID.fullmatch(cell_id):
        raise _fail(f"cell_id must be 1-64 of A-Z a-z 0-9 _ - (got '{shown(cell_id)}').")
    index = f.get("index") or None
    if index is not None and not _DIGITS.fullmatch(index):
        raise _fail(f"index must be a whole number >= 0 (got '{shown(index)}').")
    if cell_id is None and index is None:
        raise _fail("cell_id is required (index alone only in a notebook without cell ids).")
    values.update(cell_id=cell_id, index=int(index) if index is not None else None)
    timeout = f.get("timeout_s") or None
    if timeout is not None:
        values.update(_timeout(timeout))
    return values


def _timeout(text: str) -> dict[str, Any]:
    """``timeout_s`` in seconds: a positive decimal number; above the maximum it is clamped,
    and the text asked for is kept so the result can say so."""
    found = _SECONDS.fullmatch(text)
    if found is None:
        raise _fail(f"timeout_s must be a number of seconds such as 30 or 2.5, at most "
                    f"{RUN_TIMEOUT_MAX_S:g} (got '{shown(text)}').")  # fmt: skip
    whole = found.group(1).lstrip("0")
    # float() of a very long number is inf or slow to print: anything that long is clamped.
    seconds = float((whole or "0") + (found.group(2) or "")) if len(whole) <= 6 else 10.0**7
    if seconds <= 0:
        raise _fail(f"timeout_s must be a number of seconds > 0 (got '{shown(text)}').")
    if seconds > RUN_TIMEOUT_MAX_S:
        return {"timeout_s": RUN_TIMEOUT_MAX_S, "timeout_asked": shown(text)}
    return {"timeout_s": seconds}


RUN_CODE_DOCS: dict[str, str] = {
    codes.ERR_NOT_A_CODE_CELL: "nb.runCell named a markdown or raw cell; only code cells run.",
    codes.ERR_KERNEL_UNAVAILABLE: "no kernel can run this notebook's cells here (no front end "
    "for a live notebook, or its kernel could not be started); the summary says why. Nothing ran.",
    codes.ERR_NOTEBOOK_POLICY: "the notebook's own policy (its metadata, set by its author) "
    "forbids this, or the change would alter that policy; nothing was done.",
    codes.ERR_CELL_ERROR: "the cell ran and raised an exception; details_b64 holds the "
    "exception, the traceback and the outputs before it.",
    codes.ERR_CELL_TIMEOUT: "the cell ran longer than timeout_s; the kernel was interrupted. "
    "Variables set before the interrupt are kept.",
    codes.ERR_CELL_INTERRUPTED: "the run was interrupted (by the person, or the kernel).",
    codes.ERR_KERNEL_DIED: "the kernel died while the cell ran (often: out of memory); its "
    "state is lost. Restart it with nb.restartKernel before running cells again.",
}

RUN_ACTIONS_TEXT = """\
nb.runCell
Requires: notebook, cell_id
Optional: index (check), timeout_s (seconds, default 60, max 600: a larger value is clamped to
600 and the result summary says so)
Behavior: runs the cell's source, as it is once the earlier changes of this reply are decided,
in the notebook's kernel, after the person approves. A cell edited, or a kernel restarted or
dead, since the preview is refused with ERR_STALE_PREVIEW.
Result: the summary gives the status (ok, error, timeout, interrupted, kernel_died), the
execution count, the duration and the first lines of the output; details_b64 holds the
outputs summarised: stream text and text/plain results (long ones keep their head and tail),
images described (type, pixel size, bytes), errors as the exception and traceback. A cell
that ran but printed an error (a failed pip install, a Traceback on stderr) is flagged with
"note:".

nb.restartKernel
Requires: notebook
Behavior: restarts the notebook's kernel; every variable and import is lost.

nb.rebuildState
Requires: notebook
Behavior: restarts the kernel, then runs again, in order, the cells this host recorded as run in
it since its last restart (one approval for all). A cell among them edited or deleted since
the preview is refused with ERR_STALE_PREVIEW, naming it; nothing runs.

nb.readCells also reports the kernel: {"kernel": {"name","state","execution_count","where"}};
state is not_started, idle, busy or dead.
"""
