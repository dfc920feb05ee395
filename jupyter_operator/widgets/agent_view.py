"""The display of an agent run: the model's prose streaming in, each turn's cards, Stop.

It follows an ``Agent`` through ``Agent.subscribe``. Prose is shown as text as it arrives;
each command block appears as a small "received" card the moment its block is complete, and
the turn's real cards (a ``RunWidget``: diffs, Approve / Reject) replace them once
the reply has gone through the engine. The run itself is an asyncio task on the kernel's
loop, so the kernel stays free for clicks and other cells while it waits for decisions.

Displayed, the view keeps its saved output truthful (``saved_output.py``): a static HTML copy
of the run (prose, each turn's cards as decided, how it ended) that a notebook reopened without
its kernel shows, and once the run has ended the mark that makes the server save that copy
alone (``server/savehook.py``), never a widget whose model is gone.
"""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from ..agent import events as ev
from ..agent.block_tracker import ProseFilter
from ..agent.models import model_label
from .layout import Shared
from .render import STYLESHEET, escape
from .run_widget import SAVED_OUTPUT_KEY, RunWidget
from .saved_output import SavedOutput
from .static_view import STYLE, static_html

if TYPE_CHECKING:
    from ..agent import Agent

#: Prose kept on screen per turn (the transcript keeps everything).
PROSE_LIMIT = 20_000
#: Streamed text is redrawn at most this often (the first delta is drawn at once).
REDRAW_SECONDS = 0.04
#: Events after which the saved copy of the view is refreshed (not every streamed delta).
SAVED_EVENTS = (ev.TurnPlanned, ev.ItemChanged, ev.TurnFinished, ev.Notice, ev.Stopped)


def _received_html(fields: dict[str, str]) -> str:
    parts = [
        '<span class="jpo-badge jpo-s-waiting">received</span>',
        f'<span class="jpo-action">{escape(fields.get("action", "command"))}</span>',
    ]
    if "path" in fields:
        parts.append(f'<span class="jpo-path">{escape(fields["path"])}</span>')
    if "id" in fields:
        parts.append(f'<span class="jpo-id">{escape(fields["id"])}</span>')
    return f'<div class="jpo-card"><div class="jpo-head">{"".join(parts)}</div></div>'


class _Turn:
    """The widgets of one turn: its prose, then its cards."""

    def __init__(self, number: int, shared: Shared) -> None:
        self.number = number
        # The last PROSE_LIMIT characters or so, as pieces (joined only when drawn), and the
        # total: a long reply costs linear time however it is cut into deltas.
        self._pieces: collections.deque[str] = collections.deque()
        self._kept = 0
        self.prose_chars = 0
        self.filter = ProseFilter()
        self.prose = shared.html_widget(full_width=True)
        self.received: list[w.HTML] = []
        self.run_view: Any = None
        self.box = w.VBox([self.prose], layout=shared.layout, _dom_classes=("jpo-agent-turn",))
        self._shared = shared

    @property
    def prose_text(self) -> str:
        """The prose shown (the last PROSE_LIMIT characters)."""
        return "".join(self._pieces)[-PROSE_LIMIT:]

    def add_prose(self, text: str) -> None:
        self._pieces.append(text)
        self._kept += len(text)
        self.prose_chars += len(text)
        while self._pieces and self._kept - len(self._pieces[0]) >= PROSE_LIMIT:
            self._kept -= len(self._pieces.popleft())

    def prose_html(self) -> str:
        text = self.prose_text
        cut = self.prose_chars - len(text)
        note = (
            f'<span class="jpo-muted">... {cut:,} characters above not shown</span>\n'
            if cut > 0
            else ""
        )
        body = escape(text)
        return f'<div class="jpo-note">{note}{body}</div>' if text.strip() else ""

    def add_received(self, fields: dict[str, str]) -> None:
        card = self._shared.html_widget(_received_html(fields))
        self.received.append(card)
        self.box.children = (*self.box.children, card)

    def show_run(self, view: Any) -> None:
        self.run_view = view
        self.box.children = (self.prose, view)


