"""One card per item of a run: a read's result, a scan error, or a mutation to decide.

A card only *shows* an item and forwards clicks to callables it was given; it never touches
files. The HTML it builds comes from :mod:`.render`, which escapes every untrusted string.
The decision buttons are separate widgets below the preview, never inside its HTML, so file
content cannot overlay or restyle them (security rule D10).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from .card_html import details_html, header_html, notes_html
from .cells_html import cells_html
from .render import diff_has_invisible, render_diff

if TYPE_CHECKING:
    from ..engine import Item
    from .edit_box import ApproveEdited, EditBox


#: How long a rejection sent with Enter waits for the last keystrokes of its reason.
SUBMIT_SETTLE_SECONDS = 0.4


def _approve_tooltip(blocked_by: str | None) -> str:
    if blocked_by is not None:
        return f"Decide {blocked_by} first"
    return "Carry out exactly what is shown above"


class Shared:
    """Layout and style models shared by the widgets of one panel.

    ipywidgets gives every widget its own ``Layout`` and style model unless one is passed, so a
    panel of 20 cards would create hundreds of identical models: most of its build time, and
    as many comm messages. These models are never changed after creation; anything that must
    change (the buttons of a decided card) is added to or removed from ``children`` instead.
    """

    def __init__(self) -> None:
        from ipywidgets.widgets.widget_string import HTMLStyle

        self.layout = w.Layout()
        self.auto_width = w.Layout(width="auto")
        self.full_width = w.Layout(width="100%")
        self.card_layout = w.Layout(flex_flow="row wrap", align_items="center")
        self.html = HTMLStyle()
        self._text: w.Widget | None = None
        self.button = w.ButtonStyle()

    @property
    def text(self) -> w.Widget:
        """The style of reason fields (created with the first one)."""
        if self._text is None:
            from ipywidgets.widgets.widget_string import TextStyle

            self._text = TextStyle()
        return self._text

    def html_widget(self, value: str = "", *, full_width: bool = False) -> w.HTML:
        layout = self.full_width if full_width else self.layout
        return w.HTML(value=value, layout=layout, style=self.html)

    def button_widget(self, description: str, *, wide: bool = False, **kwargs: Any) -> w.Button:
        layout = self.auto_width if wide else self.layout
        return w.Button(description=description, layout=layout, style=self.button, **kwargs)


class ItemCard(w.Box):
    """The card of one item.

    ``approve(id)`` and ``reject(id, reason)`` are called on clicks; the owner (the run view)
    applies the decision through the engine and calls :meth:`refresh` when the run reports a
    change. ``blocker(item)`` names an undecided earlier change the item depends on (its
    Approve button stays disabled until that one is decided).
    """

    def __init__(
        self,
        item: Item,
        *,
        approve: Callable[[str], None] | None = None,
        reject: Callable[[str, str | None], None] | None = None,
        blocker: Callable[[Item], str | None] | None = None,
        shared: Shared | None = None,
        approve_edited: ApproveEdited | None = None,
        approve_and_run: Callable[[str], None] | None = None,
    ) -> None:
        self.item = item
        #: Approve & Run (an insert or replace of a code cell); None: the card does not offer it.
        self._approve_and_run = approve_and_run
        self.run_button: w.Button | None = None
        #: Approve with the person's edit (``edit_box.py``); None: the card offers no Edit.
        self._approve_edited = approve_edited
        self.edit_button: w.Button | None = None
        self.editor: EditBox | None = None
        self._approve = approve
        self._reject = reject
        self._blocker = blocker or (lambda _item: None)
        self._shared = shared or Shared()
        self.toggle: w.Button | None = None
        #: The decision widgets (buttons, reason field) in display order, once asked for.
        self.controls: list[w.Widget] | None = None
        self.approve_button: w.Button | None = None
        self.reject_button: w.Button | None = None
        self.reason_button: w.Button | None = None
        self.reason: w.Text | None = None
        self._diff_source: str | None = None  # the diff text the view was rendered from
        self._truncated = False
        self._diff_invisible = False
        self._short_diff = ""
        self._full_diff: str | None = None
        self._expanded = False
        # A notebook change shows its cells (None otherwise); the JSON diff is one click away.
        self._cells: tuple[object, str] | None = None
        self.json_toggle: w.Button | None = None
        self._details: tuple[object, str] = ((None, None), "")
        self._submit_timer: Any = None  # a pending Enter in the reason field
        # Every widget is created with its final state: a trait changed after creation is one
        # more state message, and those dominated the cost of displaying a long reply.
        pending, blocked_by, value = self._compute()
        # One HTML widget holds the header, notes, a read's result and the diff (fewer widgets
        # display faster); the buttons are separate widgets below it.
        self.header = self._shared.html_widget(value, full_width=True)
        if pending:
            self._ensure_controls(blocked_by)
        classes = ("jpo-card", f"jpo-kind-{item.kind}", *(("jpo-pending",) if pending else ()))
        # A wrapping row: the HTML spans the full width and the buttons flow below it, with
        # no extra box around them (one widget fewer per card).
        super().__init__(
            self._wanted_children(pending), layout=self._shared.card_layout, _dom_classes=classes
        )

    @property
    def diff_view(self) -> w.HTML | None:
        """The widget showing the diff (None for items without one)."""
        return self.header if self._diff_source is not None else None

    def _diff_html(self) -> str:
        if self._diff_source is None:
            return ""
        if self._cells is not None and self._showing_cells:
            return self._cells[1]
        if not self._expanded:
            return self._short_diff
        if self._full_diff is None:  # rendered on first request only
            self._full_diff = render_diff(
                self._diff_source, max_lines=None, path=self.item.path
            ).html
        return self._full_diff

    # -- display -------------------------------------------------------------------------------
    def _compute(self) -> tuple[bool, str | None, str]:
        """Whether the item waits for a decision, what blocks it, and the card's HTML."""
        item = self.item
        pending = item.status == "pending"
        blocked_by = self._blocker(item) if pending else None
        self._sync_diff()
        notes = notes_html(item, blocked_by, diff_invisible=self._diff_invisible)
        return (
            pending,
            blocked_by,
            header_html(item) + notes + self._details_html() + self._diff_html(),
        )

    def _wanted_children(self, pending: bool) -> list[w.Widget]:
        wanted: list[w.Widget] = [self.header]
        if self.json_toggle is not None:
            wanted.append(self.json_toggle)
        if self._truncated and self.toggle is not None and not self._showing_cells:
            wanted.append(self.toggle)
        if pending and self.controls is not None:
            wanted.extend(self.controls)  # decided: the buttons go away
        return wanted

    def refresh(self) -> None:
        """Redraw from the item's current state; disables the buttons once it is decided."""
        pending, blocked_by, value = self._compute()
        self.header.value = value
        if self.editor is not None and (self.editor.stale or not pending):
            self._close_editor()  # the preview was planned again, or the item is decided
        if pending:
            self._ensure_controls(blocked_by)
            self.add_class("jpo-pending")
        else:
            self.remove_class("jpo-pending")
        if self.controls is not None:
            for button in self.buttons:
                button.disabled = not pending
            if self.approve_button is not None:
                self.approve_button.disabled = (
                    not pending or blocked_by is not None or self.editor is not None
                )
                self.approve_button.tooltip = _approve_tooltip(blocked_by)
            if self.run_button is not None:
                self.run_button.disabled = not pending or blocked_by is not None
            if self.edit_button is not None:  # an edit waits for the change it builds on too
                self.edit_button.disabled = not pending or blocked_by is not None
            if self.reason is not None:
                self.reason.disabled = not pending
        wanted = self._wanted_children(pending)
        if list(self.children) != wanted:
            self.children = tuple(wanted)

    def _details_html(self) -> str:
        # A read's result does not change once it ran; render it once (a run's part changes
        # with its status: running, then its outputs).
        key = (self.item.result, self.item.status)
        if self._details[0] != key:
            self._details = (key, details_html(self.item))
        return self._details[1]

    def _sync_diff(self) -> None:
        """Show the item's current diff (it is computed again when an earlier change it
        was previewed on top of is rejected)."""
        diff = self.item.diff if self.item.kind == "mutation" else None
        if diff is None or diff == self._diff_source:
            return
        rendered = render_diff(diff, path=self.item.path)
        self._diff_source, self._short_diff, self._full_diff = diff, rendered.html, None
        self._total, self._hidden = rendered.total, rendered.total - rendered.shown
        self._truncated, self._expanded = rendered.truncated, False
        self._diff_invisible = diff_has_invisible(diff)  # the whole diff, not just what is shown
        self._sync_cells()
        if rendered.truncated:
            if self.toggle is None:  # only long diffs get the button
                self.toggle = self._shared.button_widget(
                    self._toggle_label(False), wide=True, icon="expand"
                )
                self.toggle.on_click(self._toggle_diff)
            else:
                self.toggle.description = self._toggle_label(False)
                self.toggle.icon = "expand"

    @property
    def _showing_cells(self) -> bool:
        return self.json_toggle is not None and self.json_toggle.description == "Show JSON diff"

    def _sync_cells(self) -> None:
        """Render the cell view of a notebook change (the proposal computes it once)."""
        proposal = self.item.proposal
        cells = proposal.cells if proposal is not None else None
        if cells is None:
            self._cells = None
            if self.json_toggle is not None:
                self.json_toggle = None
            return
        if self._cells is None or self._cells[0] is not cells:
            self._cells = (cells, cells_html(cells))
        if self.json_toggle is None:
            self.json_toggle = self._shared.button_widget(
                "Show JSON diff", wide=True, icon="code",
                tooltip="Show the change as a diff of the notebook's JSON text",
            )  # fmt: skip
            self.json_toggle.on_click(self._toggle_json)

    def _toggle_json(self, _button: w.Button | None = None) -> None:
        if self.json_toggle is None:
            return
        to_json = self._showing_cells
        self.json_toggle.description = "Show cells" if to_json else "Show JSON diff"
        self.json_toggle.icon = "th-list" if to_json else "code"
        self.refresh()

    def _ensure_controls(self, blocked_by: str | None) -> None:
        if self.controls is not None:
            return
        shared = self._shared
        is_run = self.item.kind == "run"
        self.approve_button = shared.button_widget(
            "Run" if is_run else "Approve", button_style="success",
            icon="play" if is_run else "check",
            tooltip=_approve_tooltip(blocked_by), disabled=blocked_by is not None,
        )  # fmt: skip
        self.reject_button = shared.button_widget("Reject", icon="times")
        # The reason field appears when asked for: most proposals are approved or rejected
        # without one, and every widget costs display time.
        self.reason_button = shared.button_widget(
            "Reject with reason...", wide=True, icon="comment",
            tooltip="Type a reason for the model, then send the rejection",
        )  # fmt: skip
        self.approve_button.on_click(lambda _b: self._decide(approve=True))
        self.reject_button.on_click(lambda _b: self._decide(approve=False))
        self.reason_button.on_click(self._reason_clicked)
        self.controls = [self.approve_button, self.reject_button, self.reason_button]
        if self._approve_and_run is not None and getattr(self.item, "can_run", False):
            self.run_button = shared.button_widget(
                "Approve & Run", wide=True, button_style="success", icon="play",
                tooltip="Apply the change, then run the cell in the notebook's kernel",
                disabled=blocked_by is not None,
            )  # fmt: skip
            self.run_button.on_click(lambda _b: self._decide(approve=True, and_run=True))
            self.controls.insert(1, self.run_button)
        if self._approve_edited is not None and self.item.editable:
            self.edit_button = shared.button_widget(
                "Edit", icon="pencil", tooltip="Change the new content yourself, then approve it",
                disabled=blocked_by is not None,
            )  # fmt: skip
            self.edit_button.on_click(lambda _b: self._toggle_editor())
            self.controls.insert(1, self.edit_button)

    def _toggle_editor(self) -> None:
        """Open the editor below the buttons (``edit_box.EditBox``), or close it."""
        if self.controls is None or self._approve_edited is None:
            return
        if self.editor is None:
            from .edit_box import EditBox

            self.editor = EditBox(self.item, approve=self._approve_edited,
                                  cancel=self._toggle_editor)  # fmt: skip
            self.controls.append(self.editor)
        else:
            self._close_editor()
        self.refresh()

    def _close_editor(self) -> None:
        if self.editor is not None and self.controls is not None:
            self.controls.remove(self.editor)
        self.editor = None

    def _reason_clicked(self, _button: w.Button | None = None) -> None:
        """First click: show the reason field. Then: reject with the typed reason."""
        if self.controls is None or self.reason_button is None:
            return
        if self.reason is None:
            self.reason = w.Text(
                placeholder="Reason for the model (Enter sends)",
                layout=self._shared.layout,
                style=self._shared.text,
            )
            # Enter in the field sends the rejection: the view sends a "submit" event (read
            # here directly; Text.on_submit is deprecated in ipywidgets 8).
            self.reason.on_msg(self._reason_message)
            self.reason.observe(self._submit_when_settled, names="value")
            self.controls.insert(2, self.reason)
            self.children = tuple(self._wanted_children(True))
            self.reason_button.description = "Send rejection"
            self.reason_button.tooltip = "Reject and send the reason typed on the left to the model"
            self.reason.focus()
            return
        if not self.reason.value.strip():  # e.g. a double click: wait for the reason
            self.reason.placeholder = "Type the reason for the model first"
            return
        self._decide(approve=False, with_reason=True)

    def _reason_message(self, _widget: object, content: dict[str, Any], _buffers: object) -> None:
        if isinstance(content, dict) and content.get("event") == "submit":
            self._submit_when_settled()

    def _submit_when_settled(self, _change: object = None) -> None:
        """Enter was pressed: send the rejection once the typed reason has arrived.

        The page sends a field's value at most one message at a time and holds back the rest
        until the kernel answers, so the last keystrokes can arrive after the Enter event. The
        rejection waits for the value to settle (each value that arrives restarts the wait).
        """
        import asyncio

        if self._submit_timer is not None:
            self._submit_timer.cancel()
            self._submit_timer = None
        elif _change is not None:
            return  # typing without Enter
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop (a plain Python process): the value is final
            self._reason_clicked()
            return
        self._submit_timer = loop.call_later(SUBMIT_SETTLE_SECONDS, self._submit_now)

    def _submit_now(self) -> None:
        self._submit_timer = None
        self._reason_clicked()

    @property
    def buttons(self) -> list[w.Button]:
        """The decision buttons (empty for items that were never asked about)."""
        found = (self.approve_button, self.run_button, self.edit_button, self.reject_button,
                 self.reason_button)  # fmt: skip
        return [b for b in found if b is not None]

    def _toggle_label(self, expanded: bool) -> str:
        if expanded:
            return "Show less"
        return f"Show all {self._total:,} lines ({self._hidden:,} more)"

    def _toggle_diff(self, _button: w.Button | None = None) -> None:
        if self.toggle is None or self._diff_source is None:
            return
        self._expanded = not self._expanded
        self.toggle.description = self._toggle_label(self._expanded)
        self.toggle.icon = "compress" if self._expanded else "expand"
        self.refresh()

    # -- decisions -----------------------------------------------------------------------------
    def _decide(self, *, approve: bool, with_reason: bool = False, and_run: bool = False) -> None:
        if self.item.status != "pending":
            self.refresh()
            return
        for button in self.buttons:  # one click is one decision
            button.disabled = True
        if approve and and_run and self._approve_and_run is not None:
            self._approve_and_run(self.item.id)
        elif approve:
            if self._approve is not None:
                self._approve(self.item.id)
        elif self._reject is not None:
            text = self.reason.value.strip() if (with_reason and self.reason) else ""
            self._reject(self.item.id, text or None)
        self.refresh()

    def __repr__(self) -> str:
        return f"ItemCard({self.item.id!r}, {self.item.status})"

    def _repr_keys(self) -> Any:  # keep widget reprs short: they would embed file content
        return iter(())


