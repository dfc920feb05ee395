"""A notebook change as cells (``Proposal.cells``), in HTML for the cards.

Each entry gets a line with its status, index, type and id; changed, added and removed cells get
their source diff as numbered, coloured rows (:mod:`.diff_html`); outputs, metadata and
execution count changes are summarised in a folded ``<details>``; runs of unchanged cells are
one fold line. Every string from the notebook is escaped.
"""

from __future__ import annotations

from typing import Any

from .diff_html import diff_rows
from .render import escape, split_lines

#: Source diff lines shown per cell, and cell entries per card, before "more" notes (the full
#: JSON diff is one click away).
CELL_LINES = 60
MAX_ENTRIES = 60

STATUS_WORDS = ("changed", "added", "removed", "moved", "unchanged")


def _lexer_name(cell_type: str) -> str:
    # A name whose suffix picks the pygments lexer of the cell's language.
    return "cell.md" if cell_type == "markdown" else "cell.py" if cell_type == "code" else "cell"


def _no_cell_words(cells: dict[str, Any]) -> str:
    # An empty notebook created or deleted changes no cell, but "no cell changed" would hide
    # that the file itself is new or going.
    if cells.get("old_format") is None:
        return "a new notebook with no cells"
    if cells.get("new_format") is None:
        return "the notebook is deleted (it has no cells)"
    return "no cell changed"


def counts_line(cells: dict[str, Any]) -> str:
    """``"1 changed, 2 added · 497 unchanged"``: the whole change in one line."""
    counts = cells.get("counts", {})
    parts = [f"{counts[w]} {w}" for w in STATUS_WORDS[:-1] if counts.get(w)]
    line = ", ".join(parts) or _no_cell_words(cells)
    if counts.get("unchanged"):
        line += f" &middot; {counts['unchanged']} unchanged"
    return line


def _where(entry: dict[str, Any]) -> str:
    old, new = entry.get("old_index"), entry.get("new_index")
    if entry["status"] == "moved":
        return f"index {old} &rarr; {new}"
    return f"index {new if new is not None else old}"


def _notes(entry: dict[str, Any]) -> list[tuple[str, str]]:
    """(what, escaped HTML) for the outputs, metadata and execution count of an entry."""
    notes: list[tuple[str, str]] = []
    if entry.get("outputs"):
        notes.append(("outputs", f"outputs: {escape(entry['outputs'])}"))
    if entry.get("metadata"):
        notes.append(("metadata", f"metadata: {escape(entry['metadata'])}"))
    counts = entry.get("execution_count")
    if counts:
        old, new = (escape("none" if c is None else c) for c in counts)
        notes.append(("execution count", f"execution count {old} &rarr; {new}"))
    return notes


def _entry_head(entry: dict[str, Any]) -> str:
    status = entry["status"]
    parts = [
        f'<span class="jpo-cell-badge jpo-cs-{escape(status)}">{escape(status)}</span>',
        f'<span class="jpo-cell-where">{_where(entry)}</span>',
        f'<span class="jpo-cell-type">{escape(entry.get("cell_type", ""))}</span>',
    ]
    if entry.get("old_cell_type"):
        parts[-1] = (f'<span class="jpo-cell-type">{escape(entry["old_cell_type"])} &rarr; '
                     f'{escape(entry["cell_type"])}</span>')  # fmt: skip
    if entry.get("id"):
        old_id = f"{escape(entry['old_id'])} &rarr; " if entry.get("old_id") else ""
        parts.append(f'<span class="jpo-id">id {old_id}{escape(entry["id"])}</span>')
    if entry.get("split_from") is not None:
        parts.append(f'<span class="jpo-muted">split from old index {int(entry["split_from"])}'
                     "</span>")  # fmt: skip
    if entry.get("merged_into") is not None:
        parts.append(f'<span class="jpo-muted">merged into index {int(entry["merged_into"])}'
                     "</span>")  # fmt: skip
    added, removed = int(entry.get("added", 0)), int(entry.get("removed", 0))
    if added or removed:
        parts.append(f'<span class="jpo-stat-add">+{added}</span> '
                     f'<span class="jpo-stat-del">&minus;{removed}</span>')  # fmt: skip
    return f'<div class="jpo-cell-head">{" ".join(parts)}</div>'


def _fold(entry: dict[str, Any]) -> str:
    count = int(entry.get("count", 1))
    first = entry.get("new_index")
    span = f"index {first}" if count == 1 else f"index {first}&ndash;{int(first) + count - 1}"
    label = f"{count} unchanged cell{'s' * (count != 1)} ({span})"
    renumbered = int(entry.get("renumbered", 0))
    if renumbered:
        label += f", {renumbered} with a new execution count only"
    return f'<div class="jpo-cell-fold">&#8943; {label}</div>'


