"""The planned items of a run: what every front shows and decides on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ..protocol import Result
from .errors import IllegalTransition
from .item_states import Lifecycle, Status
from .proposals import Change, Proposal, proposed_text
from .rules import rule_note

Kind = Literal["read", "mutation", "run", "error"]
DecidedBy = Literal["person", "rule"]


@dataclass(frozen=True)
class Foreign:
    """A tool call the model wrote in its own format (``protocol.leaks``): its family, the
    tool's name, and the ``OPERATOR_CMD`` block it was translated to (None: intent unclear)."""

    id: str  # tool-call-N: the item's id, and the block's
    family: str  # a key of protocol.leaks.FAMILY_NAMES
    name: str
    block: str | None

    @property
    def family_name(self) -> str:
        """What people read: ``Hermes/Qwen <tool_call> JSON``."""
        from ..protocol.leaks import FAMILY_NAMES

        return FAMILY_NAMES.get(self.family, self.family)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "family": self.family, "family_name": self.family_name,
                "name": self.name, "block": self.block}  # fmt: skip


@dataclass
class Item(Lifecycle):
    """One entry of a run, in block order: a read, a mutation, or a scan error.

    Every item ends up with exactly one ``Result`` for the model (a pending mutation has none yet).
    Its status changes only through ``move_to`` (``item_states``).
    """

    index: int
    id: str
    action: str | None
    path: str | None
    line: int
    kind: Kind
    status: Status
    summary: str
    result: Result | None = None
    error_code: str | None = None
    proposal: Proposal | None = field(default=None, repr=False)
    # The earlier pending change this item depends on: a change previewed on top of it, or a
    # read (status "waiting") that runs once it is decided.
    builds_on: str | None = None
    command: Any = field(default=None, repr=False)  # protocol.Command, None for scan errors
    # Who decided the item (a person's click or call, or a policy rule) and the rule's text:
    # ``rule 2: auto fs.write notes/**`` or ``default: auto reads`` (``engine.rules``). While an
    # item waits, ``rule`` says why it asks (``default: ask``); a person's decision clears it.
    decided_by: DecidedBy | None = None
    rule: str | None = None
    entry_id: str | None = None  # the history entry an applied mutation made (undo/redo it)
    #: True once the person approved their own edit of the new content (``proposal`` is then
    #: what was written; the result's details hold the diff from the model's proposal).
    edited: bool = False
    #: The model's proposal, kept when the person approved an edit of it (``proposal`` is then
    #: the edit): the result tells the model what changed from it.
    proposed: Proposal | None = field(default=None, repr=False)
    #: A cell run (``engine.executions.Execution``): the run item's plan, or the run an
    #: Approve & Run started after a change; its ``outcome`` once the kernel answered.
    execution: Any = field(default=None, repr=False)
    #: Set when the item is a translation of a call in the model's own tool-call format: it
    #: is never decided by a rule, and its result tells the model to send OPERATOR_CMD blocks.
    foreign: Foreign | None = None
    #: The rule that refuses running the cells of the notebook a cell change rewrites: its
    #: card offers no Approve & Run (and the engine refuses the run if asked anyway).
    runs_refused: str | None = None
    #: A notebook change routed to the page that holds the notebook open (``live_route``):
    #: ``route``, ``state`` (waiting, applied, stale, silent), ``notebook`` and the cell edits.
    live: dict[str, Any] | None = None

    #: Set with the status (``item_states.Lifecycle``), never by the constructor.
    needs_approval: bool = field(init=False, repr=False, compare=False)

    @property
    def change(self) -> Change | None:
        return self.proposal.change if self.proposal else None

    @property
    def diff(self) -> str | None:
        return self.proposal.diff if self.proposal else None

    @property
    def added(self) -> int:
        return self.proposal.added if self.proposal else 0

    @property
    def removed(self) -> int:
        return self.proposal.removed if self.proposal else 0

    @property
    def sha256_before(self) -> str | None:
        return self.proposal.snapshot.sha256 if self.proposal else None

    @property
    def ok(self) -> bool | None:
        return self.result.ok if self.result else None

    @property
    def details(self) -> str | None:
        return self.result.details if self.result else None

    def proposed_text(self) -> str | None:
        """The new content a person may edit (the model's proposal while pending), or None.

        None for reads, errors, deletes and content that is not UTF-8 text.
        """
        return proposed_text(self.proposal) if self.kind == "mutation" else None

    @property
    def editable(self) -> bool:
        """True while a person may edit the new content before approving it."""
        proposal = self.proposal
        if self.kind != "mutation" or not self.needs_approval or proposal is None:
            return False
        data = proposal.new_bytes
        # Asked for every view of the item: ASCII is known without decoding a copy of the content.
        return data is not None and (data.isascii() or proposed_text(proposal) is not None)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view for the server and the JupyterLab panel."""
        return {
            "index": self.index,
            "id": self.id,
            "action": self.action,
            "path": self.path,
            "line": self.line,
            "kind": self.kind,
            "status": self.status,
            "needs_approval": self.needs_approval,
            "summary": self.summary,
            "change": self.change,
            "diff": self.diff,
            "cells": self.proposal.cells if self.proposal else None,
            "added": self.added,
            "removed": self.removed,
            "sha256_before": self.sha256_before,
            "ok": self.ok,
            "details": self.details,
            "error_code": self.error_code,
            "builds_on": self.builds_on,
            "decided_by": self.decided_by,
            "rule": self.rule,
            "rule_note": rule_note(self.decided_by, self.rule, self.status),
            "entry_id": self.entry_id,
            "edited": self.edited,
            "editable": self.editable,
            "execution": self.execution.to_dict() if self.execution is not None else None,
            "can_run": self.can_run,
            "foreign": self.foreign.to_dict() if self.foreign is not None else None,
            "live": self.live,
            "plan": self.plan,
        }

    @property
    def plan(self) -> dict[str, Any] | None:
        """While a notebook's modification waits for a decision: its cell edits (``ops``) and
        the source sha256 of each cell they rewrite or delete (``guards``), planned on what
        the page holding the notebook shows. That page applies them at the click on Approve,
        before the engine's answer (``labextension/src/livecells.ts``); the engine sends the
        same edits when it routes the change to the page, and the page keeps its change only
        when they match and the engine confirms."""
        if self.kind != "mutation" or not self.needs_approval or self.proposal is None:
            return None
        edits = self.proposal.edits
        return {"ops": edits["ops"], "guards": edits["guards"]} if edits else None

    @property
    def can_run(self) -> bool:
        """True for a pending insert or replace of a cell: its card offers Approve & Run."""
        return (self.needs_approval and self.action in ("nb.insertCell", "nb.replaceCell")
                and self.runs_refused is None)


class _FirstStatus:
    """``Item.status``: the constructor sets the first one; after that only ``move_to`` changes
    it. Only assignment goes through here (it has no ``__get__``): reading an item's status, or
    setting any other attribute, is a plain attribute access."""

    def __set__(self, item: Item, status: Status) -> None:
        if "status" in item.__dict__:
            raise IllegalTransition(item.status, status, "an item's status changes only through "
                                    f"Item.move_to ({item.status!r} to {status!r})")
        item.__dict__.update(status=status, needs_approval=status == "pending")


Item.status = _FirstStatus()  # type: ignore[assignment]  # after @dataclass read the fields
