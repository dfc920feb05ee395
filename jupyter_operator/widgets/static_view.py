"""What a saved notebook shows of a run where no widget can draw (no kernel, nbconvert,
GitHub): a small, plain HTML copy made from the widget's own state (the items' JSON), kept
up to date in the saved output as decisions arrive (widgets/saved_output.py).

Every string from a model or a file goes through :func:`escape` (viewers may not sanitise)."""

from __future__ import annotations

import json
from typing import Any

from ..engine.labels import badge, person_text
from .render import escape

#: Diff lines, result lines and results characters kept in the static view.
DIFF_LINES = 40
DETAILS_LINES = 40
RESULTS_CHARS = 20_000
#: Cell entries of a notebook change drawn (``MAX_ENTRIES`` in celldiff.ts), and source diff
#: lines kept per cell.
CELL_ENTRIES = 60
CELL_DIFF_LINES = 20
CHANGE_WORDS = ("changed", "added", "removed", "moved")

# Theme variables with fallbacks: the view reads in JupyterLab, on GitHub and in nbconvert.
STYLE = """<style>
.jpo-static{font-family:var(--jp-ui-font-family,system-ui,sans-serif);font-size:13px;
 color:var(--jp-ui-font-color1,#222);max-width:1100px}
.jpo-static .jpo-card{border:1px solid var(--jp-border-color2,#d0d0d0);border-radius:4px;
 margin:4px 0;padding:4px 8px}
.jpo-static .jpo-action,.jpo-static .jpo-path{font-family:var(--jp-code-font-family,monospace)}
.jpo-static .jpo-action{font-weight:600}
.jpo-static .jpo-muted{color:var(--jp-ui-font-color2,#777)}
.jpo-static .jpo-warn{color:var(--jp-warn-color0,#b45309)}
.jpo-static pre{margin:4px 0;padding:4px 6px;overflow-x:auto;font-size:12px;
 background:var(--jp-cell-editor-background,rgba(127,127,127,0.08))}
.jpo-static .jpo-cell{border-left:3px solid var(--jp-border-color2,#d0d0d0);margin:4px 0;
 padding-left:6px}
.jpo-static .jpo-cell-added{border-left-color:var(--jp-success-color1,#2e7d32)}
.jpo-static .jpo-cell-removed{border-left-color:var(--jp-error-color1,#c62828)}
.jpo-static .jpo-cell-changed,.jpo-static .jpo-cell-moved{border-left-color:
 var(--jp-warn-color1,#ef6c00)}
</style>"""


def _lines(text: str, limit: int) -> str:
    # Only the first lines are split: a read's result can be a whole file.
    total = text.count("\n") + (not text.endswith("\n"))
    # CRLF endings are shown as plain line ends (as the live card shows them).
    shown = "\n".join(text.split("\n", limit)[:limit]).replace("\r\n", "\n").rstrip("\r")
    more = total - limit
    return shown.rstrip("\n") + (f"\n... {more} more line{'s' * (more != 1)}" if more > 0 else "")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def _counts_line(cells: dict[str, Any]) -> str:
    """``1 changed, 2 added · 497 unchanged`` (the words of the live card, celldiff.ts)."""
    counts = cells.get("counts") or {}
    parts = [f"{int(counts[w])} {w}" for w in CHANGE_WORDS if counts.get(w)]
    if parts:
        line = ", ".join(parts)
    elif cells.get("old_format") is None:
        line = "a new notebook with no cells"
    elif cells.get("new_format") is None:
        line = "the notebook is deleted (it has no cells)"
    else:
        line = "no cell changed"
    if counts.get("unchanged"):
        line += f" · {int(counts['unchanged'])} unchanged"
    return line


