"""What the REST API shows of a session: the session record, its items, a decision's answer.

A decision's answer carries the decided items and only the other items it changed, without the
large fields (``diff``, ``cells``) the client already has (see :func:`decision_view`).
"""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..engine.edited_proposals import EDITABLE_DIALECTS
from ..engine.reads import shown_details
from ..protocol import Result, codes
from .errors import ApiError

if TYPE_CHECKING:
    from ..engine import DecidableRun, Item, Operator
    from ..workspace import HistoryEntry

DECISIONS = ("approve", "reject")
#: Item statuses of something not over yet (``DecidableRun.done``).
WAITING = ("pending", "waiting", "running")


def run_dialect(run: Any, item_id: str | None = None) -> str:
    """The dialect of ``run`` (of the part holding ``item_id``, in a client's session)."""
    if item_id is not None and hasattr(run, "dialect_of"):
        return str(run.dialect_of(item_id))
    return str(run.dialect)


def shown_index(item: Item, run: Any) -> int:
    """The item's index as the session shows it (a client's session numbers its calls' items
    in the order they joined; ``ClientRun.index_of``)."""
    return int(run.index_of(item)) if hasattr(run, "index_of") else item.index


def item_view(item: Item, run: Any, *, whole_details: bool = False) -> dict[str, Any]:
    """``Item.to_dict()``, with ``editable`` false where the run takes no edited content.

    A read's content goes out once, in ``results_text``: the item carries the first lines
    its card shows (``details_more`` says how much is left out; ``whole_details`` keeps them
    all, for a caller that answers with the item itself), and a JSON read's response event
    leaves out the ``content`` the details already hold.
    """
    view = item.to_dict()
    view["index"] = shown_index(item, run)
    if run_dialect(run, item.id) not in EDITABLE_DIALECTS:
        view["editable"] = False
    details = view.get("details")
    if details and not whole_details:
        view["details"], more = shown_details(details, view.get("action"))
        if more:
            view["details_more"] = more
    event = view.get("event")
    if isinstance(event, dict) and "content" in event:
        view["event"] = {key: value for key, value in event.items() if key != "content"}
    return view


@dataclass
class Session:
    """One scanned reply: the engine session, its run and when it was last used."""

    id: str
    workspace: str
    operator: Operator
    run: DecidableRun
    text: str = ""
    created: float = field(default_factory=time.time)
    folder: str | None = None  # subfolder of the workspace the paths are taken from
    #: History entry id -> the id of the item whose approval made it.
    entries: dict[str, str] = field(default_factory=dict)
    last_used: float = field(default=0.0)
    #: A turn of the agent loop: its engine session is the loop's (not closed here) and it is
    #: not saved (an agent run does not resume after a restart).
    adopted: bool = False
    #: Where the text came from, for people (an MCP client's ``name version``); None: a reply.
    label: str | None = None
    #: The client whose calls this session gathers (``SessionService.scan``'s ``group``).
    group: str | None = None

    def close(self) -> None:
        """Release the engine session (every call's, in a client's session)."""
        for operator in getattr(self.run, "operators", None) or [self.operator]:
            operator.close()

    def to_dict(self, *, whole_details: bool = False,
                only: Collection[str] | None = None) -> dict[str, Any]:  # fmt: skip
        """The session as the REST API shows it (``whole_details``: see :func:`item_view`;
        ``only``: just the items with these ids, and ``done`` says whether they are, for a
        caller that waits on one call of a client's session).

        With ``whole_details`` the items carry everything and ``results_text`` (the
        ``OPERATOR_RESULT`` blocks a model reads, a read's content again in base64) is None:
        a caller that answers with the items (the MCP server) would pay for encoding it.
        """
        run = self.run
        items = run.items if only is None else [i for i in run.items if i.id in only]
        done = run.done if only is None else not any(i.status in WAITING for i in items)
        return {
            "session": self.id,
            "workspace": self.workspace,
            "folder": self.folder,
            "created": self.created,
            "items": [item_view(item, run, whole_details=whole_details) for item in items],
            "results_text": None if whole_details else run.results_text,
            "truncated_chars": run.truncated_chars,
            "unread_markers": run.unread_markers,
            "skipped_duplicates": list(run.skipped_duplicates),
            "done": done,
            "dialect": run.dialect,
            "label": self.label,
        }


#: Item fields that can be large and that a decision seldom changes: left out of the items of
#: a decision's answer when the decision did not change them (the client keeps its copy).
KEPT_BY_CLIENT = ("diff", "cells")


def views(run: Any) -> dict[int, dict[str, Any]]:
    """Every item's view by index (to tell afterwards what a decision changed)."""
    return {shown_index(item, run): item_view(item, run) for item in run.items}


def _answer_view(view: dict[str, Any], before: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """``view`` without the large fields it had already before the decision."""
    old = before.get(view["index"])
    if old is None:
        return view
    return {key: value for key, value in view.items()
            if key not in KEPT_BY_CLIENT or value is None or value != old.get(key)}  # fmt: skip


def decided_view(item: Item, run: Any, before: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """The decided item as a decision's answer shows it (see :func:`_answer_view`)."""
    return _answer_view(item_view(item, run), before)


def decision_view(
    run: Any, before: dict[int, dict[str, Any]], decided: list[Any]
) -> dict[str, Any]:
    """What a decision answers besides the decided items: the run's other items it changed (one
    built on the decided change no longer waits for it, a string command's next request ran),
    the results text and whether everything is decided. Unchanged items are not sent again, nor
    an unchanged diff: the client has them, and a large diff would otherwise go out again with
    every decision."""
    done = {shown_index(made.item, run) for made in decided}
    changed = [_answer_view(view, before) for item in run.items
               if (index := shown_index(item, run)) not in done
               and (view := item_view(item, run)) != before.get(index)]  # fmt: skip
    return {"items": changed, "results_text": run.results_text, "done": run.done}


def clean_folder(folder: str | None) -> str | None:
    """A checked folder as shown to people: ``/`` separators, no empty or ``.`` parts."""
    if not folder:
        return None
    parts = [p for p in folder.replace("\\", "/").split("/") if p not in ("", ".")]
    return "/".join(parts) or None


def mark_settled(session: Session, entry: HistoryEntry) -> None:
    """Show an undone change as undone on its item (a redone one as applied again), and tell
    the model what is true now.

    Only a session restored from disk needs this: its items are not the ones the engine turns
    itself (``engine.history.settle``); an item already in the entry's state is left alone.
    """
    item_id = session.entries.get(entry.entry_id)
    item: Item | None = next((i for i in session.run.items if i.id == item_id
                              and i.kind == "mutation"), None)  # fmt: skip
    was, now = ("applied", "undone") if entry.undone else ("undone", "applied")
    if item is None or item.status != was:
        return
    from ..engine.history import UNDONE_MESSAGE

    item.move_to(now)
    if entry.undone:
        item.error_code = codes.ERR_UNDONE
        item.result = Result.failure(item.id, codes.ERR_UNDONE, UNDONE_MESSAGE)
    else:
        item.error_code = None
        item.result = Result(item.id, True, f"OK: the person applied this change to "
                                            f"{entry.path} again.")  # fmt: skip
    item.summary = item.result.summary


def check_decision(decision: str) -> None:
    """ApiError(400) unless ``decision`` is ``approve`` or ``reject``."""
    if decision not in DECISIONS:
        raise ApiError(400, "bad_request", "decision must be 'approve' or 'reject'")
