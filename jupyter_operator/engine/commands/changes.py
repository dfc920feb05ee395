"""Changes asked for by string commands, as engine proposals.

Each change is computed from one snapshot of the file into the file's complete new text and
planned as an ``fs.write`` command on top of that snapshot, so the person approves exactly
the diff shown, applying is atomic and refused if the file changed since the preview, and the
undo journal records it like any other change.
"""

from __future__ import annotations

from ...dialects.commands import codes
from ...dialects.commands import heading_blocks as blocks
from ...dialects.commands.parse import CommandError
from ...protocol import Command, OperatorError
from ...protocol import codes as operator_codes
from ...protocol._models import Write
from ...workspace import Snapshot, Workspace, decode_text
from .. import mutations
from ..items import Item
from ..operator import Operator, Run

ACTION = "fs.write"  # the engine action every string-command change is planned as


def current(ws: Workspace, path: str) -> tuple[Snapshot, str | None, bool]:
    """The snapshot of ``path``, its text (None when absent) and whether it had a BOM."""
    snap = ws.snapshot(path, limit=mutations.EDIT_LIMIT)
    if snap.is_dir:
        raise OperatorError(operator_codes.ERR_NOT_A_FILE, f"{path} is a folder.")
    if not snap.exists:
        return snap, None, False
    decoded = decode_text(snap.data, path)
    return snap, decoded.text, decoded.bom


def _newline(text: str) -> str:
    return "\r\n" if text.count("\r\n") * 2 > text.count("\n") else "\n"


def _with_endings(body: str, like: str) -> str:
    return body.replace("\n", "\r\n") if _newline(like) == "\r\n" else body


def appended(old: str | None, body: str) -> str:
    """The text after ``/append``: a newline is added first when the file lacks a final one."""
    if not old:
        return body
    joint = "" if old.endswith("\n") else _newline(old)
    return old + joint + _with_endings(body, old)


def block_replaced(old: str, address: str, body: str, path: str) -> str:
    """The text with the block ``address`` (heading line included) replaced by ``body``."""
    block = blocks.find(old, address, path)
    lines = old.split("\n")
    # Line k of blocks.split(old) starts after the k-th "\n" of old.
    head = "\n".join(lines[: block.start])
    tail = "\n".join(lines[block.end :])
    new_body = _with_endings(body, old)
    if block.end < len(blocks.split(old)) and not new_body.endswith("\n") and new_body:
        new_body += _newline(old)
    before = head + ("\n" if block.start else "")
    return before + new_body + tail


def propose(
    op: Operator, request_id: str, path: str, snap: Snapshot, text: str, bom: bool, line: int = 1
) -> Run:
    """A one-item run whose item is the pending change of ``path`` to ``text``."""
    content = ("\ufeff" if bom else "") + text
    command = Command(id=request_id, action=ACTION, path=path, line=line,
                      fields={"path": path}, params=Write(path=path, content=content))  # fmt: skip
    return propose_command(op, command, snap)


def propose_command(op: Operator, command: Command, snap: Snapshot) -> Run:
    """A one-item run whose item is ``command`` (a write or delete) planned on ``snap``."""
    proposal = mutations.plan(op.workspace, command, base=snap)
    item = Item(0, command.id, command.action, command.params.path, command.line, "mutation",
                "pending", proposal.summary, proposal=proposal, command=command)  # fmt: skip
    return Run(op, [item], 0, ())


def require_body(name: str, body: str | None) -> str:
    if body is None:
        raise CommandError(codes.USAGE, f"/{name} needs a body: the lines after it, up to /end.")
    return body
