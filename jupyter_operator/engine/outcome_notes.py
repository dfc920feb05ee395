"""An item's one result, with the notes a near miss earns, and its final status.

A command that worked but carried a field rule 11 forbids is told so (not silently obeyed); a
failed command whose value was wrapped in quotes is told the fix; a translated tool call the
person approved is told to send ``OPERATOR_CMD`` blocks.
"""

from __future__ import annotations

from ..protocol import Result
from . import foreign_calls
from .item_states import Status
from .items import Item

#: Fields rule 11 of the spec forbids (the workspace is selected by the person, not a command).
WORKSPACE_FIELDS = ("workspace", "workspaceRoot", "workspace_root")


def notes(item: Item, result: Result) -> str:
    """What is added to ``result``'s summary for ``item`` (often nothing)."""
    fields = getattr(item.command, "fields", None) or {}
    ignored = [name for name in WORKSPACE_FIELDS if name in fields]
    note = ""
    if ignored:  # rule 11: said, not silently dropped (the command is otherwise fine)
        note = (f" (note: the {ignored[0]} field was ignored: the workspace is chosen by "
                "the person, never in a command; leave it out)")  # fmt: skip
    quoted = [k for k, v in fields.items() if len(v) > 1 and v[0] == v[-1] and v[0] in "\"'"]
    if quoted and not result.ok:  # a near miss: the fix is to drop the quotes
        note += (f" (note: the {quoted[0]} value is wrapped in quotes; values are never "
                 f"quoted: write {quoted[0]}: {fields[quoted[0]][1:-1]})")  # fmt: skip
    if item.foreign is not None and result.ok:
        note += foreign_calls.note(item)
    return note


def finish(item: Item, result: Result, status: Status) -> Item:
    """Set ``item``'s result (with its notes), status, error code and summary."""
    note = notes(item, result)
    if note:
        result = Result(result.id, result.ok, result.summary + note, result.details,
                        result.code)  # fmt: skip
    item.result = result
    item.move_to(status)
    item.error_code = result.code
    if not result.ok or item.kind == "read":
        item.summary = result.summary
    return item
