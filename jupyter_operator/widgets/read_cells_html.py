"""An ``nb.readCells`` result shown as cells (index, type, id, source, outputs) on the card.

The model reads the result as one line of JSON (``workspace.cells.view_text``); a person reads
the cells. Every string from the notebook is escaped; a result that is not that JSON is shown as
text by the caller.
"""

from __future__ import annotations

import json
from typing import Any

from .render import escape

#: Source lines shown per cell before a "more" note (the whole text is in the model's results).
SOURCE_LINES = 40


def _outputs_line(outputs: list[Any]) -> str:
    words = []
    for output in outputs:
        if not isinstance(output, dict):
            continue
        kind = output.get("type")
        if kind == "error":
            words.append(f"error {output.get('ename') or ''}".strip())
        elif kind == "stream":
            words.append(str(output.get("name") or "stream"))
        else:
            words.append(str(kind))
    return ", ".join(words)


def _cell(entry: dict[str, Any]) -> str:
    head = [f'<span class="jpo-cell-index">[{int(entry.get("index", 0))}]</span>',
            f'<span class="jpo-cell-type">{escape(str(entry.get("type")))}</span>']  # fmt: skip
    if entry.get("id"):
        head.append(f'<span class="jpo-id">id {escape(str(entry["id"]))}</span>')
    if entry.get("execution_count") is not None:
        head.append(f'<span class="jpo-muted">ran [{int(entry["execution_count"])}]</span>')
    lines = str(entry.get("source", "")).split("\n")
    shown = escape("\n".join(lines[:SOURCE_LINES]))
    if len(lines) > SOURCE_LINES:
        shown += f'\n<span class="jpo-muted">... {len(lines) - SOURCE_LINES} more lines</span>'
    body = f'<pre class="jpo-text jpo-cell-source">{shown}</pre>'
    outputs = entry.get("outputs")
    if isinstance(outputs, list) and outputs:
        body += f'<div class="jpo-muted">outputs: {escape(_outputs_line(outputs))}</div>'
    title = f'<div class="jpo-cell-head">{" ".join(head)}</div>'
    return f'<div class="jpo-cell-read">{title}{body}</div>'


def read_cells_html(details: str) -> str | None:
    """The cells of an ``nb.readCells`` result as HTML, or None when it is not that JSON."""
    try:
        view = json.loads(details)
    except ValueError:
        return None
    if not isinstance(view, dict) or not isinstance(view.get("cells"), list):
        return None
    cells = [_cell(entry) for entry in view["cells"] if isinstance(entry, dict)]
    total = view.get("cell_count")
    note = f'<div class="jpo-muted">{len(cells)} of {int(total)} cells</div>' if isinstance(
        total, int) else ""  # fmt: skip
    return f'<div class="jpo-cells-read">{note}{"".join(cells)}</div>'
