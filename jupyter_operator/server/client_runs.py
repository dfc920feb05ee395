"""One REST session for the calls of one client: the runs of its calls, shown and decided as one.

An MCP client makes its calls one at a time, each planned as its own reply (``SessionService.scan``
on the call's rendered text, in its own engine session and dialect). The calls that wait for a
person join the client's session: a :class:`ClientRun` holds their runs (its *parts*) and offers
what the REST sessions use of a run (items, lookup, decisions, results, ``done``), routing each
decision to the part that holds the item. So the panel lists one session per client, each call's
item decided on its own, and every rule of a run (dependent changes, stale previews, the undo
journal) stays the part's own: a part is exactly the run of that call, as before.

A part's items keep their own ``index`` (its run uses it); the session shows them numbered in
the order they joined (:meth:`ClientRun.index_of`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..engine.decidable import DecidableRun
from ..engine.errors import UnknownItem

if TYPE_CHECKING:
    from ..engine import Item, Operator
    from ..engine.decisions import Decision
    from ..execution import Outcome

#: Calls one client session holds; the next waiting call starts a new session (saving a
#: session writes every part, so it must not grow without bound).
MAX_PARTS = 50


@dataclass
class Part:
    """One call: its run, the text it was planned from and its engine session."""

    run: DecidableRun
    text: str
    operator: Operator
    #: The session's index of the part's first item.
    offset: int


class ClientRun(DecidableRun):
    """The runs of one client's calls (see the module doc), in the order they joined."""

    #: Item views and edits follow each part's own dialect (:meth:`dialect_of`).
    dialect = "operator"
    #: Approve & Run reaches the part holding the item, which runs cells or drops it.
    runs_cells = True

    def __init__(self) -> None:
        self.parts: list[Part] = []
        self._lock = threading.RLock()
        self._subscribers: list[Callable[[Item], None]] = []

    def __repr__(self) -> str:
        return f"<ClientRun parts={len(self.parts)} pending={len(self.pending)}>"

    def add(self, run: DecidableRun, text: str, operator: Operator) -> None:
        """One more call's run (its item ids must be new to this session: ValueError)."""
        with self._lock:
            ids = {item.id for item in self.items}
            if any(item.id in ids for item in run.items):
                raise ValueError("an item id of this call is already in the session")
            offset = sum(len(part.run.items) for part in self.parts)
            self.parts.append(Part(run, text, operator, offset))
            for callback in self._subscribers:
                run.subscribe(callback)

    @property
    def operators(self) -> list[Operator]:
        """Every part's engine session (closed with the session)."""
        return [part.operator for part in self.parts]

    # -- what fronts read --------------------------------------------------------------------

    @property  # type: ignore[override]  # every part's, not a stored list
    def items(self) -> list[Item]:
        """Every part's items, in the order the calls joined."""
        return [item for part in self.parts for item in part.run.items]

    @property
    def pending(self) -> list[Item]:
        """Items that wait for a decision now."""
        return [item for item in self.items if item.needs_approval]

    @property
    def done(self) -> bool:
        """True when nothing in any part waits."""
        return all(part.run.done for part in self.parts)

    @property
    def results_text(self) -> str:
        """Each part's results, in order (one ``OPERATOR_RESULT`` block or events per call)."""
        texts = [part.run.results_text for part in self.parts]
        return "\n".join(text for text in texts if text)

    @property  # type: ignore[override]
    def unread_markers(self) -> int:
        return sum(part.run.unread_markers for part in self.parts)

    @property  # type: ignore[override]
    def skipped_duplicates(self) -> tuple[str, ...]:
        return tuple(s for part in self.parts for s in part.run.skipped_duplicates)

    def part_of(self, id: str) -> Any:
        """The run holding the decidable item ``id``; ``UnknownItem`` if none does."""
        for part in self.parts:
            if any(item.id == id and item.kind != "error" for item in part.run.items):
                return part.run
        raise UnknownItem(id)

    def item(self, id: str) -> Item:
        """The decidable item with this id; ``UnknownItem`` if there is none."""
        return self.part_of(id).item(id)  # type: ignore[no-any-return]

    def index_of(self, item: Item) -> int:
        """The item's place in the session (its part's offset plus its index in the part)."""
        for part in self.parts:
            if any(other is item for other in part.run.items):
                return part.offset + item.index
        return item.index

    def dialect_of(self, id: str) -> str:
        """The dialect of the part holding item ``id`` (``operator`` for an unknown one)."""
        try:
            return str(getattr(self.part_of(id), "dialect", "operator"))
        except UnknownItem:
            return "operator"

    def subscribe(self, callback: Callable[[Item], None]) -> None:
        """Call ``callback(item)`` after an item of any part changes."""
        with self._lock:
            self._subscribers.append(callback)
            for part in self.parts:
                part.run.subscribe(callback)

    # -- decisions, each the part's own ------------------------------------------------------

    def _holder(self, id: str) -> DecidableRun:
        """The part holding item ``id`` decides it (``DecidableRun``'s template, in the part's
        own dialect); ``UnknownItem`` if no part holds it."""
        return self.part_of(id)  # type: ignore[no-any-return]

    def approve_all(self, *, unattended: bool = False) -> list[Decision]:
        """Approve everything pending, part by part: each part's run decides by its own
        dialect's template (``DecidableRun.approve_all``, ``unattended`` included)."""
        return [made for part in self.parts
                for made in part.run.approve_all(unattended=unattended)]  # fmt: skip

    def reject_all(self, reason: str | None = None) -> list[Decision]:
        """Reject everything pending, part by part."""
        return [made for part in self.parts for made in part.run.reject_all(reason)]

    def finish_execution(self, id: str, outcome: Outcome) -> Decision:
        """A cell run's outcome, for the part that runs it."""
        run = self.part_of(id)
        if not hasattr(run, "finish_execution"):
            from ..engine.decisions import Decision

            return Decision.already(self.item(id))
        return run.finish_execution(id, outcome)  # type: ignore[no-any-return]

    def finish_live(self, id: str, answer: dict[str, Any]) -> Decision:
        """An open page's answer to an approved notebook change, for its part."""
        run = self.part_of(id)
        if not hasattr(run, "finish_live"):
            from ..engine.decisions import Decision

            return Decision.already(self.item(id))
        return run.finish_live(id, answer)  # type: ignore[no-any-return]


