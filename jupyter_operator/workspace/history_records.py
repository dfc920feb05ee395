"""History entries as stored in the undo journal, and the checks every stored line must pass.

The journal is untrusted input: a line is accepted only when every field has the expected type
and shape (ids, trash slots and digests match fixed patterns) and every marker names an entry
already seen. Anything else raises ``ValueError`` here, which the journal reports as
``ERR_JOURNAL_CORRUPT`` (see ``corrupt``).
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from jupyter_operator.protocol import OperatorError, codes

#: Entry ids as handed out by ``allocate_id``; anything else in the journal is refused.
ENTRY_ID = re.compile(r"j[1-9][0-9]{0,15}")
#: Trash slots: an entry id, or ``<id>-u<n>`` for the n-th undo of a created file.
SLOT = re.compile(r"j[1-9][0-9]{0,15}(-u[1-9][0-9]{0,8})?")
DIGEST = re.compile(r"[0-9a-f]{64}")
STORED = ("entry_id", "time", "command_id", "action", "path", "change", "before_sha256",
           "after_sha256", "session", "decided_by", "rule", "diff_sha256",
           "created_dirs", "route", "label")  # fmt: skip
#: The longest ``label`` (who proposed a change) kept in an entry.
MAX_LABEL = 120
#: At most this many folders above a path (a path has at most 4096 bytes).
MAX_CREATED_DIRS = 2048


def corrupt(why: str) -> OperatorError:
    """The error for a journal that does not check out (never names a host path)."""
    return OperatorError(
        codes.ERR_JOURNAL_CORRUPT,
        f"the undo journal of this workspace is damaged ({why}); nothing was changed.",
    )


@dataclass(frozen=True)
class HistoryEntry:
    """One applied change, enough to restore the bytes before it (undo) or after it (redo).

    ``undone`` is the current state; ``redone`` is true when the entry was undone and then
    applied again (and is live now). ``diff`` is the unified diff of the change (filled in by
    ``Journal.entries(diffs=True)``); ``decided_by`` is ``"person"`` or ``"rule"`` (``rule``
    then holds the policy text), ``session`` the engine session that applied it.
    """

    entry_id: str
    time: float
    command_id: str
    action: str
    path: str
    change: str  # create | modify | delete
    before_sha256: str | None  # None: the path did not exist (or was a directory, for deletes)
    after_sha256: str | None  # None: the path no longer exists
    undone: bool = False
    redone: bool = False
    session: str | None = None
    decided_by: str | None = None
    rule: str | None = None
    #: None: no diff kept; a created file's is then made again from its new bytes when shown
    #: (``Journal._derived_diff``)
    diff_sha256: str | None = None
    diff: str | None = field(default=None, compare=False)
    undo_count: int = 0  # how many times it was undone (names the trash slot of the next one)
    undone_at: float | None = None  # when it was last undone (redo picks the latest)
    partial: bool = False  # a delete that moved only part of its path (the trash has it all)
    #: How many folders above ``path`` the change created (the innermost ones): undoing it
    #: removes them again while they are empty. 0 in entries written before it was recorded.
    created_dirs: int = 0
    #: Where the change landed: ``disk`` (the file), ``page`` (the cells of the notebook
    #: open in a page, which the person then saves) or ``room`` (the cells of the notebook's
    #: collaborative room, which saves it).
    route: str = "disk"
    #: Who proposed the change, for people (an MCP client's ``name version``); None: a
    #: pasted reply or a person. Absent from entries written before it was recorded.
    label: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view."""
        return asdict(self)


#: Where a change can land (``HistoryEntry.route``).
ROUTES = ("disk", "page", "room")


def _text(value: Any, limit: int, optional: bool = False) -> bool:
    return (optional and value is None) or (isinstance(value, str) and len(value) <= limit)


def _digest(value: Any) -> bool:
    return value is None or (isinstance(value, str) and DIGEST.fullmatch(value) is not None)


def parse_entry(raw: Any) -> HistoryEntry:
    """Check one stored entry field by field; ValueError when anything is off."""
    if not isinstance(raw, dict) or set(raw) - {*STORED, "undone"}:
        raise ValueError("unexpected fields")
    if raw.get("undone", False) is not False:  # 0.1 stored the state in the entry itself
        raise ValueError("bad field")
    values = {key: raw.get(key) for key in STORED}
    values["created_dirs"] = raw.get("created_dirs", 0)
    values["route"] = raw.get("route", "disk")
    ok = (
        isinstance(values["entry_id"], str) and ENTRY_ID.fullmatch(values["entry_id"])
        and isinstance(values["time"], int | float) and math.isfinite(values["time"])
        and _text(values["command_id"], 200) and _text(values["action"], 64)
        and _text(values["path"], 4096) and values["change"] in ("create", "modify", "delete")
        and _digest(values["before_sha256"]) and _digest(values["after_sha256"])
        and _digest(values["diff_sha256"]) and _text(values["session"], 200, True)
        and values["decided_by"] in (None, "person", "rule") and _text(values["rule"], 500, True)
        and type(values["created_dirs"]) is int
        and 0 <= values["created_dirs"] <= MAX_CREATED_DIRS
        and values["route"] in ROUTES
        and _text(values["label"], MAX_LABEL, True)
    )  # fmt: skip
    if not ok:
        raise ValueError("bad field")
    return HistoryEntry(**values)


def apply_record(found: dict[str, HistoryEntry], record: Any) -> None:
    """Add one line of the journal to ``found`` (id -> entry); ValueError when it is not valid."""
    if not isinstance(record, dict) or len(record) not in (1, 2):
        raise ValueError("not a record")
    if "entry" in record:
        if len(record) != 1:
            raise ValueError("not a record")
        entry = parse_entry(record["entry"])
        if entry.entry_id in found:
            raise ValueError("duplicate id")
        found[entry.entry_id] = entry
        return
    for marker in ("undone", "redone", "void", "partial"):
        if marker in record:
            entry = found[record[marker]]  # KeyError: a marker for an unknown entry
            when = record.get("time")
            if not isinstance(when, int | float) or not math.isfinite(when):
                raise ValueError("bad time")
            if marker == "void":
                del found[entry.entry_id]
            elif marker == "partial":
                found[entry.entry_id] = replace(entry, partial=True)
            elif marker == "undone":
                found[entry.entry_id] = replace(
                    entry, undone=True, redone=False, partial=False,
                    undo_count=entry.undo_count + 1, undone_at=float(when),
                )  # fmt: skip
            else:
                found[entry.entry_id] = replace(entry, undone=False, redone=True)
            return
    raise ValueError("unknown record")
