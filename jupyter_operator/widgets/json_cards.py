"""Cards for JSON operations: the shell card, and the run view that uses it.

File operations of the JSON dialect look like the Operator ones (a diff to approve). A shell
command's card shows exactly what will run: the command, its working folder, the extra
environment, whether it is sandboxed; after approval its output streams in. Every string is
escaped (the ipywidgets HTML widget inserts raw HTML).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .card_html import header_html, notes_html
from .cards import ItemCard, StaticCard
from .panel import RunView
from .render import escape, render_text_block

if TYPE_CHECKING:
    from ..engine import Item, JsonRun

EVENTS_TITLE = "Response events (JSON) for the model's next turn"
OUTPUT_LINES = 400  # lines of each stream shown on the card (the model's copy is capped apart)
UNDO_NOTE = "Undo covers file operations only: what a command changes is not journaled."


def _sandbox_line(state: object) -> str:
    if getattr(state, "sandboxed", False):
        net = "network on" if getattr(state, "network", False) else "no network"
        return (
            '<div class="jpo-note jpo-muted">Sandboxed (bubblewrap): only the workspace is '
            f"writable, {net}.</div>"
        )
    return (
        '<div class="jpo-note jpo-warn">Not sandboxed: bubblewrap is not available (or is '
        "switched off), so the command runs with your permissions.</div>"
    )


def _stream(label: str, text: str) -> str:
    if not text:
        return ""
    block, count = render_text_block(text, max_lines=OUTPUT_LINES)
    lines = f"{count} line{'s' * (count != 1)}"
    return f"<details open><summary>{label} ({lines})</summary>{block}</details>"


def shell_html(item: Item) -> str:
    """The command block of a shell card: command, cwd, env, sandbox, then the output."""
    state = getattr(item, "shell", None)
    if state is None:
        return ""
    rows = [
        '<div class="jpo-note">Command:</div>',
        f'<pre class="jpo-text jpo-command">{escape(state.command)}</pre>',
        f'<div class="jpo-note">Working folder: <span class="jpo-path">{escape(state.cwd)}</span>'
        f" &middot; timeout {int(state.timeout_ms):,} ms</div>",
    ]
    if state.env:
        pairs = " ".join(f"{name}={value}" for name, value in state.env.items())
        rows.append(f'<div class="jpo-note">Extra environment: <code>{escape(pairs)}</code></div>')
    else:
        rows.append('<div class="jpo-note jpo-muted">No extra environment.</div>')
    rows.append(_sandbox_line(state))
    rows.append(f'<div class="jpo-note jpo-muted">{escape(UNDO_NOTE)}</div>')
    if state.status == "running":
        rows.append('<div class="jpo-note">Running...</div>')
    elif state.status == "finished":
        if state.timed_out:
            outcome = f"Timed out after {state.duration_ms:,} ms (exit code 124)."
        else:
            outcome = f"Exit code {state.exit_code} in {state.duration_ms:,} ms."
        css = "jpo-note" if state.exit_code == 0 else "jpo-note jpo-warn"
        rows.append(f'<div class="{css}">{escape(outcome)}</div>')
    rows.append(_stream("stdout", state.stdout))
    rows.append(_stream("stderr", state.stderr))
    return "".join(rows)


class ShellCard(ItemCard):
    """The card of a shell operation: the exact command, then its output as it arrives."""

    def _compute(self) -> tuple[bool, str | None, str]:
        item = self.item
        pending = item.status == "pending"
        outcome = ""
        if item.status not in ("pending", "waiting", "done") and item.result is not None:
            outcome = f'<div class="jpo-note jpo-warn">{escape(item.result.summary)}</div>'
        return pending, None, header_html(item) + notes_html(item) + outcome + shell_html(item)


class JsonRunView(RunView):
    """The run view for JSON operations: shell cards, and the response events as results."""

    results_title = EVENTS_TITLE
    empty_note = "No JSON operations found."

    def __init__(
        self,
        run: JsonRun,
        *,
        title: str = "Operator (JSON operations)",
        dry_run: bool = False,
        note: str = "",
    ) -> None:
        super().__init__(run, title=title, dry_run=dry_run, note=note)  # type: ignore[arg-type]

    def _card(self, item: Item) -> ItemCard | StaticCard:
        if item.kind == "shell":
            return ShellCard(
                item, approve=self._approve_one, reject=self._reject_one, shared=self._shared
            )
        return super()._card(item)


def view_for(
    run: object, *, title: str | None = None, dry_run: bool = False, note: str = ""
) -> RunView:
    """The right view for a run of any dialect."""
    options: dict[str, object] = {"dry_run": dry_run, "note": note}
    if title:
        options["title"] = title
    if getattr(run, "dialect", "operator") == "json":
        return JsonRunView(run, **options)  # type: ignore[arg-type]
    return RunView(run, **options)  # type: ignore[arg-type]
