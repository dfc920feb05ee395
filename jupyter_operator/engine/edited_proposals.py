"""Edit before approve: the person changes a proposal's new content, then approves that.

``Run.approve(id, content=...)`` calls :func:`plan_edited` to re-plan the item's proposal to
exactly the person's bytes on the *same* snapshot (so the stale guard still holds), with the same
size limit and, for notebooks, the same validity check as any planned change. A bad edit raises
:class:`~.errors.BadEdit` and leaves the item pending, so the person can fix it; the model never
hears about edits that were not written. Once written, :func:`edited_result` tells the model what
is true: ``ok: true``, a summary saying the person edited the change, and details holding a
unified diff from the model's proposal to what was written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..protocol import OperatorError, Result
from ..workspace import check_size, diff_with_stats, is_notebook, unified_diff, validate_notebook
from .errors import BadEdit
from .proposals import Proposal

if TYPE_CHECKING:
    from .items import Item

#: Words that end the summary of an edited change (``docs/protocol.md``, "Edited approvals").
#: The dialects whose approvals take the person's edited content (string commands do not: a
#: script's change is decided as the script wrote it).
EDITABLE_DIALECTS = ("operator", "json")

EDITED_NOTE = (
    "the person edited the change before approving it; details show what they changed "
    "from your proposal"
)


def editable(item: Item) -> bool:
    """True when a person may edit the item's new content before approving it."""
    return item.editable


def keep_line_endings(proposed: str, edited: str) -> str:
    """``edited`` with CRLF line ends when the proposal used CRLF throughout.

    Text editors in a browser (a textarea, CodeMirror) hand back ``\\n`` line ends whatever
    they were given; without this, editing one line of a CRLF file would rewrite every line.
    """
    if "\r" in edited or "\r\n" not in proposed:
        return edited
    if proposed.count("\n") != proposed.count("\r\n"):
        return edited  # mixed line ends: nothing to restore with confidence
    return edited.replace("\n", "\r\n")


def plan_edited(item: Item, content: bytes) -> Proposal:
    """The item's proposal re-planned to exactly ``content`` (same snapshot as the preview).

    Returns the item's own proposal when ``content`` is what the model proposed. Raises
    ``BadEdit`` (the item stays pending) for an item that cannot be edited, content over the
    size limit, an invalid notebook, or content equal to what the file has now.
    """
    if not isinstance(content, bytes):
        raise TypeError("content must be bytes")
    if not editable(item):
        raise BadEdit(item.id, "not_editable", f"{item.id} has no new content to edit.")
    proposal = item.proposal
    assert proposal is not None  # editable() checked it
    if content == proposal.new_bytes:
        return proposal
    snapshot = proposal.snapshot
    if snapshot.exists and content == snapshot.data:
        raise BadEdit(
            item.id, "edit_unchanged",
            f"the edited content of {item.id} is what the file has now; reject the change instead.",
        )  # fmt: skip
    try:
        check_size(len(content))
        if is_notebook(item.path or ""):
            validate_notebook(content)
    except OperatorError as exc:
        raise BadEdit(item.id, exc.code, exc.message) from None
    path = item.path or ""
    diff, added, removed = diff_with_stats(snapshot.data, content, path)
    change = proposal.change
    counts = f"+{added} -{removed} lines"
    summary = f"new file, {counts}" if change == "create" else counts
    return Proposal(
        content, snapshot, change, diff, added, removed, f"{summary} (edited)", diffed_as=path
    )


def edit_diff(proposed: bytes | None, written: bytes | None, path: str) -> str:
    """A unified diff from the model's proposal (``proposed/``) to what was written."""
    diff = unified_diff(proposed, written, path)
    lines = diff.split("\n", 2)
    if len(lines) == 3 and lines[0].startswith("--- a/") and lines[1].startswith("+++ b/"):
        lines[0] = "--- proposed/" + lines[0][len("--- a/") :]
        lines[1] = "+++ written/" + lines[1][len("+++ b/") :]
    return "\n".join(lines)


def edited_result(result: Result, proposed: Proposal, written: Proposal, path: str) -> Result:
    """The result of an applied edited change, built from the plain one (``Wrote file``)."""
    summary = f"{result.summary.rstrip('.')}: {EDITED_NOTE}."
    details = edit_diff(proposed.new_bytes, written.new_bytes, path)
    return Result(result.id, True, summary, details)


def original_text(item: Item) -> str | None:
    """The file's text the item's preview was computed from (None: new file, or not text)."""
    snapshot = item.proposal.snapshot if item.proposal is not None else None
    if snapshot is None or not snapshot.exists or snapshot.data is None:
        return None
    try:
        return snapshot.data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def preview_diff(item: Item, content: bytes) -> str:
    """The diff Approve would write with ``content`` (file before -> content), for live views.

    Pure: computed from the preview's snapshot in memory; nothing is read from the disk.
    """
    snapshot = item.proposal.snapshot if item.proposal is not None else None
    before = snapshot.data if snapshot is not None and snapshot.exists else None
    return unified_diff(before, content, item.path or "")


def changed_lines(item: Item, content: bytes) -> tuple[int, int]:
    """Lines added and removed by ``content`` compared with the model's proposal."""
    proposed = item.proposal.new_bytes if item.proposal is not None else None
    _, added, removed = diff_with_stats(proposed, content, item.path or "")
    return added, removed
