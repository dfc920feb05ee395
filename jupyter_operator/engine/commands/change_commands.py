"""The changes of a string-command session: /edit with a body, /write, /append and /undo.

``ChangeCommands`` is mixed into ``CommandSession``. Each command computes the file's new text and
proposes it through ``changes`` as an engine run, which waits for a person or the rules; the
session's batch continues once it is decided. Apart from ``session.py`` so the session's running
and dispatch read on their own, and from ``changes.py``, which knows nothing of commands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...dialects.commands import blocks, codes, responses
from ...dialects.commands.parse import CommandError, Request
from ...protocol import Command
from ...protocol._models import Delete, Write
from ..undo import inverse as undo_inverse
from . import changes
from .document_commands import join_address
from .replies import Reply

if TYPE_CHECKING:
    from ..session import Operator


class ChangeCommands:
    """Mixed into ``CommandSession``: the commands that change files, each one a proposal."""

    operator: Operator

    if TYPE_CHECKING:  # provided by CommandSession (its DocumentCommands and SessionCommands)

        def _target(self, name: str, arg: str) -> tuple[str, str | None]: ...

        def _load(self, path: str, block: str | None) -> tuple[str, list[str], int]: ...

        def _done(self, rid: str, request: Request, system: str, content: str | None = None,
                  document: str | None = None, path: str | None = None) -> Reply: ...  # fmt: skip

    def _cmd_edit(self, rid: str, request: Request, arg: str) -> Reply:
        path, block = self._target("edit", arg)
        where = join_address(path, block)
        if request.body is None:
            _, lines, first = self._load(path, block)
            return self._done(rid, request, f"[editing: {where}]", responses.numbered(lines, first))
        snap, old, bom = changes.current(self.operator.workspace, path)
        if old is None:
            raise CommandError(
                codes.NOT_FOUND, f"File not found: {path} (use /write to create it)."
            )
        n = responses.count_lines(request.body)
        if block is None:
            new, done = request.body, f"Edited {path} ({responses.plural(n, 'line')}, whole file)"
        else:
            if not blocks.is_markdown(path):
                raise CommandError(
                    codes.NOT_MARKDOWN, f"{path} is not Markdown; #blocks are headings."
                )
            new = changes.block_replaced(old, block, request.body, path)
            done = f"Edited {where} ({responses.plural(n, 'line')})"
        return self._propose(rid, request, path, snap, new, bom, done)

    def _cmd_write(self, rid: str, request: Request, arg: str) -> Reply:
        path, _ = self._plain_path("write", arg)
        body = changes.require_body("write", request.body)
        snap, _old, bom = changes.current(self.operator.workspace, path)
        n_bytes = len(body.encode("utf-8"))
        n_lines = responses.plural(responses.count_lines(body), "line")
        done = f"Written: {path} ({n_bytes} bytes, {n_lines})"
        return self._propose(rid, request, path, snap, body, bom, done)

    def _cmd_append(self, rid: str, request: Request, arg: str) -> Reply:
        path, _ = self._plain_path("append", arg)
        body = changes.require_body("append", request.body)
        snap, old, bom = changes.current(self.operator.workspace, path)
        new = changes.appended(old, body)
        size = len(new.encode("utf-8")) + (3 if bom else 0)
        return self._propose(
            rid, request, path, snap, new, bom, f"Appended to: {path} (now {size} bytes)"
        )

    def _plain_path(self, name: str, arg: str) -> tuple[str, None]:
        path, block = self._target(name, arg)
        if block is not None:
            raise CommandError(
                codes.USAGE, f"/{name} takes a file, not a #block (use /edit path#block)."
            )
        return path, None

    def _propose(self, rid: str, request: Request, path: str, snap: Any, text: str, bom: bool,
                 done: str) -> Reply:  # fmt: skip
        verdict = self.operator.policy.verdict(changes.ACTION, path)
        if verdict.verdict == "deny":
            raise CommandError(
                codes.DENIED, f"{changes.ACTION} is not allowed in this workspace ({verdict.text})."
            )
        run = changes.propose(self.operator, rid, path, snap, text, bom, request.line)
        item = run.items[0]
        waiting = f"Proposed: {request.name} {path} ({item.summary}); waiting for approval"
        return Reply(rid, request, "pending", waiting, run=run, applied_body=done)

    def _cmd_undo(self, rid: str, request: Request, arg: str) -> Reply:
        # A reply's /undo is a change like any other: the inverse of the latest change is
        # previewed, decided by the person or the rules, and journaled when applied. Only a
        # person's undo (a button, %operator undo, jupyter-operator undo) acts at once.
        if arg:
            raise CommandError(codes.USAGE, "/undo takes no arguments (it undoes the last change).")
        entry, current, restored = undo_inverse(self.operator.workspace, self.operator.journal)
        if restored is None:
            action = "fs.delete"
            params: Any = Delete(path=entry.path)
        else:
            try:
                text = restored.decode("utf-8")
            except UnicodeDecodeError:
                raise CommandError(
                    "UNDO_CONFLICT", f"{entry.path} was not text before {entry.entry_id}; only a "
                    f"person can undo that change (History or %operator undo)."
                ) from None
            action, params = "fs.write", Write(path=entry.path, content=text)
        verdict = self.operator.policy.verdict(action, entry.path)
        if verdict.verdict == "deny":
            raise CommandError(
                codes.DENIED, f"/undo would {action} {entry.path}, which is not allowed in this "
                f"workspace ({verdict.text})."
            )
        command = Command(id=rid, action=action, path=entry.path, line=request.line,
                          fields={"path": entry.path}, params=params)  # fmt: skip
        run = changes.propose_command(self.operator, command, current)
        item = run.items[0]
        lines = responses.plural(item.proposal.added + item.proposal.removed, "line")
        done = f"Undo: reverted {entry.path} ({lines})"  # the seed's wording
        waiting = (f"Proposed: undo {entry.entry_id} ({entry.action} {entry.path}): "
                   f"{item.summary}; waiting for approval")  # fmt: skip
        return Reply(rid, request, "pending", waiting, run=run, applied_body=done)
