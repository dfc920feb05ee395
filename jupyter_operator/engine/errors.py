"""Typed errors for programming mistakes made while deciding items (not command faults).

A command fault is an ``ok: false`` result for the model; these are errors of the caller (a
front, a notebook cell): deciding an id that is not in the run, or approving a change before
the change it builds on. Each carries a stable ``code`` and the HTTP status a server answers
with (``status_hint``), so every front maps them once instead of reading messages.
"""

from __future__ import annotations


class EngineError(Exception):
    """Base of the engine's typed errors.

    Attributes
    ----------
    code
        A stable snake_case name (``item_not_found``, ``decide_first``).
    status_hint
        The HTTP status a server should answer with.
    message
        One plain sentence; it names ids only, never paths.
    """

    code = "engine_error"
    status_hint = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message

    def _render_traceback_(self) -> list[str]:
        # IPython shows this instead of a traceback: one line, no frames, no host paths.
        return [f"{type(self).__name__}: {self.message}"]


class UnknownItem(EngineError, KeyError):
    """No decidable item with this id in the run (a ``KeyError`` too)."""

    code = "item_not_found"
    status_hint = 404

    def __init__(self, id: str) -> None:
        super().__init__(f"no item with id {id!r} in this run")
        self.id = id

    def __str__(self) -> str:  # KeyError would quote the message again
        return self.message


class DecideFirst(EngineError, ValueError):
    """A change previewed on top of an undecided one was approved first (a ``ValueError`` too).

    ``base`` is the id of the change to decide first.
    """

    code = "decide_first"
    status_hint = 409

    def __init__(self, id: str, base: str) -> None:
        super().__init__(f"{id} builds on {base}: decide {base} first")
        self.id = id
        self.base = base


class BadEdit(EngineError, ValueError):
    """A person's edited content that cannot be approved (a ``ValueError`` too).

    The item stays pending and nothing is written. ``reason`` is ``not_editable`` (a delete, a
    read, a decided item), ``edit_unchanged`` (the edit is the file as it is now), or the
    ``ERR_*`` code the content failed with (``ERR_RESULT_TOO_LARGE``, ``ERR_INVALID_NOTEBOOK``).
    """

    code = "bad_edit"
    status_hint = 400

    def __init__(self, id: str, reason: str, message: str) -> None:
        super().__init__(message)
        self.id = id
        self.reason = reason


class IllegalTransition(EngineError):
    """An item's status changed in a way ``item_states.TRANSITIONS`` does not allow.

    A mistake of the engine or of a front, never of the model: ``old`` and ``new`` name the
    statuses. Raised too when ``item.status`` is assigned instead of ``Item.move_to`` used
    (``new`` is then the assigned value).
    """

    code = "illegal_transition"
    status_hint = 409

    def __init__(self, old: str, new: str, message: str | None = None) -> None:
        super().__init__(message or f"an item cannot move from {old!r} to {new!r}")
        self.old = old
        self.new = new


__all__ = ["BadEdit", "DecideFirst", "EngineError", "IllegalTransition", "UnknownItem"]
