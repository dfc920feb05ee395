"""The HTML inside a card: header line, notes and a read's result, all escaped.

Pure functions of an engine ``Item``; no widgets here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..engine.labels import badge, person_text
from ..engine.rules import rule_note
from .read_cells_html import read_cells_html
from .render import (
    DETAILS_OPEN_LINES,
    STYLESHEET,
    escape,
    has_invisible,
    render_text_block,
    split_lines,
    strip_cr,
)
from .run_html import run_html

if TYPE_CHECKING:
    from ..engine import Item, Run
    from ..engine.items import Foreign

#: Diff lines kept in a saved notebook's static view of a card.
STATIC_DIFF_LINES = 40

#: What the outcome line says before the result summary (which carries the code and reason).
OUTCOME_NOTES = {
    "applied": "Applied.",
    "stale": "Not written: the file changed after this preview was made.",
    "failed": "Could not be applied; nothing was written.",
    "undone": "Applied, then undone: the file is back as it was before.",
}

#: The outcome of a change approved with the person's own edit (the model reads its result).
EDITED_NOTE = ("Applied with your edit: the diff shows what was written; the model is told what "
               "you changed from its proposal.")


def header_html(item: Item) -> str:
    """The card's first line: status, action, path, change summary, id and line."""
    status = item.status
    parts = [
        f'<span class="jpo-badge jpo-s-{escape(status)}">'
        f"{escape(badge(status))}</span>",
        f'<span class="jpo-action">{escape(item.action or "invalid command")}</span>',
    ]
    if item.path is not None:
        parts.append(f'<span class="jpo-path">{escape(item.path)}</span>')
    if item.kind == "mutation" and item.diff is not None:
        stats = []
        if item.change == "create":
            stats.append('<span class="jpo-muted">new file</span>')
        elif item.change == "delete":
            stats.append('<span class="jpo-muted">delete</span>')
        stats.append(f'<span class="jpo-stat-add">+{item.added}</span>')
        stats.append(f'<span class="jpo-stat-del">&minus;{item.removed}</span>')
        parts.append(" ".join(stats))
    parts.append(f'<span class="jpo-id">id {escape(item.id)} &middot; line {int(item.line)}</span>')
    # Spaces between the parts: a page that drops our styles (an untrusted notebook) still
    # shows them as words.
    return f'<div class="jpo-head">{" ".join(parts)}</div>'


def _code_html(result: Any) -> str:
    """A failure's code after its sentence, muted: what to look up in the docs."""
    code = getattr(result, "code", None) if result is not None and not result.ok else None
    return f' <span class="jpo-muted jpo-code">({escape(code)})</span>' if code else ""


def foreign_html(foreign: Foreign) -> str:
    """A call in the model's own tool-call format: what it was, and the block it became."""
    said = (f"The model used its own tool-call format ({foreign.family_name}: "
            f"{foreign.name}), not an OPERATOR_CMD block.")  # fmt: skip
    if foreign.block is None:
        said += " Its intent is not clear, so nothing can run; the model is asked for a block."
        return f'<div class="jpo-note jpo-warn jpo-foreign">{escape(said)}</div>'
    said += (" It was translated to the block below: approve it like any other command. "
             "The model is told either way.")  # fmt: skip
    block, _count = render_text_block(foreign.block)
    return (f'<div class="jpo-note jpo-warn jpo-foreign">{escape(said)}<details open>'
            f"<summary>Translation</summary>{block}</details></div>")