#: States in which an item can no longer change.
FINAL_STATES = frozenset({"done", "failed", "error", "denied", "applied", "rejected", "stale"})


class StaticCard(w.HTML):
    """The card of a read or scan error that was already final when the run was displayed.

    Such an item never changes again, so one HTML widget is enough (half the widgets of an
    ``ItemCard``; long replies are mostly reads). Same interface as ``ItemCard``.
    """

    def __init__(self, item: Item, *, shared: Shared | None = None) -> None:
        self.item = item
        shared = shared or Shared()
        super().__init__(
            value=header_html(item) + notes_html(item) + details_html(item),
            layout=shared.layout,
            style=shared.html,
            _dom_classes=("jpo-card", f"jpo-kind-{item.kind}"),
        )

    @staticmethod
    def can_show(item: Item) -> bool:
        """True for items a static card can show for good."""
        return item.kind in ("read", "error") and item.status in FINAL_STATES

    @property
    def header(self) -> w.HTML:
        return self

    diff_view = None
    toggle = None
    controls = None
    buttons: list[w.Button] = []  # noqa: RUF012 (never mutated; mirrors ItemCard.buttons)

    def refresh(self) -> None:
        """Nothing to do: the item is final."""

    def __repr__(self) -> str:
        return f"StaticCard({self.item.id!r}, {self.item.status})"

    def _repr_keys(self) -> Any:
        return iter(())
