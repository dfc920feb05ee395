"""The history of applied changes (``%operator history``): the panel's History section,
drawn by the same anywidget module as the run cards (``view: "history"``).

Like the run widget it never touches files: ``undo(entry_id)`` and ``redo(entry_id)`` are
callables given by the kernel, which go through the engine and return a line to show; a
refusal (``OperatorError``) is shown with its reason, which names the entry to undo first when
a later change to the same file is in the way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import anywidget
import traitlets

from . import module
from .render import visible
from .run_state import describe_error

#: Entries sent to the view, newest last (older ones stay in the text and the CLI).
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


def entry_view(entry: Any) -> dict[str, Any]:
    """An entry as the panel's history gets it from the server (``IHistoryEntry``)."""
    view = dict(entry.to_dict()) if hasattr(entry, "to_dict") else {}
    view.update(entry_id=str(entry.entry_id), time=entry.time, action=str(entry.action),
                path=entry.path, command_id=str(entry.command_id),
                undone=entry_state(entry) == "undone", diff=entry_diff(entry))  # fmt: skip
    view.setdefault("decided_by", getattr(entry, "decided_by", None))
    view.setdefault("rule", getattr(entry, "rule", None))
    return view


class HistoryWidget(module.DeclaredTraits, anywidget.AnyWidget):
    """The entries ``load()`` returns, each with its diff, Undo and Redo."""

    _esm = traitlets.Unicode(module.loader()).tag(sync=True)
    _css = traitlets.Unicode(module.stylesheet()).tag(sync=True)
    _anywidget_id = traitlets.Unicode("jupyter_operator.widgets.HistoryWidget").tag(sync=True)
    view = traitlets.Unicode("history").tag(sync=True)
    #: ``{"history": [IHistoryEntry...], "executions": [...], "message": str}``.
    history = traitlets.Dict().tag(sync=True)

    def __init__(
        self,
        load: Callable[[], list[Any]],
        *,
        undo: Callable[[str | None], str],
        redo: Callable[[str | None], str] | None = None,
        executions: Callable[[], list[dict[str, Any]]] | None = None,
    ) -> None:
        self._load, self._undo, self._redo = load, undo, redo
        self._executions = executions
        self.entries: list[Any] = []
        self.message = ""
        super().__init__(layout=module.shared_layout())
        self.refresh()
        self.on_msg(self._on_message)

    def refresh(self) -> None:
        """Read the history again and send it to the view."""
        self.entries = list(self._load())
        runs = self._executions() if self._executions else []
        self.history = {"history": [entry_view(e) for e in self.entries[-MAX_ENTRIES:]],
                        "executions": runs, "message": self.message}  # fmt: skip

    def act(self, entry_id: str | None, *, redo: bool) -> str:
        """Undo (or redo) one entry and say what happened; a refusal says its reason."""
        action = self._redo if redo else self._undo
        verb = "redo" if redo else "undo"
        if action is None:
            line = f"Cannot {verb}: not available here"
        else:
            try:
                line = action(entry_id)
            except Exception as exc:  # one line for the person, never a traceback
                reason = getattr(exc, "message", None) or describe_error(exc)
                line = f"Cannot {verb} {entry_id or 'the latest change'}: {reason}"
        self.message = line
        self.refresh()
        return line

    def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        content = module.numbered_request(self, content)
        if content is None:
            return
        kind, entry = content.get("kind"), content.get("entry_id")
        reply: dict[str, Any] = {}
        if kind in ("undo", "redo"):
            line = self.act(entry if isinstance(entry, str) else None, redo=kind == "redo")
            reply["error" if line.startswith("Cannot") else "note"] = line
        else:
            self.refresh()
        reply.update(history=self.history["history"], executions=self.history["executions"])
        self.send({"kind": "reply", "request": content["request"], **reply})

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        if isinstance(data, dict):
            data["text/plain"] = history_text(self.entries)
        return bundle

    def __repr__(self) -> str:
        return f"HistoryWidget({len(self.entries)} entries)"

    def _repr_keys(self) -> Any:
        return iter(())