def notes_html(item: Item, blocked_by: str | None = None, *, diff_invisible: bool = False) -> str:
    """Warnings, dependencies and the outcome, below the header."""
    notes: list[str] = [foreign_html(item.foreign)] if getattr(item, "foreign", None) else []
    rule = rule_note(item.decided_by, item.rule, item.status)
    if rule:  # "auto-approved by rule 2: auto fs.write notes/**", "asked by default: ask"
        notes.append(f'<div class="jpo-note jpo-muted jpo-rule">{escape(rule)}</div>')
    if item.status == "waiting":
        notes.append(
            f'<div class="jpo-note jpo-muted">Runs by itself once {escape(item.builds_on or "")} '
            "is decided (it reads what that change would write).</div>"
        )
    elif blocked_by is not None:
        notes.append(
            '<div class="jpo-note jpo-muted">Previewed on top of '
            f"{escape(blocked_by)}, which is not decided yet: decide that one first.</div>"
        )
    if item.path is not None and has_invisible(item.path):
        notes.append(
            '<div class="jpo-note jpo-warn">The path contains invisible or bidirectional '
            f"characters: {escape(repr(item.path))}</div>"
        )
    if item.kind == "mutation" and diff_invisible:
        notes.append(
            '<div class="jpo-note jpo-warn">This change contains invisible, bidirectional or '
            "control characters, marked &lt;U+....&gt; below. Check them before approving.</div>"
        )
    result = item.result
    if item.kind == "run" and item.status not in ("pending", "running") and result is not None:
        css = "jpo-note" if result.ok else "jpo-note jpo-warn"
        notes.append(f'<div class="{css}">{escape(person_text(result.summary))}'
                     f"{_code_html(result)}</div>")
    elif item.kind == "error" or (item.kind == "mutation" and item.status not in ("pending",
                                                                               "running")):
        lead = OUTCOME_NOTES.get(item.status, "") if item.kind == "mutation" else ""
        summary = person_text(result.summary if result is not None else item.summary)
        css = "jpo-note" if item.status in ("applied", "done") else "jpo-note jpo-warn"
        text = " ".join(part for part in (lead, summary) if part)
        if getattr(item, "edited", False) and item.status == "applied":
            text = EDITED_NOTE
        notes.append(f'<div class="{css}">{escape(text)}{_code_html(result)}</div>')
    elif item.kind == "read" and item.status == "pending":
        notes.append('<div class="jpo-note">This read needs your approval.</div>')
    elif item.kind == "read" and result is not None:
        css = "jpo-note" if result.ok else "jpo-note jpo-warn"
        notes.append(f'<div class="{css}">{escape(person_text(result.summary))}'
                     f"{_code_html(result)}</div>")
    return "".join(notes)


def details_html(item: Item) -> str:
    """A read's result text, collapsed when long (plain ``<details>``: no script needed); a
    run's source, kernel and outputs (``run_html``)."""
    if getattr(item, "execution", None) is not None:
        return run_html(item)
    result = item.result
    if item.kind != "read" or result is None or not result.details:
        return ""
    if item.action == "nb.readCells" and result.ok:
        cells = read_cells_html(result.details)  # cells as cells, not a line of JSON
        if cells is not None:
            return f"<details open><summary>Cells</summary>{cells}</details>"
    block, count = render_text_block(result.details)
    is_open = " open" if count <= DETAILS_OPEN_LINES else ""
    label = f"Result ({count} line{'s' * (count != 1)})"
    return f"<details{is_open}><summary>{label}</summary>{block}</details>"


def static_card_html(item: Item) -> str:
    """One card as plain HTML (no buttons): what a notebook without a kernel shows."""
    diff = ""
    cells = item.proposal.cells if item.kind == "mutation" and item.proposal else None
    if cells is not None:  # a notebook change: its cells, as the live card shows them
        from .cells_html import cells_html

        diff = cells_html(cells)
    elif item.kind == "mutation" and item.diff is not None:
        # The plain diff text: it reads the same with or without our styles.
        lines = split_lines(item.diff)
        shown = "\n".join(strip_cr(line) for line in lines[:STATIC_DIFF_LINES])
        more = len(lines) - STATIC_DIFF_LINES
        tail = f"\n... {more} more lines" if more > 0 else ""
        diff = f'<pre class="jpo-text">{escape(shown + tail)}</pre>'
    body = header_html(item) + notes_html(item) + details_html(item) + diff
    return f'<div class="jpo-card jpo-kind-{escape(item.kind)}">{body}</div>'


#: Characters of the results text kept in a saved notebook's static view.
STATIC_RESULTS_CHARS = 20_000


def static_results_html(title: str, text: str) -> str:
    """A static copy of the results for the model (the live view's copy box is a widget)."""
    if len(text) > STATIC_RESULTS_CHARS:
        cut = len(text) - STATIC_RESULTS_CHARS
        text = text[:STATIC_RESULTS_CHARS] + f"\n[... {cut:,} more characters not saved]"
    return (
        f'<details class="jpo-results jpo-static-results"><summary>{escape(title)}</summary>'
        f'<pre class="jpo-results-text">{escape(text)}</pre></details>'
    )


def static_html(
    run: Run, *, title: str = "Operator", results: tuple[str, str] | None = None
) -> str:
    """The whole run as plain HTML, saved beside the widget and updated as decisions arrive.
    ``results`` is ``(title, text)`` of the results for the model, once there are any."""
    from .panel import run_summary

    head = (
        f'<div class="jpo-head"><span class="jpo-action">{escape(title)}</span> '
        f'<span class="jpo-muted">{escape(run_summary(run))}</span></div>'
    )
    cards = "".join(static_card_html(item) for item in run.items)
    tail = static_results_html(*results) if results is not None else ""
    return f'{STYLESHEET}<div class="jpo-run jpo-static">{head}{cards}{tail}</div>'