class AgentView(w.VBox):
    """Header (model, turn, tokens, state), Stop, then one section per turn."""

    def __init__(
        self,
        agent: Agent,
        *,
        task: str | None = None,
        cards: Callable[..., Any] | None = None,
    ) -> None:
        self.agent = agent
        #: Makes the cards of a turn's run (``RunWidget`` unless the kernel wires undo to it).
        self._cards = cards or RunWidget
        self.task = task
        shared = self._shared = Shared()
        self.heading = shared.html_widget()
        self.stop_button = shared.button_widget("Stop", icon="stop", button_style="danger")
        self.stop_button.on_click(lambda _b: self.agent.stop())
        self.bar = w.HBox(
            [self.heading, self.stop_button], layout=shared.layout, _dom_classes=("jpo-agent-bar",)
        )
        self.turns: list[_Turn] = []
        self.status = shared.html_widget()
        self.state = "starting"
        self.turn = 0
        self.tokens = 0
        self._dirty: _Turn | None = None
        self._last_draw = 0.0
        self._timer: Any = None
        self.first_draw: float | None = None  # monotonic time the first prose was drawn
        self._saved: list[SavedOutput] = []  # each place this view is displayed
        self._draw_heading()
        super().__init__([self.bar], layout=shared.layout, _dom_classes=("jpo-agent",))
        agent.subscribe(self.on_event)

    # -- drawing -------------------------------------------------------------------------------
    def _draw_heading(self) -> None:
        model = self.agent.model
        badge = "pending" if self.state.startswith("waiting for you") else "waiting"
        if self.state.startswith("ended"):
            reason = self.agent.result.reason if self.agent.result else ""
            badge = {"done": "applied", "model_error": "error", "repeated_failure": "error"}.get(
                reason, "rejected"
            )
        parts = [
            '<span class="jpo-action">Agent</span>',
            f'<span class="jpo-path">{escape(model_label(model.name, model.endpoint))}</span>',
            f'<span class="jpo-muted">turn {self.turn}/{self.agent.max_turns}</span>',
            *(f'<span class="jpo-muted jpo-meter">{escape(part)}</span>' for part in self.meter()),
            f'<span class="jpo-badge jpo-s-{badge}">{escape(self.state)}</span>',
        ]
        self.heading.value = f'{STYLESHEET}<div class="jpo-head">{"".join(parts)}</div>'

    def meter(self) -> list[str]:
        """What the run has spent: ``1,234 of 5,000 tokens``, and with a price
        ``$0.0123 of $0.5`` (each against its budget, when it has one)."""
        agent = self.agent
        tokens = f"{self.tokens:,}" + (f" of {agent.max_tokens:,}" if agent.max_tokens else "")
        found = [f"{tokens} tokens"]
        spent = agent.cost
        if spent is not None:
            found.append(f"${spent:,.4f}" + (f" of ${agent.max_cost:g}" if agent.max_cost else ""))
        return found

    def _draw_prose(self, turn: _Turn) -> None:
        self._dirty = None
        self._last_draw = time.monotonic()
        turn.prose.value = turn.prose_html()
        if self.first_draw is None and turn.prose_text:
            self.first_draw = self._last_draw

    def _schedule(self, turn: _Turn) -> None:
        """Redraw now, or once REDRAW_SECONDS after the last redraw (coalescing deltas)."""
        self._dirty = turn
        if time.monotonic() - self._last_draw >= REDRAW_SECONDS:
            self._draw_prose(turn)
            return
        if self._timer is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                self._draw_prose(turn)
                return
            self._timer = loop.call_later(REDRAW_SECONDS, self._flush)

    def _flush(self) -> None:
        self._timer = None
        if self._dirty is not None:
            self._draw_prose(self._dirty)

    def _current(self) -> _Turn:
        return self.turns[-1]

    # -- events --------------------------------------------------------------------------------
    def on_event(self, event: ev.Event) -> None:
        """Follow the agent (called by ``Agent`` for every event)."""
        self._follow(event)
        if isinstance(event, SAVED_EVENTS):
            for saved in self._saved:
                saved.update(self)

    def _follow(self, event: ev.Event) -> None:
        if isinstance(event, ev.TurnStarted):
            self._flush()
            if not self.turns or self.turns[-1].number != event.turn:
                self.turns.append(_Turn(event.turn, self._shared))
                self.children = (self.bar, *(t.box for t in self.turns))
            self.turn, self.state = event.turn, "model replying"
            self._draw_heading()
        elif isinstance(event, ev.TextDelta):
            turn = self._current()
            prose = turn.filter.feed(event.text)
            if prose:
                turn.add_prose(prose)
                self._schedule(turn)
        elif isinstance(event, ev.BlockReady):
            self._current().add_received(event.fields())
        elif isinstance(event, ev.TurnPlanned):
            self._flush()
            self.tokens = event.tokens  # the reply's usage is known once it has ended
            turn = self._current()
            if event.run.items or event.run.skipped_duplicates:  # a closing reply has no cards
                turn.show_run(self._cards(event.run, title=f"Turn {event.turn}"))
            self.state = "waiting for you" if event.run.pending else "running commands"
            self._draw_heading()
        elif isinstance(event, ev.ItemChanged):
            run = self.agent.run_now
            if run is not None and not run.pending and self.state == "waiting for you":
                self.state = "running commands"
                self._draw_heading()
        elif isinstance(event, ev.TurnFinished):
            self.tokens = event.tokens
            self._draw_heading()
        elif isinstance(event, ev.Notice):
            self._flush()
            note = f'<div class="jpo-note jpo-warn">{escape(event.message)}</div>'
            self._current().box.children = (
                *self._current().box.children,
                self._shared.html_widget(note),
            )
        elif isinstance(event, ev.Stopped):
            self._flush()
            self.tokens, self.state = event.tokens, f"ended: {event.reason.replace('_', ' ')}"
            limit = self.agent.result.budget if self.agent.result else None
            if limit:  # which budget it reached
                self.state += f" ({limit})"
            self._draw_heading()
            # Ended: no longer drawn as the red button that stops something.
            self.stop_button.disabled = True
            self.stop_button.button_style = ""
            self.stop_button.description, self.stop_button.icon = "Ended", ""
            message = event.message
            if event.reason == "question" and self.agent.question is not None and self.turns:
                self._ask_person(self.agent.question)
                message = "The model asked you a question (above): answer it to go on."
                self.state = "waiting for your answer"
                self._draw_heading()
            self.status.value = f'<div class="jpo-note">{escape(message)}</div>'
            self.children = (*self.children, self.status)

    # -- a question to the person --------------------------------------------------------------
    def _ask_person(self, question: str) -> None:
        """The model's question, a box for the answer, and Answer (which continues the run)."""
        shared = self._shared
        asked = shared.html_widget(f'<div class="jpo-note jpo-question"><b>The model asks:</b> '
                                   f"{escape(question)}</div>", full_width=True)  # fmt: skip
        self.answer_box = w.Textarea(placeholder="Your answer (the model's next message)",
                                     layout=w.Layout(width="100%"))  # fmt: skip
        self.answer_button = shared.button_widget("Answer", icon="reply", button_style="primary")
        self.answer_button.on_click(lambda _b: self.send_answer(self.answer_box.value))
        self._answer_row = w.VBox([self.answer_box, self.answer_button], layout=shared.layout)
        turn = self._current()
        turn.box.children = (*turn.box.children, asked, self._answer_row)

    def send_answer(self, text: str) -> None:
        """Continue the run with the person's answer (the Answer button)."""
        if not text.strip():
            self.answer_box.placeholder = "Write an answer first."
            return
        self.agent.start_answer(text)
        said = self._shared.html_widget(f'<div class="jpo-note jpo-answer"><b>You answered:</b> '
                                        f"{escape(text)}</div>", full_width=True)  # fmt: skip
        turn = self._current()
        turn.box.children = tuple(said if c is self._answer_row else c for c in turn.box.children)
        self.children = tuple(c for c in self.children if c is not self.status)
        self.stop_button.disabled = False
        self.stop_button.button_style = "danger"
        self.stop_button.description, self.stop_button.icon = "Stop", "stop"
        self.state = "model replying"
        self._draw_heading()

    # -- what a saved notebook shows -----------------------------------------------------------
    @property
    def ended(self) -> bool:
        """Whether the run has ended (and waits for no answer): the view then changes no more."""
        return self.state.startswith("ended")

    def static_html(self) -> str:
        """The run as plain HTML (every model and file text escaped): the heading, the task,
        each turn's prose and cards as decided, and how it ended."""
        model = self.agent.model
        head = (f"<b>Agent</b> {escape(model_label(model.name, model.endpoint))} "
                f'<span class="jpo-muted">{self.turn} turn{"s" * (self.turn != 1)}, '
                f"{escape(', '.join(self.meter()))}, {escape(self.state)}</span>")  # fmt: skip
        parts = [f"<div>{head}</div>"]
        if self.task:
            parts.append(f'<div class="jpo-muted">Task: {escape(self.task)}</div>')
        for turn in self.turns:
            parts.append(f'<div class="jpo-card"><b>Turn {turn.number}</b>')
            if turn.prose_text.strip():
                parts.append(f'<pre style="white-space:pre-wrap">{escape(turn.prose_text)}</pre>')
            if isinstance(turn.run_view, RunWidget):
                # Under the turn's own heading: the cards without their title.
                parts.append(static_html({**turn.run_view.state(), "title": ""}, style=False))
            parts.append("</div>")
        if self.status.value:
            parts.append(self.status.value)
        return f'{STYLE}<div class="jpo-static">{"".join(parts)}</div>'

    def saved_metadata(self) -> dict[str, Any]:
        """Output metadata for the saved notebook: final once the run has ended, so the
        server's pre-save hook saves the static copy without the widget view."""
        return {SAVED_OUTPUT_KEY: {"final": self.ended}}

    def _ipython_display_(self) -> None:
        """Displayed with a display id whose saved copy follows the run (``SavedOutput``)."""
        self._saved.append(SavedOutput(self))

    def __repr__(self) -> str:
        model = self.agent.model
        return (f"Agent run: {model_label(model.name, model.endpoint)}, turn {self.turn}, "
                f"{self.state}")  # fmt: skip

    def _repr_keys(self) -> Any:
        return iter(())

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):  # saved notebooks and terminals get a short text
            bundle["text/plain"] = repr(self)
            bundle["text/html"] = self.static_html()
        return bundle
