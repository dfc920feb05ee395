"""The HTML of a cell run's card: the exact source, where it runs, and what came back.

Pure functions of an engine ``Item`` whose ``execution`` is set (a run item, or a change
approved with Approve & Run); every piece of model or kernel text is escaped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .diff_html import highlight_lines
from .render import escape, render_text_block

if TYPE_CHECKING:
    from ..engine import Item


def _source_html(source: str, cell: str | None = None) -> str:
    lines = source.split("\n")
    body = "\n".join(highlight_lines(lines, "cell.py"))
    label = f'<div class="jpo-muted">cell {escape(cell)}</div>' if cell else ""
    return f'{label}<pre class="jpo-text jpo-run-source">{body}</pre>'


def kernel_html(item: Item) -> str:
    """Notebook, kernel, where the code runs (a warning when it is not sandboxed), and what
    ran before in this kernel."""
    execution = item.execution
    kernel, request = execution.kernel, execution.request
    count = f", execution count {kernel.execution_count}" if kernel.execution_count else ""
    state = kernel.state.replace("_", " ")
    lines = [f'<div class="jpo-note jpo-run-kernel">Kernel <b>{escape(kernel.name)}</b> '
             f"({escape(state)}{escape(count)}) of {escape(request.notebook)}</div>"]
    unsafe = kernel.where == "live" or not kernel.sandboxed
    css = "jpo-note jpo-warn jpo-run-reach" if unsafe else "jpo-note jpo-muted jpo-run-reach"
    lines.append(f'<div class="{css}">Runs in {escape(kernel.reach)}.</div>')
    if execution.ran_before:
        ran = ", ".join(f"{r['cell_id']} [{r['execution_count']}]" for r in execution.ran_before)
        lines.append(f'<div class="jpo-note jpo-muted">Ran before in this kernel: '
                     f"{escape(ran)}</div>")  # fmt: skip
    if request.restart:
        lines.append('<div class="jpo-note jpo-warn">The kernel restarts: every variable and '
                     "import in it is lost.</div>")  # fmt: skip
    return "".join(lines)


def run_html(item: Item) -> str:
    """The whole run part of a card: kernel, source(s), and the outputs once it ran."""
    execution = item.execution
    if execution is None:
        return ""
    request = execution.request
    parts = [kernel_html(item)] if item.kind == "run" else []
    if item.kind == "run":
        for cell_id, source, _sha in request.cells:
            parts.append(_source_html(source, cell_id))
        if request.source:
            parts.append(_source_html(request.source))
    result = item.result
    if execution.outcome is not None and result is not None and result.details:
        block, count = render_text_block(result.details)
        parts.append(f"<details open><summary>Output ({count} line{'s' * (count != 1)})"
                     f"</summary>{block}</details>")  # fmt: skip
    elif item.status == "running":
        parts.append('<div class="jpo-note jpo-muted jpo-run-running">Running&hellip;</div>')
    return "".join(parts)
