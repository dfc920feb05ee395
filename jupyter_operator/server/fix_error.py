"""The task of "Fix with Operator": a failed cell, its traceback and its notebook, for the model.

The panel sends what the person sees in the open notebook (the failed cell, its outputs and the
other cells' sources); the task names the notebook by its workspace path (the lexical check of
every path a model names) and asks for the fix as a change of that cell, which the person
approves with Approve & Run. Tracebacks lose their terminal colour codes and every text is cut
to a budget, so a huge output or notebook never floods the model's context.
"""

from __future__ import annotations

from typing import Any

from ..execution.report import head_tail, outputs_text, strip_ansi
from ..protocol import OperatorError
from ..workspace.paths import display_path, parse_path
from .errors import ApiError

#: Characters of the failed cell's source kept in the task.
CELL_KEEP = 6_000
#: Characters of the notebook's other cells kept in the task, all together.
NOTEBOOK_KEEP = 12_000
#: Characters of one other cell's source in the notebook's outline.
OTHER_CELL_KEEP = 1_500


def fix_notebook_path(notebook: str) -> str:
    """``notebook`` as the workspace path the model is told; ApiError when a model could not
    name it (it leaves the workspace, or is not a notebook)."""
    try:
        path = display_path(parse_path(notebook))
    except OperatorError as exc:
        raise ApiError(400, "bad_request", f"fix.notebook: {exc.message}") from None
    if not path.lower().endswith(".ipynb"):
        raise ApiError(400, "bad_request", "fix.notebook: not a notebook (.ipynb)")
    return path


def _fence(text: str) -> str:
    """A Markdown fence longer than any run of backticks in ``text`` (a cell may hold one)."""
    longest, run = 0, 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def fenced_block(text: str, keep: int) -> str:
    """``text`` without colour codes, cut to ``keep`` characters, in a Markdown fence."""
    body = head_tail(strip_ansi(text).rstrip("\n"), keep)
    fence = _fence(body)
    return f"{fence}\n{body}\n{fence}"


def _outline(cells: list[dict[str, Any]], failed: int) -> str:
    """The notebook's other cells, in order, within ``NOTEBOOK_KEEP`` characters."""
    lines: list[str] = []
    used = 0
    for index, cell in enumerate(cells):
        if index == failed:
            lines.append(f"[{index}] (the failed cell, above)")
            continue
        source = head_tail(strip_ansi(str(cell.get("source", ""))).rstrip("\n"), OTHER_CELL_KEEP)
        entry = f"[{index}] {cell.get('cell_type', 'code')} cell id {cell.get('id') or '-'}\n"
        entry += fenced_block(source, OTHER_CELL_KEEP) if source else "(empty)"
        if used + len(entry) > NOTEBOOK_KEEP:
            lines.append(f"... {len(cells) - index} more cells not shown (read them if needed)")
            break
        used += len(entry)
        lines.append(entry)
    return "\n".join(lines)


def fix_task(
    notebook: str,
    cell_id: str,
    cell_index: int,
    source: str,
    outputs: list[dict[str, Any]],
    cells: list[dict[str, Any]],
    note: str = "",
) -> str:
    """The model's task: fix the error of cell ``cell_id`` of ``notebook`` (workspace path).

    ``outputs`` are the cell's nbformat outputs (the error among them), ``cells`` the
    notebook's cells as open (``cell_type``, ``id``, ``source``), ``note`` the person's own
    words, if any.
    """
    path = fix_notebook_path(notebook)
    shown, _ = outputs_text(outputs)
    parts = [
        f"The cell {cell_id} (index {cell_index}) of the notebook {path} ended in an error "
        "when it ran. Fix the error.",
        "",
        "The cell's source:",
        fenced_block(source, CELL_KEEP),
        "",
        "Its output, with the traceback:",
        fenced_block(shown or "(no output)", CELL_KEEP),
    ]
    if cells:
        parts += ["", f"The cells of {path}, as open in the person's page:", _outline(cells,
                                                                                     cell_index)]
    parts += [
        "",
        f"Propose the fix as an nb.replaceCell of cell {cell_id} in {path} (change other cells "
        "only if the error needs it). The person approves it with Approve & Run; you get the "
        "result of the run and go on until the cell runs without an error.",
    ]
    if note.strip():
        parts += ["", "The person adds:", note.strip()]
    return "\n".join(parts)
