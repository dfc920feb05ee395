"""Edit before approve, in a notebook: a text editor for a proposal's new content.

``EditBox`` shows the model's proposed content in a ``Textarea``; as the person types, the diff
below it shows what Approve would write (computed by the engine from the preview in memory, so
no file is touched here), and a line says how far the edit is from the proposal. "Approve
edited" hands the exact bytes to the card's owner, which calls ``Run.approve(id, content=...)``;
a refused edit (an invalid notebook, too large) is shown here and the item stays pending.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from ..engine.edits import changed_lines, keep_line_endings, preview_diff
from .render import escape, render_diff

if TYPE_CHECKING:
    from ..engine import Item

#: Approve with edited bytes; returns None when done, else why the edit was refused.
ApproveEdited = Callable[[str, bytes], "str | None"]

MIN_ROWS, MAX_ROWS = 6, 30


class EditBox(w.VBox):
    """The editor of one pending change: text, live diff, Approve edited and Cancel."""

    def __init__(self, item: Item, *, approve: ApproveEdited,
                 cancel: Callable[[], None]) -> None:  # fmt: skip
        self.item = item
        self._opened_on = item.proposal  # the preview this edit started from
        self._approve = approve
        self._cancel = cancel
        self.proposed = item.proposed_text() or ""
        rows = max(MIN_ROWS, min(MAX_ROWS, self.proposed.count("\n") + 2))
        self.text = w.Textarea(
            value=self.proposed, rows=rows, continuous_update=True,
            layout=w.Layout(width="100%"),
        )  # fmt: skip
        self.text.add_class("jpo-edit-text")
        self.status = w.HTML(layout=w.Layout(width="100%"))
        self.diff = w.HTML(layout=w.Layout(width="100%"))
        self.approve_button = w.Button(
            description="Approve edited", button_style="success", icon="check",
            tooltip="Write exactly the text above (the model is told what you changed)",
            layout=w.Layout(width="auto"),
        )  # fmt: skip
        self.cancel_button = w.Button(description="Cancel edit", icon="undo",
                                      layout=w.Layout(width="auto"))  # fmt: skip
        self.approve_button.on_click(self._approve_clicked)
        self.cancel_button.on_click(lambda _b: self._cancel())
        self.text.observe(self._changed, names="value")
        self._error = ""
        self._update()
        note = w.HTML(
            '<div class="jpo-note jpo-muted">Edit the new content; the diff below shows what '
            "Approve edited will write.</div>",
            layout=w.Layout(width="100%"),
        )
        buttons = w.HBox([self.approve_button, self.cancel_button])
        super().__init__([note, self.text, self.status, self.diff, buttons],
                         layout=w.Layout(width="100%"), _dom_classes=("jpo-edit",))  # fmt: skip

    @property
    def stale(self) -> bool:
        """True once the item's preview was planned again (the edit started from another)."""
        return self.item.proposal is not self._opened_on

    def content(self) -> bytes:
        """The exact bytes Approve edited would write."""
        return keep_line_endings(self.proposed, self.text.value).encode("utf-8")

    def _changed(self, _change: Any = None) -> None:
        self._error = ""
        self._update()

    def _update(self) -> None:
        content = self.content()
        self.diff.value = render_diff(preview_diff(self.item, content), path=self.item.path).html
        added, removed = changed_lines(self.item, content)
        if added or removed:
            words = f"Your edit: +{added} &minus;{removed} lines compared with the proposal."
        else:
            words = "Same as the proposal."
        error = f'<div class="jpo-note jpo-warn">{escape(self._error)}</div>' if self._error else ""
        self.status.value = f'<div class="jpo-note">{words}</div>{error}'

    def _approve_clicked(self, _button: Any = None) -> None:
        self.approve_button.disabled = True
        refused = self._approve(self.item.id, self.content())
        if refused:
            self._error = f"Not approved: {refused}"
            self.approve_button.disabled = False
            self._update()

    def __repr__(self) -> str:
        return f"EditBox({self.item.id!r})"

    def _repr_keys(self) -> Any:  # widget reprs would embed file content
        return iter(())