def entry_html(entry: dict[str, Any]) -> str:
    """One entry: a fold line for unchanged cells, else a header, the diff and the notes."""
    if entry["status"] == "unchanged":
        return _fold(entry)
    body = [_entry_head(entry)]
    lines = split_lines(entry.get("source_diff") or "")
    if lines:
        rows = diff_rows(lines[:CELL_LINES], _lexer_name(entry.get("cell_type", "")))
        more = len(lines) - CELL_LINES
        if more > 0:
            rows += (f'<div class="jpo-row jpo-fold"><span class="jpo-foldtext">&#8943; {more} '
                     "more diff lines (Show JSON diff for all)</span></div>")  # fmt: skip
        body.append(f'<div class="jpo-diff">{rows}</div>')
    notes = _notes(entry)
    if notes:
        what = [name for name, _ in notes]
        if entry["status"] in ("added", "removed"):
            label = entry.get("outputs") or ""  # "3 outputs": nothing to compare
        else:
            label = ", ".join(what) + " changed"
        items = "".join(f"<li>{text}</li>" for _, text in notes)
        body.append(f'<details class="jpo-cell-notes"><summary>{escape(label)}</summary>'
                    f"<ul>{items}</ul></details>")  # fmt: skip
    return f'<div class="jpo-cell jpo-cell-{escape(entry["status"])}">{"".join(body)}</div>'


def cells_html(cells: dict[str, Any]) -> str:
    """The whole notebook change: a counts line, notebook-level notes, then each entry."""
    head = [f'<span class="jpo-muted">Notebook cells: {counts_line(cells)}</span>']
    if cells.get("metadata"):
        head.append(f'<span class="jpo-muted">notebook metadata: {escape(cells["metadata"])}'
                    "</span>")  # fmt: skip
    old, new = cells.get("old_format"), cells.get("new_format")
    if old and new and old != new:
        head.append(f'<span class="jpo-muted">nbformat {escape(old)} &rarr; {escape(new)}</span>')
    entries = cells.get("cells", [])
    body = "".join(entry_html(e) for e in entries[:MAX_ENTRIES])
    if len(entries) > MAX_ENTRIES:
        more = len(entries) - MAX_ENTRIES
        body += f'<div class="jpo-cell-fold">&#8943; {more} more entries (Show JSON diff)</div>'
    summary = f'<div class="jpo-cells-sum">{" &middot; ".join(head)}</div>'
    return f'<style>{CELLS_CSS}</style><div class="jpo-cells">{summary}{body}</div>'


#: Styles of the cell view (added to the card stylesheet); theme variables keep dark themes right.
CELLS_CSS = """
.jpo-cells{margin:6px 0 2px}
.jpo-cells-sum{margin:2px 0 4px}
.jpo-cell{border:1px solid var(--jp-border-color2,#ddd);border-left-width:4px;border-radius:4px;
 margin:4px 0;padding:3px 6px}
.jpo-cell-changed{border-left-color:var(--jp-warn-color1,#ef6c00)}
.jpo-cell-added{border-left-color:var(--jp-success-color1,#2e7d32)}
.jpo-cell-removed{border-left-color:var(--jp-error-color1,#c62828)}
.jpo-cell-moved{border-left-color:var(--jp-info-color1,#0288d1)}
.jpo-cell-head{display:flex;flex-wrap:wrap;align-items:baseline;gap:8px;line-height:1.6}
.jpo-cell-badge{border-radius:9px;padding:0 7px;font-size:0.85em;font-weight:600;
 color:var(--jp-ui-inverse-font-color1,#fff);background:var(--jp-inverse-layout-color3,#757575)}
.jpo-cs-changed{background:var(--jp-warn-color1,#ef6c00)}
.jpo-cs-added{background:var(--jp-success-color1,#2e7d32)}
.jpo-cs-removed{background:var(--jp-error-color1,#c62828)}
.jpo-cs-moved{background:var(--jp-info-color1,#0288d1)}
.jpo-cell-where,.jpo-cell-type{font-family:var(--jp-code-font-family,monospace);font-size:0.92em}
.jpo-cell .jpo-diff{margin:3px 0}
.jpo-cell-notes>summary{font-size:0.92em}
.jpo-cell-notes ul{margin:2px 0 2px 18px;padding:0}
.jpo-cell-fold{color:var(--jp-ui-font-color2,#777);font-style:italic;padding:1px 8px;margin:2px 0;
 border-radius:4px;background:var(--jp-layout-color2,rgba(127,127,127,0.12))}
"""