def _cell_entry(entry: dict[str, Any]) -> str:
    """One entry of a notebook change: a fold of unchanged cells, or a cell and its diff."""
    status = str(entry.get("status", ""))
    if status == "unchanged":
        first, count = int(entry.get("new_index") or 0), int(entry.get("count") or 1)
        span = f"index {first}" if count == 1 else f"index {first}–{first + count - 1}"
        label = f"⋯ {_plural(count, 'unchanged cell')} ({span})"
        if entry.get("renumbered"):
            label += f", {int(entry['renumbered'])} with a new execution count only"
        return f'<div class="jpo-muted">{escape(label)}</div>'
    if status == "moved":
        where = f"index {entry.get('old_index')} → {entry.get('new_index')}"
    else:
        index = entry.get("new_index")
        where = f"index {index if index is not None else entry.get('old_index')}"
    kind = str(entry.get("cell_type", "code"))
    if entry.get("old_cell_type"):
        kind = f"{entry['old_cell_type']} → {kind}"
    head = [f"<b>{escape(status)}</b>", escape(where), escape(kind)]
    if entry.get("id"):
        old_id = entry.get("old_id")
        head.append(escape(f"id {old_id} → {entry['id']}" if old_id else f"id {entry['id']}"))
    if entry.get("split_from") is not None:
        head.append(escape(f"split from old index {entry['split_from']}"))
    if entry.get("merged_into") is not None:
        head.append(escape(f"merged into index {entry['merged_into']}"))
    body = [f'<div>{" · ".join(head)}</div>']
    if entry.get("source_diff"):
        body.append(f"<pre>{escape(_lines(str(entry['source_diff']), CELL_DIFF_LINES))}</pre>")
    notes = [f"{name}: {entry[name]}" for name in ("outputs", "metadata") if entry.get(name)]
    counts = entry.get("execution_count")
    if isinstance(counts, list) and len(counts) == 2:
        old, new = ("none" if c is None else str(c) for c in counts)
        notes.append(f"execution count {old} → {new}")
    body += [f'<div class="jpo-muted">{escape(note)}</div>' for note in notes]
    return f'<div class="jpo-cell jpo-cell-{escape(status)}">{"".join(body)}</div>'


def _cells(cells: dict[str, Any]) -> str:
    """A notebook change drawn as its cells (what the live card shows), not notebook JSON."""
    parts = []
    if cells.get("metadata"):
        parts.append(f'<div class="jpo-muted">notebook metadata: {escape(cells["metadata"])}</div>')
    old, new = cells.get("old_format"), cells.get("new_format")
    if old and new and old != new:
        parts.append(f'<div class="jpo-muted">nbformat {escape(old)} → {escape(new)}</div>')
    entries = list(cells.get("cells") or [])
    parts += [_cell_entry(entry) for entry in entries[:CELL_ENTRIES] if isinstance(entry, dict)]
    if len(entries) > CELL_ENTRIES:
        more = len(entries) - CELL_ENTRIES
        parts.append(f'<div class="jpo-muted">... {_plural(more, "more entry")} not shown</div>')
    return "".join(parts)


def _read_cells(details: str) -> str | None:
    """The cells an ``nb.readCells`` read, as cells (its result is JSON for the model), or None
    when the details are not that JSON."""
    try:
        view = json.loads(details)
    except ValueError:
        return None
    cells = view.get("cells") if isinstance(view, dict) else None
    if not isinstance(cells, list) or not all(isinstance(c, dict) for c in cells):
        return None
    parts = []
    for cell in cells[:CELL_ENTRIES]:
        head = [f"index {cell.get('index')}", str(cell.get("type") or "")]
        if cell.get("id"):
            head.append(f"id {cell['id']}")
        if cell.get("outputs"):
            head.append(_plural(len(cell["outputs"]), "output"))
        source = _lines(str(cell.get("source") or ""), CELL_DIFF_LINES)
        parts.append(f'<div class="jpo-cell"><div>{escape(" · ".join(head))}</div>'
                     f"<pre>{escape(source)}</pre></div>")  # fmt: skip
    if len(cells) > CELL_ENTRIES:
        parts.append(f'<div class="jpo-muted">... {_plural(len(cells) - CELL_ENTRIES, "more cell")}'
                     " not shown</div>")  # fmt: skip
    return "".join(parts)


