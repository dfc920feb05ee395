"""One widget per run: the notebook's approval cards, drawn by the panel's components.

The view is the lab extension's own card, diff, cell-diff and CodeMirror editor modules,
bundled as an anywidget module (``static/widget.js``, built from ``labextension/src/widget``,
sent to a page once: see ``module.py``): no lab extension is needed, so the cards work in
JupyterLab, Notebook 7, VS Code and Colab.
The kernel side only keeps state and calls the engine: the ``run`` trait is the run's items in
the shape the server sends the panel (``Item.to_dict()``), and the view's requests (decide,
decide all, the content to edit, history, undo) come as custom messages, each answered with a
``reply`` once the new state is set. A decision names the preview the person saw; when the
item changed since, nothing is decided and the reply says ``stale``.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import anywidget
import traitlets

from ..engine.edited_proposals import EDITABLE_DIALECTS
from ..engine.labels import NO_BLOCKS, cut_warning
from . import module
from .run_state import describe_error, run_summary, text_listing
from .static_view import static_html

if TYPE_CHECKING:
    from ..engine import DecidableRun, Item
    from ..engine.undo import Direction

RESULTS_TITLE = "OPERATOR_RESULT blocks for the model's next turn"
#: Per dialect: the title of the results box, the heading, what an empty run says.
DIALECT_WORDS = {
    "operator": (RESULTS_TITLE, "Operator", NO_BLOCKS),
    "json": ("Response events (JSON) for the model's next turn", "Operator (JSON operations)",
             "No JSON operations found."),
    "commands": ("Responses for the model's next turn", "Operator (string commands)",
                 "No string commands found."),
}
#: Output metadata read by the server's pre-save hook (jupyter_operator/server/savehook.py).
SAVED_OUTPUT_KEY = "jupyter_operator"

#: What the kernel offers the view beside the run: undo and redo of a history entry (the
#: entry's id, or None for the latest), each returning a line for the person, and the
#: history itself (``{"history": [...], "executions": [...]}``).
Undo = Callable[[str | None], str]
History = Callable[[], dict[str, Any]]


def engine_operator(run: Any) -> Any:
    """The engine session that planned ``run`` (``Run``, ``JsonRun``; a ``CommandRun``'s
    command session's), or None."""
    operator = getattr(run, "_operator", None)
    if operator is None:
        operator = getattr(getattr(run, "session", None), "operator", None)
    return operator


def history_step(operator: Any, direction: Direction, entry_id: str | None) -> str:
    """Undo (``direction="undo"``) or redo one entry of ``operator``'s workspace (the latest
    live one, or the one undone last, when ``entry_id`` is None) and say what was done; every
    front's Undo and Redo (a card, the history view, ``%operator undo``) comes here. The
    engine turns the change's card and its result to what is true now."""
    entry = operator.undo(entry_id) if direction == "undo" else operator.redo(entry_id)
    done = "Undone" if direction == "undo" else "Redone"
    return f"{done}: {entry.action} {entry.path} (entry {entry.entry_id})"


def workspace_history(
    operator: Any, after: Callable[[], None] | None = None
) -> tuple[Undo, Undo, History]:
    """Undo, redo and the history of ``operator``'s workspace, as a card offers them.

    They work after the run's engine session closed (an agent run closes its own when it
    ends): the engine opens the workspace again for the call. ``after`` is called once an
    entry was undone or redone (to redraw other history views).
    """

    def step(direction: Direction) -> Undo:
        def act(entry_id: str | None) -> str:
            line = history_step(operator, direction, entry_id)
            if after is not None:
                after()
            return line

        return act

    def history() -> dict[str, Any]:
        return {"history": [entry.to_dict() for entry in operator.history()],
                "executions": [r.to_dict() for r in operator.executions()]}  # fmt: skip

    return step("undo"), step("redo"), history


#: Lines of a result sent to the view (``DETAILS_SHOWN_LINES`` in carddetails.ts, which shows
#: as many): a read of a whole file would otherwise cross the comm on every update.
DETAILS_SHOWN_LINES = 200


def _cut_details(view: dict[str, Any]) -> None:
    details = view.get("details")
    if not details or view.get("action") == "nb.readCells":  # JSON the view parses whole
        return
    head = details.split("\n", DETAILS_SHOWN_LINES)
    if len(head) > DETAILS_SHOWN_LINES:
        # Characters, not lines, are counted: ``len`` costs nothing on a whole file.
        kept = len(details) - len(head[-1])
        view["details"] = details[:kept]
        view["details_more"] = len(details) - kept


def _json(state: dict[str, Any]) -> str:
    return json.dumps(state, separators=(",", ":"))


def preview_token(item: Item) -> str:
    """What identifies the preview a card shows: its diff and the file it was made from."""
    seen = f"{item.diff or ''}\0{item.sha256_before or ''}\0{item.builds_on or ''}"
    return hashlib.sha256(seen.encode("utf-8", "surrogatepass")).hexdigest()[:16]


class RunWidget(module.DeclaredTraits, anywidget.AnyWidget):
    """The cards of one run (any dialect with items: Operator blocks, JSON operations)."""

    _esm = traitlets.Unicode(module.loader()).tag(sync=True)
    _css = traitlets.Unicode(module.stylesheet()).tag(sync=True)
    _anywidget_id = traitlets.Unicode("jupyter_operator.widgets.RunWidget").tag(sync=True)
    #: The run as the view draws it (``IRunWidgetState`` in labextension/src/widget/messages.ts),
    #: as JSON text: encoded once here, where a dict trait would be walked for binary buffers
    #: and copied on every update.
    run_json = traitlets.Unicode("{}").tag(sync=True)

    def __init__(
        self,
        run: DecidableRun,
        *,
        title: str | None = None,
        dry_run: bool = False,
        note: str = "",
        undo: Undo | None = None,
        redo: Undo | None = None,
        history: History | None = None,
    ) -> None:
        """``undo``, ``redo`` and ``history`` default to those of the run's own workspace
        (:func:`workspace_history`) when none is given."""
        self._run = run
        self._words = DIALECT_WORDS.get(run.dialect,
                                        DIALECT_WORDS["operator"])  # fmt: skip
        self.title = title or self._words[1]
        #: A dry run's results are not real (every change was refused to preview it).
        self.dry_run = dry_run
        self._note = note
        self._session = uuid.uuid4().hex
        operator = engine_operator(run)
        if undo is None and redo is None and history is None and operator is not None:
            # By default a card undoes in the workspace its run changed.
            undo, redo, history = workspace_history(operator)
        self._undo, self._redo, self._history = undo, redo, history
        self._handling = False  # inside a request: one state update at its end
        self._state: dict[str, Any] = self.state()
        self._stale = False  # the run changed since ``_state`` was made
        super().__init__(run_json=_json(self._state), layout=module.shared_layout())
        self.on_msg(self._on_message)
        run.subscribe(self._changed)

    @property
    def engine_run(self) -> Any:
        """The engine's run this widget shows."""
        return self._run

    # -- state ---------------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """The ``run`` trait: the items as the server sends them, and the notes around them."""
        run = self._run
        dialect = run.dialect
        editable = self._editable
        items = []
        previews = {}
        for item in run.items:
            view = item.to_dict()
            _cut_details(view)
            if not editable:
                view["editable"] = False
            if not hasattr(run, "finish_execution"):
                view["can_run"] = False  # Approve & Run needs a run that carries out cells
            items.append(view)
            if item.needs_approval:
                previews[item.id] = preview_token(item)
        unread, truncated = run.unread_markers, run.truncated_chars
        return {
            "session": self._session,
            "workspace": "",
            "dialect": dialect,
            "title": self.title,
            "notes": self._notes(),
            "warning": cut_warning(truncated, unread) if unread else None,
            "dry_run": self.dry_run,
            "can_edit": editable and not self.dry_run,
            "results_title": self._words[0],
            "items": items,
            "previews": previews,
            # Shown once nothing waits (and it holds every read's text again): sent only then.
            "results_text": run.results_text if run.done else "",
            "done": run.done,
            "truncated_chars": truncated,
            "unread_markers": unread,
        }

    def _notes(self) -> list[str]:
        run = self._run
        notes = []
        unread = run.unread_markers
        if run.truncated_chars and not unread:
            notes.append(cut_warning(run.truncated_chars, 0))
        if self._note:
            notes.append(self._note)
        skipped = run.skipped_duplicates
        if skipped:
            notes.append(f"Already ran earlier in this session, skipped: {', '.join(skipped)}.")
        if self.dry_run and run.done and run.items:
            notes.append(
                "Dry run: nothing was written, and these results are not for the model. "
                "Run the reply without --dry-run to decide for real."
            )
        if not run.items and not skipped and not unread:
            notes.append(self._words[2])
        return notes

    @property
    def _editable(self) -> bool:
        """Whether this run's dialect takes the person's edited content."""
        return self._run.dialect in EDITABLE_DIALECTS

    @property
    def run(self) -> dict[str, Any]:
        """The state the view was last sent (``state()`` then)."""
        return self._state

    def sync(self) -> None:
        """Send the run's state to the view (after decisions made from Python, say)."""
        self._state, self._stale = self.state(), False
        self.run_json = _json(self._state)

    def _changed(self, _item: Item) -> None:
        self._stale = True
        if not self._handling:  # a decision from Python, a cell run ending in a thread
            self.sync()

    # -- requests of the view ------------------------------------------------------------------
    def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        content = module.numbered_request(self, content)
        if content is None:
            return
        self._handling = True
        try:
            reply = self.handle(content)
        except Exception as exc:  # a handler must not raise: the view waits for its reply
            reply = {"error": f"operator: {describe_error(exc)}"}
        finally:
            self._handling = False
        self.sync()
        self.send({"kind": "reply", "request": content["request"], **reply})

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        """Carry out one request of the view; the reply's fields (without its number)."""
        kind = request.get("kind")
        if kind == "decide":
            return self._decide(request)
        if kind == "decide_all":
            return self._decide_all(request)
        if kind == "content":
            return {"content": self._content(str(request.get("id")))}
        if kind == "history":
            return dict(self._history()) if self._history else {"history": [], "executions": []}
        if kind in ("undo", "redo"):
            act = self._undo if kind == "undo" else self._redo
            if act is None:
                return {"error": f"operator: {kind} is not available here"}
            entry = request.get("entry_id")
            return {"note": act(entry if isinstance(entry, str) else None)}
        return {"error": f"operator: unknown request {kind!r}"}

    def _decide(self, request: dict[str, Any]) -> dict[str, Any]:
        from ..engine import EngineError

        item_id = str(request.get("id"))
        item = self._run.item(item_id)
        if self.dry_run:
            return {"error": "operator: a dry run decides nothing"}
        if item.needs_approval and request.get("preview") != preview_token(item):
            return {"stale": True, "error": "operator: this preview changed since it was "
                    "shown; look at the new one before deciding."}  # fmt: skip
        reason = request.get("reason")
        if request.get("decision") == "reject":
            decision = self._run.reject(item_id, reason if isinstance(reason, str) else None)
        elif request.get("decision") == "approve":
            content = request.get("content")
            kwargs: dict[str, Any] = {}
            if isinstance(content, str):
                kwargs["content"] = content.encode("utf-8", "surrogatepass")
            if request.get("and_run") and hasattr(self._run, "finish_execution"):
                kwargs["and_run"] = True
            try:
                decision = self._run.approve(item_id, **kwargs)
            except EngineError as exc:  # BadEdit, DecideFirst: the item stays pending
                return {"error": f"operator: {exc.message}"}
        else:
            return {"error": "operator: a decision is approve or reject"}
        if decision.outcome == "already_decided":
            return {"note": f"operator: {decision.message}"}
        return {}

    def _decide_all(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.dry_run:
            return {"error": "operator: a dry run decides nothing"}
        reason = request.get("reason")
        if request.get("decision") == "approve":
            self._run.approve_all()
        else:
            self._run.reject_all(reason if isinstance(reason, str) else None)
        return {}

    def _content(self, item_id: str) -> dict[str, Any]:
        from ..engine.edited_proposals import original_text

        item = self._run.item(item_id)
        editable = item.editable and self._editable and not self.dry_run
        return {"id": item.id, "path": item.path, "editable": editable,
                "proposed": item.proposed_text(), "original": original_text(item)}  # fmt: skip

    # -- what a saved notebook and a terminal show --------------------------------------------
    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle  # anywidget: (data, meta)
        if isinstance(data, dict):
            # String commands are a conversation: its plain text is the responses themselves.
            commands = self._run.dialect == "commands"
            data["text/plain"] = self._run.results_text if commands else text_listing(self._run)
            # From the run as it is now: a saved output is refreshed from the engine's
            # notifications, before a request's state update reaches the ``run`` trait.
            data["text/html"] = static_html(self.state() if self._stale else self._state)
        return bundle

    def saved_metadata(self) -> dict[str, Any]:
        """Output metadata for the saved notebook (widgets/saved_output.py sends it): once
        nothing waits for a decision the static view is the whole truth, and the server's
        pre-save hook (server/savehook.py) saves the card without its widget view."""
        return {SAVED_OUTPUT_KEY: {"final": self._run.done}}

    def __repr__(self) -> str:
        return f"Operator run: {run_summary(self._run)}"

    def _repr_keys(self) -> Any:  # widget reprs would embed every item's content
        return iter(())
