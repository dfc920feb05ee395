"""Replies to string commands, and batches of them (one script, one cell).

A reply is final at once for reads and for errors. A change (``/write``, ``/append``,
``/edit`` with a body) carries the engine ``Run`` of its proposal and stays ``pending`` until
it is decided; the commands after it in the same batch wait, so a script runs in order.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from ...dialects.commands import responses
from ...dialects.commands.parse import Request
from ..reads import OutputBudget

if TYPE_CHECKING:
    from ..operator import Run

log = logging.getLogger(__name__)

Status = Literal["done", "error", "pending"]


@dataclass
class Reply:
    """The answer to one request.

    ``text`` is the whole response (``re: [id] /cmd`` line first). ``document`` and
    ``document_path`` hold the text a front may render (as HTML in a notebook).
    """

    request_id: str
    request: Request
    status: Status
    body: str
    code: str | None = None
    run: Run | None = field(default=None, repr=False)
    document: str | None = field(default=None, repr=False)
    document_path: str | None = None
    applied_body: str | None = field(default=None, repr=False)  # the body once applied

    @property
    def text(self) -> str:
        return responses.response(self.request_id, self.request.echo, self.body)

    @property
    def ok(self) -> bool:
        return self.status != "error"

    @property
    def system(self) -> str:
        """The system message (the first line of the body)."""
        return self.body.split("\n", 1)[0]

    @property
    def content(self) -> str | None:
        """What follows ``---``, or None for a confirmation or an error."""
        _head, sep, rest = self.body.partition(f"\n{responses.SEPARATOR}\n")
        return rest if sep else None

    def __str__(self) -> str:
        return self.text


class Batch:
    """The replies of one script, in order; requests after a pending change wait for it."""

    def __init__(self, requests: list[Request]) -> None:
        self.replies: list[Reply] = []
        self.queued: list[Request] = list(requests)
        self._subscribers: list[Callable[[Batch], None]] = []
        self.advancing = False  # the session is running its queued requests
        # The reads of one script share the output budget every dialect has (reads.py).
        self.budget = OutputBudget()

    def __repr__(self) -> str:
        return f"<Batch replies={len(self.replies)} queued={len(self.queued)}>"

    @property
    def pending(self) -> Reply | None:
        """The change waiting for a decision, if any."""
        for reply in self.replies:
            if reply.status == "pending":
                return reply
        return None

    @property
    def done(self) -> bool:
        return not self.queued and self.pending is None

    @property
    def text(self) -> str:
        """Every response so far, separated by one blank line."""
        return "\n\n".join(reply.text for reply in self.replies)

    def subscribe(self, callback: Callable[[Batch], None]) -> None:
        """Call ``callback(batch)`` after replies change (a decision, later commands)."""
        self._subscribers.append(callback)

    def approve(self) -> Reply:
        """Approve the pending change (ValueError when none waits)."""
        return self._decide(True, None)

    def reject(self, reason: str | None = None) -> Reply:
        """Reject the pending change; ``reason`` is passed on in the response."""
        return self._decide(False, reason)

    def _decide(self, approve: bool, reason: str | None) -> Reply:
        reply = self.pending
        if reply is None or reply.run is None:
            raise ValueError("no change is waiting for a decision")
        item = reply.run.items[0]
        if approve:
            reply.run.approve(item.id)
        else:
            reply.run.reject(item.id, reason)
        return reply

    def notify(self) -> None:
        for callback in list(self._subscribers):
            try:
                callback(self)
            except Exception:  # a broken display must not stop the session
                log.exception("batch subscriber failed")

