"""The history of applied changes as a widget: one row per entry with its diff, Undo and Redo.

Like the run view it never touches files: ``undo(entry_id)`` and ``redo(entry_id)`` are
callables given by the owner (the kernel), which goes through the engine and returns a line to
show; a refusal (``OperatorError``) is shown with its reason, which names the entry to undo
first when a later change to the same file is in the way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import ipywidgets as w

from .render import STYLESHEET, escape, render_diff, visible

#: Entries shown, newest first (older ones stay in ``%operator history`` text and the CLI).
MAX_ENTRIES = 50


def entry_state(entry: Any) -> str:
    """``undone``, ``redone`` or ``applied``."""
    if getattr(entry, "undone", False):
        return "undone"
    return "redone" if getattr(entry, "redone", False) else "applied"


def entry_decision(entry: Any) -> str:
    """Who decided the change: ``person``, ``rule 2: auto fs.write notes/**`` (``rule: ...`` for
    entries an older engine wrote), or ``-`` when unknown."""
    by = getattr(entry, "decided_by", None)
    if by == "rule":
        rule = getattr(entry, "rule", None)
        if rule and rule.startswith(("rule ", "default")):
            return rule
        return f"rule: {rule}" if rule else "rule"
    return str(by) if by else "-"


def entry_diff(entry: Any) -> str | None:
    """The entry's unified diff (a method or a field, depending on the journal), or None."""
    diff = getattr(entry, "diff", None)
    if callable(diff):
        try:
            diff = diff()
        except Exception:  # a missing blob: the row still shows, without its diff
            return None
    return diff if isinstance(diff, str) else None


def format_time(value: Any) -> str:
    if isinstance(value, (int, float)):
        return datetime.fromtimestamp(value).strftime("%Y-%m-%d %H:%M:%S")
    return str(value)


def history_text(entries: Sequence[Any]) -> str:
    """The history as aligned plain text, oldest first."""
    if not entries:
        return "No changes applied in this workspace yet."
    header = ("ENTRY", "TIME", "ACTION", "PATH", "SESSION", "DECISION", "COMMAND", "STATE")
    rows = [header] + [
        (
            str(e.entry_id), format_time(e.time), str(e.action), str(e.path),
            str(getattr(e, "session", None) or "-"), entry_decision(e), str(e.command_id),
            entry_state(e),
        )
        for e in entries
    ]  # fmt: skip
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    return visible(
        "\n".join(
            "  ".join(c.ljust(n) for c, n in zip(r, widths, strict=True)).rstrip() for r in rows
        )
    )


#: Said on every cell change and run (the panel's History says the same).
KERNEL_NOTE = ("Undo restores the cell, not the kernel: variables and imports made by runs stay "
               "as they are (nb.rebuildState brings the kernel back in line).")


def _row_html(entry: Any) -> str:
    state = entry_state(entry)
    badge_css = "jpo-s-undone" if state == "undone" else "jpo-s-applied"
    parts = [
        f'<span class="jpo-badge {badge_css}">{escape(state)}</span>',
        f'<span class="jpo-id">{escape(format_time(entry.time))}</span>',
        f'<span class="jpo-action">{escape(entry.action)}</span>',
        f'<span class="jpo-path">{escape(entry.path)}</span>',
        f'<span class="jpo-muted">entry {escape(entry.entry_id)} &middot; command '
        f"{escape(entry.command_id)} &middot; session "
        f"{escape(getattr(entry, 'session', None) or '-')} &middot; decided by "
        f"{escape(entry_decision(entry))}</span>",
    ]
    html = f'<div class="jpo-head">{"".join(parts)}</div>'
    if str(entry.action).startswith("nb."):  # a cell change, or a run's saved outputs
        html += f'<div class="jpo-note jpo-muted">{escape(KERNEL_NOTE)}</div>'
    diff = entry_diff(entry)
    if diff is not None:
        rendered = render_diff(diff, path=entry.path)
        more = f" (first {rendered.shown} of {rendered.total})" if rendered.truncated else ""
        html += f"<details><summary>Diff{more}</summary>{rendered.html}</details>"
    return html


class HistoryView(w.VBox):
    """Rows for the entries ``load()`` returns, newest first, each with Undo or Redo."""

    def __init__(
        self,
        load: Callable[[], list[Any]],
        *,
        undo: Callable[[str], str],
        redo: Callable[[str], str] | None = None,
    ) -> None:
        self._load = load
        self._undo = undo
        self._redo = redo
        self.heading = w.HTML()
        self.message = w.HTML()
        self.rows: dict[str, tuple[w.HTML, w.Button, w.Button]] = {}
        self.entries: list[Any] = []
        super().__init__([], _dom_classes=("jpo-run", "jpo-history"))
        self.refresh()

    def refresh(self) -> None:
        """Read the history again and redraw every row."""
        self.entries = list(self._load())
        shown = list(reversed(self.entries))[:MAX_ENTRIES]
        count = len(self.entries)
        title = f"{count} applied change{'s' * (count != 1)}, newest first"
        if count > MAX_ENTRIES:
            title += f" (the latest {MAX_ENTRIES} shown)"
        self.heading.value = (
            f'{STYLESHEET}<div class="jpo-head"><span class="jpo-action">Operator history'
            f'</span><span class="jpo-muted">{escape(title)}</span></div>'
        )
        children: list[w.Widget] = [self.heading]
        for entry in shown:
            html, undo_button, redo_button = self._row(entry)
            html.value = _row_html(entry)
            undone = entry_state(entry) == "undone"
            undo_button.disabled = undone
            redo_button.disabled = not undone or self._redo is None
            children.append(
                w.VBox([html, w.HBox([undo_button, redo_button])], _dom_classes=("jpo-card",))
            )
        if not shown:
            children.append(w.HTML('<div class="jpo-note jpo-muted">No changes applied yet.</div>'))
        children.append(self.message)
        self.children = tuple(children)

    def _row(self, entry: Any) -> tuple[w.HTML, w.Button, w.Button]:
        row = self.rows.get(entry.entry_id)
        if row is None:
            undo_button = w.Button(
                description="Undo", icon="undo", tooltip="Restore what it replaced"
            )
            redo_button = w.Button(description="Redo", icon="repeat", tooltip="Apply it again")
            undo_button.on_click(lambda _b, e=entry.entry_id: self.act(e, redo=False))
            redo_button.on_click(lambda _b, e=entry.entry_id: self.act(e, redo=True))
            row = self.rows[entry.entry_id] = (w.HTML(), undo_button, redo_button)
        return row

    def act(self, entry_id: str, *, redo: bool) -> None:
        """Undo (or redo) one entry and show the outcome; a refusal shows its reason."""
        action = self._redo if redo else self._undo
        if action is None:
            return
        try:
            line, css = action(entry_id), "jpo-note"
        except Exception as exc:  # one line for the person, never a traceback
            from .panel import describe_error

            verb = "redo" if redo else "undo"
            reason = getattr(exc, "message", None) or describe_error(exc)
            line, css = f"Cannot {verb} {entry_id}: {reason}", "jpo-note jpo-warn"
        self.refresh()
        self.message.value = f'<div class="{css}">{escape(line)}</div>'

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle["text/plain"] = history_text(self.entries)
        return bundle

    def __repr__(self) -> str:
        return f"HistoryView({len(self.entries)} entries)"

    def _repr_keys(self) -> Any:
        return iter(())