def _card(item: dict[str, Any]) -> str:
    status = str(item.get("status", ""))
    action = item.get("action")
    head = [f"<b>[{escape(badge(status))}]</b>",
            f'<span class="jpo-action">{escape(action or "block")}</span>']  # fmt: skip
    if item.get("path"):
        head.append(f'<span class="jpo-path">{escape(item["path"])}</span>')
    cells = item.get("cells") if item.get("kind") == "mutation" else None
    if isinstance(cells, dict):
        head.append(f'<span class="jpo-muted">{escape(_counts_line(cells))}</span>')
    elif item.get("kind") == "mutation" and item.get("diff") is not None:
        head.append(f'<span class="jpo-muted">+{int(item.get("added") or 0)} '
                    f'&minus;{int(item.get("removed") or 0)}</span>')  # fmt: skip
    head.append(f'<span class="jpo-muted">id {escape(item.get("id", ""))}</span>')
    body = [" ".join(head)]
    foreign = item.get("foreign")
    if isinstance(foreign, dict):
        said = f"{foreign.get('family_name', '')}: {foreign.get('name', '')}"
        body.append('<div class="jpo-warn">The model used its own tool-call format '
                    f"({escape(said)}).</div>")  # fmt: skip
    if item.get("rule_note"):
        body.append(f'<div class="jpo-muted">{escape(item["rule_note"])}</div>')
    summary = person_text(str(item.get("summary") or ""))
    code = item.get("error_code") if item.get("ok") is False else None
    tail = f' <span class="jpo-muted">({escape(code)})</span>' if code else ""
    body.append(f"<div>{escape(summary)}{tail}</div>")
    read = _read_cells(str(item["details"])) if item.get("action") == "nb.readCells" else None
    if read is not None:
        body.append(read)
    elif item.get("details"):
        body.append(f"<pre>{escape(_lines(str(item['details']), DETAILS_LINES))}</pre>")
    if isinstance(cells, dict):
        body.append(_cells(cells))
    elif item.get("kind") == "mutation" and item.get("diff"):
        body.append(f"<pre>{escape(_lines(str(item['diff']), DIFF_LINES))}</pre>")
    kind = escape(item.get("kind", ""))
    return f'<div class="jpo-card jpo-kind-{kind}">{"".join(body)}</div>'


def static_html(state: dict[str, Any], *, style: bool = True) -> str:
    """The run of a ``RunWidget.run`` state as plain HTML: heading, notes, cards, results.

    ``style=False`` leaves out the stylesheet (a view that holds several runs has it once)."""
    items = state.get("items") or []
    count = f"{len(items)} command{'s' * (len(items) != 1)}"
    title = state.get("title", "Operator")
    parts = [f'<div>{f"<b>{escape(title)}</b> " if title else ""}'
             f'<span class="jpo-muted">{count}</span></div>']  # fmt: skip
    if state.get("warning"):
        parts.append(f'<div class="jpo-warn">{escape(state["warning"])}</div>')
    parts += [f'<div class="jpo-muted">{escape(note)}</div>' for note in state.get("notes", [])]
    parts += [_card(item) for item in items]
    text = str(state.get("results_text") or "")
    if state.get("done") and text and not state.get("dry_run"):
        if len(text) > RESULTS_CHARS:
            cut = len(text) - RESULTS_CHARS
            text = text[:RESULTS_CHARS] + f"\n[... {cut:,} more characters not saved]"
        parts.append('<details class="jpo-static-results"><summary>'
                     f'{escape(state.get("results_title", "Results"))}'
                     f"</summary><pre>{escape(text)}</pre></details>")  # fmt: skip
    return f'{STYLE if style else ""}<div class="jpo-static">{"".join(parts)}</div>'