def dump_parts(run: ClientRun, **extra: Any) -> bytes:
    """The saved form of a client's session: each call's run as ``persist.dump_run`` saves it.

    Calls of the JSON dialect (``shell``) are kept in memory only, as their sessions always
    are (``saved_sessions.save_session``): after a restart they are gone.
    """
    import json

    from ..engine.persist import FORMAT, dump_run

    parts = [dump_run(part.run, part.text) for part in run.parts
             if part.run.dialect == "operator"]  # fmt: skip
    body = {"format": FORMAT, "text": "", "items": [], **extra}
    head = json.dumps(body, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    # Each part is already JSON text: joined as it is, not parsed and written again.
    return head[:-1] + b',"parts":[' + b",".join(parts) + b"]}"


def load_parts(new_operator: Callable[[], Operator], saved: Any) -> ClientRun:
    """A client's session rebuilt from :func:`dump_parts`' ``parts`` (each in a new engine
    session); ``PersistError`` when anything does not check out (nothing is left open)."""
    from ..engine.persist import PersistError, load_run

    if not isinstance(saved, list) or not saved or len(saved) > MAX_PARTS:
        raise PersistError("a client's session has no calls or too many")
    run = ClientRun()
    try:
        for data in saved:
            if not isinstance(data, dict) or not isinstance(data.get("text"), str) or (
                not isinstance(data.get("items"), list)
            ):
                raise PersistError("a call of a client's session is malformed")
            operator = new_operator()
            try:
                part = load_run(operator, data)
                run.add(part, data["text"], operator)
            except ValueError as exc:  # PersistError, or an id given twice
                operator.close()
                raise PersistError(str(exc)) from None
            except BaseException:
                operator.close()
                raise
    except BaseException:
        for operator in run.operators:
            operator.close()
        raise
    return run
