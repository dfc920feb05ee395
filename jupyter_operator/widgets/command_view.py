"""The display of a string-command batch: each response as text, documents as safe HTML, and a
diff card (for a bash line: the command, its folder and the sandbox) with Approve / Reject for
the change that waits.

Like the run view, it follows the batch (``Batch.subscribe``): a decision made by a click or
from Python (``batch.approve()``) redraws it, and the commands that waited for that decision
appear below. File content reaches the page only escaped (``document_html`` and ``escape``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import ipywidgets as w

from ..dialects.commands.markdown_html import document_html
from .cards import ItemCard, Shared
from .json_cards import ShellCard
from .render import STYLESHEET, escape

if TYPE_CHECKING:
    from ..engine.commands import Batch, Reply

DOC_STYLE = """<style>
.jpo-cmd{font-family:var(--jp-code-font-family,monospace);white-space:pre-wrap;margin:2px 0}
.jpo-cmd-error{color:var(--jp-error-color1,#b00020)}
.jpo-doc{max-height:24em;overflow:auto;border-left:3px solid var(--jp-border-color2,#ccc);
 padding:0 10px;margin:2px 0 8px}
.jpo-url,.jpo-image{color:var(--jp-ui-font-color2,#666)}
</style>"""


def reply_html(reply: Reply) -> str:
    """One response as escaped text, and its document rendered (Markdown as HTML)."""
    css = "jpo-cmd jpo-cmd-error" if reply.status == "error" else "jpo-cmd"
    if reply.document is not None and reply.document_path is not None:
        head = reply.text.split("\n---\n", 1)[0]  # the document itself is rendered below
        return (f'<pre class="{css}">{escape(head)}</pre>'
                + document_html(reply.document, reply.document_path))  # fmt: skip
    return f'<pre class="{css}">{escape(reply.text)}</pre>'


class CommandView(w.VBox):
    """Every reply of ``batch``, in order, and a card for the change waiting for a decision."""

    def __init__(self, batch: Batch) -> None:
        self.batch = batch
        self._shared = Shared()
        self._rows: list[tuple[Reply, str, w.HTML, ItemCard | None]] = []
        self.messages = w.Output()
        super().__init__(self._children(), _dom_classes=("jpo-run", "jpo-commands"))
        batch.subscribe(lambda _batch: self.refresh())

    def _row(self, reply: Reply) -> tuple[Reply, str, w.HTML, ItemCard | None]:
        html = reply_html(reply)
        widget = self._shared.html_widget(html, full_width=True)
        card = None
        if reply.run is not None:
            item = reply.run.items[0]
            kind = ShellCard if item.kind == "shell" else ItemCard  # a bash line: the command
            card = kind(item, approve=self._approve, reject=self._reject, shared=self._shared)
        return reply, html, widget, card

    def _children(self) -> list[w.Widget]:
        for index, reply in enumerate(self.batch.replies):
            if index == len(self._rows):
                self._rows.append(self._row(reply))
            elif self._rows[index][1] != reply_html(reply):
                _, _, widget, card = self._rows[index]
                widget.value = html = reply_html(reply)
                self._rows[index] = (reply, html, widget, card)
        children: list[w.Widget] = [self._shared.html_widget(STYLESHEET + DOC_STYLE)]
        for _reply, _html, widget, card in self._rows:
            children.append(widget)
            if card is not None:
                card.refresh()
                children.append(card)
        if self.messages.outputs:
            children.append(self.messages)
        return children

    def refresh(self) -> None:
        """Redraw from the batch (new replies, decided changes)."""
        wanted = self._children()
        if list(self.children) != wanted:
            self.children = tuple(wanted)

    def _approve(self, _item_id: str) -> None:
        try:
            self.batch.approve()
        except Exception as exc:  # one line in the view; a click handler must not raise
            self.messages.append_stdout(f"operator: {exc}\n")
        self.refresh()

    def _reject(self, _item_id: str, reason: str | None) -> None:
        try:
            self.batch.reject(reason)
        except Exception as exc:
            self.messages.append_stdout(f"operator: {exc}\n")
        self.refresh()

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):  # the responses as text for terminals and saved notebooks
            bundle["text/plain"] = self.batch.text
        return bundle

    def __repr__(self) -> str:
        return f"<CommandView replies={len(self.batch.replies)} queued={len(self.batch.queued)}>"
