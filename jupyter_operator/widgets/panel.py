"""The display of one run: its cards in reply order, the batch buttons and the results.

The cell that displays this panel has already returned when anyone clicks (a cell cannot wait
for a click: widget messages are not processed while it runs). Click handlers therefore apply
the decision themselves through the engine's ``Run``, and the panel follows the run through
``Run.subscribe``, so decisions made from Python (``run.approve(...)``) redraw it as well.
Messages from handlers go to an ``Output`` widget; ``print`` in a handler would be lost.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import ipywidgets as w

from ..engine.labels import NO_BLOCKS, badge, cut_warning, person_text
from .card_html import static_html
from .cards import ItemCard, Shared, StaticCard
from .copybox import CopyBox
from .render import STYLESHEET, escape, visible

if TYPE_CHECKING:
    from ..engine import Decision, Item, Run

RESULTS_TITLE = "OPERATOR_RESULT blocks for the model's next turn"
#: Output metadata read by the server's pre-save hook (jupyter_operator/server/savehook.py).
SAVED_OUTPUT_KEY = "jupyter_operator"


def describe_error(exc: BaseException) -> str:
    """One line for the person, never a traceback, an exception name or a host path."""
    summary = getattr(exc, "summary", None)
    if isinstance(summary, str):
        return person_text(summary)
    if isinstance(exc, KeyError):
        return "no such command id in this run"
    if isinstance(exc, ValueError):  # the engine's messages name only command ids and states
        return str(exc)
    return "the decision could not be applied (internal error)"


def run_summary(run: Run) -> str:
    """``3 commands: 1 done, 2 waiting for you`` (plain text, the badge words)."""
    counts: dict[str, int] = {}
    for item in run.items:
        counts[item.status] = counts.get(item.status, 0) + 1
    parts = [f"{n} {badge(status).lower()}" for status, n in counts.items()]
    total = len(run.items)
    head = f"{total} command{'s' * (total != 1)}"
    return head + (": " + ", ".join(parts) if parts else "")


def text_listing(run: Run) -> str:
    """A short plain-text view of a run: one line per item, no file content."""
    lines = [f"Operator run: {run_summary(run)}"]
    for item in run.items:
        where = f" {item.path}" if item.path is not None else ""
        summary = person_text(item.result.summary if item.result is not None else item.summary)
        lines.append(f"  [{badge(item.status)}] {item.action or 'invalid'}{where} ({item.id}): "
                     f"{summary}")  # fmt: skip
    return visible("\n".join(lines))


class RunView(w.VBox):
    """Cards for every item of ``run`` plus Approve all / Reject all and the results panel."""

    results_title = RESULTS_TITLE
    empty_note = NO_BLOCKS

    def __init__(
        self, run: Run, *, title: str = "Operator", dry_run: bool = False, note: str = ""
    ) -> None:
        self.run = run
        self._title = title
        #: A dry run's results are not real (every change was refused to preview it): they are
        #: not offered for copying.
        self.dry_run = dry_run
        self._heading_note = note
        shared = self._shared = Shared()
        # Widgets are created with their final state (see ItemCard): no change messages.
        self.heading = shared.html_widget(self._heading_html())
        self.cards: list[ItemCard | StaticCard] = [self._card(item) for item in run.items]
        self._cards_by_index = {card.item.index: card for card in self.cards}
        nothing_pending = not run.pending
        self.approve_all_button = shared.button_widget(
            "Approve all", button_style="success", icon="check-double", disabled=nothing_pending
        )
        self.reject_all_button = shared.button_widget(
            "Reject all", icon="ban", disabled=nothing_pending
        )
        self.approve_all_button.on_click(lambda _b: self._batch(approve=True))
        self.reject_all_button.on_click(lambda _b: self._batch(approve=False))
        self.batch = w.HBox(
            [self.approve_all_button, self.reject_all_button],
            layout=shared.layout,
            _dom_classes=("jpo-batch",),
        )
        self._messages: w.Output | None = None
        #: The results for the model, created once nothing waits for a decision.
        self.results: CopyBox | None = None
        self._sync_results()
        super().__init__(self._wanted_children(), layout=shared.layout, _dom_classes=("jpo-run",))
        run.subscribe(self._on_item_changed)

    def _card(self, item: Item) -> ItemCard | StaticCard:
        """The card for one item (a hook: other dialects show some items differently)."""
        if StaticCard.can_show(item):
            return StaticCard(item, shared=self._shared)
        return ItemCard(
            item,
            approve=self._approve_one,
            reject=self._reject_one,
            blocker=self._blocker,
            shared=self._shared,
            approve_edited=self._approve_edited,
            approve_and_run=self._approve_and_run if hasattr(self.run, "finish_execution")
            else None,
        )

    # -- display -------------------------------------------------------------------------------
    def _heading_html(self) -> str:
        run = self.run
        notes = []
        unread = getattr(run, "unread_markers", 0)
        warning = cut_warning(run.truncated_chars, unread) if unread else ""
        if run.truncated_chars and not unread:
            notes.append(cut_warning(run.truncated_chars, 0))
        if self._heading_note:
            notes.append(self._heading_note)
        if run.skipped_duplicates:
            ids = ", ".join(run.skipped_duplicates)
            notes.append(f"Already ran earlier in this session, skipped: {ids}.")
        if self.dry_run and run.done and run.items:
            notes.append(
                "Dry run: nothing was written, and these results are not for the model. "
                "Run the reply without --dry-run to decide for real."
            )
        if not run.items and not run.skipped_duplicates:
            notes.append(self.empty_note)
        html = (
            f'{STYLESHEET}<div class="jpo-head"><span class="jpo-action">{escape(self._title)}'
            f'</span><span class="jpo-muted">{escape(run_summary(run))}</span></div>'
        )
        if warning:  # commands were lost: a warning banner, not a muted note
            html += f'<div class="jpo-note jpo-warn jpo-banner">{escape(warning)}</div>'
        return html + "".join(f'<div class="jpo-note jpo-muted">{escape(n)}</div>' for n in notes)

    def _sync_results(self) -> None:
        unread = getattr(self.run, "unread_markers", 0)
        if not self.run.done or not (self.run.items or unread) or self.dry_run:  # nothing yet
            return
        if self.results is None:
            self.results = CopyBox(self.results_title, self.run.results_text)
            self.results.add_class("jpo-results")
        else:
            self.results.value = self.run.results_text

    def _wanted_children(self) -> list[w.Widget]:
        wanted: list[w.Widget] = [self.heading]
        if len(self.run.pending) >= 2:  # a batch bar only helps with two or more proposals
            wanted.append(self.batch)  # at the top, as in the JupyterLab panel
        wanted.extend(self.cards)
        if self._messages is not None and self._messages.outputs:
            wanted.append(self._messages)
        if self.results is not None:
            wanted.append(self.results)
        return wanted

    def refresh(self) -> None:
        """Redraw the heading, the batch bar and the results panel from the run."""
        self.heading.value = self._heading_html()
        nothing_pending = not self.run.pending
        self.approve_all_button.disabled = self.reject_all_button.disabled = nothing_pending
        self._sync_results()
        wanted = self._wanted_children()
        if list(self.children) != wanted:
            self.children = tuple(wanted)

    @property
    def messages(self) -> w.Output:
        """Where click handlers report problems (created with the first message)."""
        if self._messages is None:
            self._messages = w.Output(layout=self._shared.layout)
        return self._messages

    def card_for(self, item_id: str) -> ItemCard | StaticCard:
        """The card showing the item with this id (KeyError if none)."""
        for card in self.cards:
            if card.item.id == item_id:
                return card
        raise KeyError(item_id)

    def _blocker(self, item: Item) -> str | None:
        """The undecided earlier change ``item`` was previewed on top of, if any."""
        if not item.builds_on:
            return None
        try:
            earlier = self.run.item(item.builds_on)
        except KeyError:
            return None
        return earlier.id if earlier.needs_approval else None

    def _on_item_changed(self, item: Item) -> None:
        card = self._cards_by_index.get(item.index)
        if card is not None:
            card.item = item
        # One decision can change other cards too: a change previewed on top of this one, or
        # a read waiting for it. Refreshing is cheap when nothing changed.
        for other in self.cards:
            other.refresh()
        self.refresh()

    # -- decisions (through the engine only) ---------------------------------------------------
    def _report(self, exc: BaseException) -> None:
        self.messages.append_stdout(f"operator: {describe_error(exc)}\n")
        self.refresh()

    def _approve_one(self, item_id: str) -> None:
        try:
            self._note(self.run.approve(item_id))
        except Exception as exc:  # shown as one line in the panel; a handler must not raise
            self._report(exc)
        self._resync()

    def _approve_and_run(self, item_id: str) -> None:
        """Approve & Run: apply the cell change, then run the cell in the notebook's kernel."""
        try:
            self._note(self.run.approve(item_id, and_run=True))
        except Exception as exc:
            self._report(exc)
        self._resync()

    def _approve_edited(self, item_id: str, content: bytes) -> str | None:
        """Approve with the person's edit; a refused edit is returned for the editor to show."""
        from ..engine import EngineError

        try:
            self._note(self.run.approve(item_id, content=content))
        except EngineError as exc:  # BadEdit, DecideFirst: the item stays pending
            return exc.message
        except Exception as exc:
            self._report(exc)
        self._resync()
        return None

    def _reject_one(self, item_id: str, reason: str | None) -> None:
        try:
            self._note(self.run.reject(item_id, reason=reason))
        except Exception as exc:
            self._report(exc)
        self._resync()

    def _note(self, decision: Decision) -> None:
        # Deciding twice (a click after a cell decided) changes nothing: say so, in one line.
        if decision.outcome == "already_decided":
            self.messages.append_stdout(f"operator: {decision.message}\n")

    def _batch(self, *, approve: bool) -> None:
        self.approve_all_button.disabled = self.reject_all_button.disabled = True
        try:
            if approve:
                self.run.approve_all()
            else:
                self.run.reject_all()
        except Exception as exc:
            self._report(exc)
        self._resync()

    def _resync(self) -> None:
        # The run notifies us item by item; this makes the display right even if a
        # notification was missed (e.g. an exception half-way through a batch).
        for card in self.cards:
            card.refresh()
        self.refresh()

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):  # what terminals and a notebook without a kernel show
            bundle["text/plain"] = text_listing(self.run)
            results = (self.results_title, self.results.value) if self.results else None
            bundle["text/html"] = static_html(self.run, title=self._title, results=results)
        return bundle

    def saved_metadata(self) -> dict[str, Any]:
        """Output metadata for the saved notebook (kernel/saved_output.py sends it).

        Once nothing waits for a decision the static text is the whole truth: the server's
        pre-save hook (server/savehook.py) then saves the card without its widget view."""
        return {SAVED_OUTPUT_KEY: {"final": self.run.done}}

    def __repr__(self) -> str:
        # Widget reprs embed every trait value (file content included) and land in the saved
        # notebook as text/plain; keep it to a one-line summary.
        return f"Operator run: {run_summary(self.run)}"

    def _repr_keys(self) -> Any:
        return iter(())
