"""A script of string commands as a run: what the server and the JupyterLab panel show.

``run_commands(operator, text)`` runs the script in a fresh :class:`CommandSession` and returns a
:class:`CommandRun`, which offers what fronts use on ``Run`` (``items``, ``pending``, ``done``,
``results_text``, and the decisions of every run, ``DecidableRun``'s), so the REST API and the
panel need no other branch:

- one item per request of the script, in order (``index`` is the request's position);
- a change or a bash line waiting for a decision is the engine's own item (a diff, or the
  command and its folder) under the request id;
- an answered request is a ``read`` item whose ``details`` hold its whole response
  (``re: [id] /cmd`` first), ``failed`` with the response code for an error; a command written
  the wrong way (``USAGE``, ``UNKNOWN_COMMAND``) is an ``error`` item, ``Invalid`` as an
  ``OPERATOR_CMD`` block that fails validation;
- a request queued behind a pending decision is ``waiting`` (its summary shows its line);
- ``results_text`` is every response so far, as the model reads them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from ...dialects.commands import codes, responses
from ...protocol import Result
from ..decidable import DecidableRun
from ..errors import UnknownItem
from ..items import Item
from .command_session import CommandSession
from .replies import Batch, Reply

if TYPE_CHECKING:
    from ..operator import Operator

#: Response codes of a command that is not well formed (its other errors happen when it runs).
_INVALID = frozenset({codes.USAGE, codes.UNKNOWN_COMMAND})


def _echo(reply_or_request: object) -> str:
    request = getattr(reply_or_request, "request", reply_or_request)
    return "bash" if request.name == "bash" else f"/{request.name}"  # type: ignore[attr-defined]


def _view(index: int, reply: Reply) -> Item:
    """The item a front shows for one answered (or pending) request."""
    if reply.run is not None:  # a change or a bash line: the engine's item, as decided
        item = reply.run.items[0]
        item.index = index
        if reply.status != "pending" and item.status in ("applied", "done"):
            item.result = Result(item.id, True, reply.system, reply.text)
        return item
    action = _echo(reply)
    if reply.status == "error":
        # A command written the wrong way is invalid, like a block that fails validation; a
        # valid one that could not be carried out failed (the same badges in every dialect).
        invalid = reply.code in _INVALID
        item = Item(index, reply.request_id, action, None, reply.request.line,
                    "error" if invalid else "read", "error" if invalid else "failed",
                    reply.body, error_code=reply.code)  # fmt: skip
        item.result = Result(reply.request_id, False, reply.body, reply.text)
        return item
    item = Item(index, reply.request_id, action, reply.document_path, reply.request.line, "read",
                "done", reply.system)  # fmt: skip
    item.result = Result(reply.request_id, True, reply.system, reply.text)
    return item


class CommandRun(DecidableRun[Item]):
    """The replies of one script as run items; decisions go to the batch (in order)."""

    dialect = "commands"

    def __init__(self, session: CommandSession, batch: Batch) -> None:
        self.session = session
        self.batch = batch
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        return f"<CommandRun replies={len(self.batch.replies)} queued={len(self.batch.queued)}>"

    def subscribe(self, callback: Callable[[Item], None]) -> None:
        """Call ``callback(item)`` after the script's replies change (a decision, the commands
        that ran after it), for each item whose status changed, else for the last item: every
        subscriber of every run is handed an item."""
        seen = {item.id: item.status for item in self.items}

        def changed(_batch: Batch) -> None:
            nonlocal seen
            items = self.items
            moved = [item for item in items if seen.get(item.id) != item.status]
            seen = {item.id: item.status for item in items}
            for item in moved or items[-1:]:
                callback(item)

        self.batch.subscribe(changed)

    @property  # type: ignore[override]  # computed from the batch, not stored
    def items(self) -> list[Item]:
        """Every request of the script, answered or not, in order."""
        items = [_view(index, reply) for index, reply in enumerate(self.batch.replies)]
        pending = self.batch.pending
        after = f"runs after {pending.request_id} is decided" if pending else "waiting"
        for offset, request in enumerate(self.batch.queued, 1):
            waits = f"{after}: {responses.one_line(request.echo)}"
            # The id it will be answered under: only this run uses its session, and every
            # answer takes the next number of the session's counter.
            rid = request.request_id or f"{self.session.count + offset:03d}{self.session.tag}"
            items.append(Item(len(items), rid, _echo(request), None, request.line, "read",
                              "waiting", waits))  # fmt: skip
        return items

    @property
    def pending(self) -> list[Item]:
        """The one item waiting for a decision (the script pauses there), if any."""
        reply = self.batch.pending
        return [reply.run.items[0]] if reply is not None and reply.run is not None else []

    @property
    def done(self) -> bool:
        return self.batch.done

    @property
    def results_text(self) -> str:
        """Every response so far (``re: [id] /cmd`` and its body), one blank line apart."""
        return self.batch.text

    def item(self, id: str) -> Item:
        for item in self.items:
            if item.id == id and item.status != "waiting":
                return item
        raise UnknownItem(id)

    # -- the hooks of the decision template (``DecidableRun._decide``) ------------------------
    #: Approving all approves what waits now, and only that: a change or bash line that comes
    #: up later in the script was never shown to the person, so it waits for its own decision.
    #: Rejecting all goes on to every change or bash line the script comes to after it.
    reject_all_goes_on = True

    def _holder(self, id: str) -> DecidableRun:
        """The pending change's (or bash line's) own run decides it; the script then goes on
        (the session follows that run's decisions). Any other item was decided before."""
        item = self.item(id)
        reply = self.batch.pending
        if reply is not None and reply.run is not None and reply.run.items[0] is item:
            return reply.run
        return self


def run_commands(operator: Operator, text: str, session: CommandSession | None = None,
                 **options: object) -> CommandRun:  # fmt: skip
    """Run a script of string commands in ``session`` (one that lives on, such as a notebook's)
    or in a fresh session (``options`` go to it). ``session`` must work on ``operator``."""
    if session is None:
        session = CommandSession(operator, **options)  # type: ignore[arg-type]
    elif session.operator is not operator:
        raise ValueError("the command session works on another operator")
    return CommandRun(session, session.execute(text))
