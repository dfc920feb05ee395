"""A string-command session over one workspace: the open document, a back stack, variables,
a folder for bash lines, registered actions and menus.

Every file access goes through the ``Operator``'s workspace (the jail); every change is an
engine proposal (a diff to approve, atomic, in the undo journal). Reads run at once unless
the policy denies them; changes run at once only when the policy allows ``fs.write``.
"""

from __future__ import annotations

import logging
import secrets
import string
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ...dialects.commands import blocks, codes, responses
from ...dialects.commands.parse import (
    MALFORMED,
    CommandError,
    Request,
    expand,
    parse_script,
    split_address,
)
from ...protocol import Command, OperatorError
from ...protocol import codes as operator_codes
from ...protocol._models import Delete, Write
from ...workspace import FileTooLarge, decode_text
from ..items import Item
from ..reads import READ_LIMIT, OutputBudget
from ..session import Operator
from ..undo import inverse as undo_inverse
from . import actions, bash, changes
from .bash import SANDBOX, ShellRunner
from .replies import Batch, Reply
from .session_commands import SessionCommands

log = logging.getLogger(__name__)

#: The engine action a policy sees for each command (session commands touch no file).
POLICY_ACTIONS = {
    "open": "fs.read", "back": "fs.read", "refresh": "fs.read", "edit": "fs.read",
    "verify": "fs.read", "ls": "fs.list", "write": "fs.write", "append": "fs.write",
}  # fmt: skip
LIST_LIMIT = 500  # entries /ls shows


def _address(path: str, block: str | None) -> str:
    return f"{path}#{block}" if block is not None else path


class CommandSession(SessionCommands):
    """One person's (or model's) command session; ``execute`` runs a script of commands.

    ``shell`` says how approved bash lines run: ``SANDBOX`` (the default) in the bubblewrap
    sandbox, under the operator's ``shell_policy``; a host's own runner
    ``runner(command, cwd) -> (exit_status, output)``; or None for no bash. Where the sandbox is
    missing (or switched off), bash lines other than ``cd`` answer ``ERROR(BASH_UNAVAILABLE)``.
    """

    def __init__(self, operator: Operator, *, shell: ShellRunner | str | None = SANDBOX,
                 tag: str | None = None) -> None:  # fmt: skip
        self.operator = operator
        self.shell = shell
        self.document: tuple[str, str | None] | None = None  # (path, block) open now
        self.back: list[tuple[str, str | None]] = []
        self.variables: dict[str, str] = {}
        self.cwd = ""  # the bash folder, relative to the root ("" is the root)
        self.registry = actions.Registry()
        alphabet = string.ascii_lowercase  # digits come first: "003qm"
        self.tag = tag if tag is not None else "".join(secrets.choice(alphabet) for _ in range(2))
        self.count = 0
        self.batches: list[Batch] = []
        self._budget = OutputBudget()  # the running script's (set as each batch advances)

    def __repr__(self) -> str:
        return f"<CommandSession open={self._open_name()!r} requests={self.count}>"

    # -- registration (Python API) ---------------------------------------------------------------
    def register_action(self, name: str, fn: Callable[..., Any], *,
                        schema: Mapping[str, Any] | None = None,
                        description: str | None = None) -> None:  # fmt: skip
        """Make ``/act.name --flag value`` call ``fn(flag=value, ...)`` (see ``actions``)."""
        self.registry.actions[name] = actions.make_action(name, fn, schema, description)

    def register_menu(self, name: str, entries: Iterable[Any], *, title: str | None = None) -> None:
        """Make ``/nav name`` list ``entries``: (label, command) pairs."""
        self.registry.menus[name] = actions.make_menu(name, entries, title)

    def read_text(self, path: str) -> str:
        """A file's text through the workspace jail and the read rules (for actions)."""
        return decode_text(self._read_bytes(path), path).text

    def _read_bytes(self, path: str) -> bytes:
        """A file's bytes after the read rules, charged to the script's output budget from its
        size on disk before it is read (one script cannot amplify itself)."""
        self._check_rules(POLICY_ACTIONS["open"], path)
        self._budget.reserve(min(self.operator.workspace.stat(path).size, READ_LIMIT))
        return self.operator.workspace.read_bytes(path, limit=READ_LIMIT)

    # -- running ---------------------------------------------------------------------------------
    def execute(self, script: str) -> Batch:
        """Run a script in order; commands after a pending change wait for its decision."""
        batch = Batch(parse_script(script))
        self.batches.append(batch)
        self._advance(batch)
        return batch

    def command(self, line: str) -> Reply:
        """Run one command (a script of one request) and return its reply."""
        batch = self.execute(line)
        if not batch.replies:
            raise ValueError("no command given")
        return batch.replies[0]

    def _advance(self, batch: Batch) -> None:
        # A change the policy applies at once is decided inside this loop; the loop (not a
        # nested call from the decision) goes on with the next command, so a long script never
        # nests.
        if batch.advancing:
            return
        batch.advancing = True
        try:
            while batch.queued and batch.pending is None:
                self._budget = batch.budget
                reply = self._answer(batch.queued.pop(0))
                batch.replies.append(reply)
                if reply.status == "pending" and reply.run is not None:
                    reply.run.subscribe(lambda item, r=reply, b=batch: self._decided(b, r, item))
                    self._maybe_auto(reply)
        finally:
            batch.advancing = False
        batch.notify()

    def _decided(self, batch: Batch, reply: Reply, item: Item) -> None:
        # Only the first decision settles the reply (a later undo of the change does not).
        if item.needs_approval or reply.status != "pending":
            return
        if item.status == "applied":
            reply.status, reply.body = "done", reply.applied_body or "Done"
        elif item.status == "done" and isinstance(item, bash.BashItem):  # a bash line ran
            reply.status, reply.body = "done", item.response or ""
        else:
            code = codes.from_operator_code(item.error_code or "ERR_IO")
            message = item.summary.partition("): ")[2] or item.summary
            reply.status, reply.code = "error", code
            reply.body = responses.error_body(code, message)
        self._advance(batch)

    def _maybe_auto(self, reply: Reply) -> None:
        if isinstance(reply.run, bash.BashRun):  # the shell policy decided it already
            return
        if reply.run is None:
            return
        item = reply.run.items[0]
        verdict = self.operator.policy.verdict(item.action or changes.ACTION, item.path)
        if verdict.verdict == "auto":
            reply.run.approve_by_rule(item.id, verdict.text)
        else:
            item.rule = verdict.text  # why it asks

    def _answer(self, request: Request) -> Reply:
        self.count += 1
        request_id = request.request_id or f"{self.count:03d}{self.tag}"
        try:
            return self._dispatch(request_id, request)
        except CommandError as exc:
            return self._error(request_id, request, exc.code, exc.message)
        except OperatorError as exc:
            return self._error(request_id, request, codes.from_operator_code(exc.code), exc.message)
        except Exception:  # never a traceback in a response; the log has it for the host
            log.exception("string command %s failed", request.name)
            message = "the command failed on the host; nothing was changed."
            return self._error(request_id, request, codes.INTERNAL, message)

    @staticmethod
    def _error(request_id: str, request: Request, code: str, message: str) -> Reply:
        return Reply(request_id, request, "error", responses.error_body(code, message), code)

    def _dispatch(self, rid: str, request: Request) -> Reply:
        name = request.name
        arg = request.arg if name == "set" else expand(request.arg, self.variables)
        if name == "bash":
            return self._bash(rid, request, arg)
        if name == "end":
            raise CommandError(
                codes.USAGE, "/end only closes the body of /write, /append or /edit."
            )
        if name == MALFORMED:
            raise CommandError(codes.USAGE, arg)
        if name == "act" or name.startswith("act."):
            return self._act(rid, request, name[4:], arg)
        handler = getattr(self, f"_cmd_{name}", None)
        if handler is None:
            raise CommandError(
                codes.UNKNOWN_COMMAND, f"/{name} is not a command; /help lists them."
            )
        action = POLICY_ACTIONS.get(name)
        if name == "edit" and request.body is not None:
            action = changes.ACTION
        if action is not None:
            self._check_policy(action)
        return handler(rid, request, arg)

    def _check_policy(self, action: str) -> None:
        # Before the path is known: a rule that refuses the action on every path (``**``).
        # Path-specific rules apply where the change is proposed (``_propose``).
        verdict = self.operator.policy.verdict(action)
        if verdict.verdict == "deny":
            raise CommandError(
                codes.DENIED, f"{action} is not allowed in this workspace ({verdict.text})."
            )

    def _check_rules(self, action: str, path: str) -> None:
        # Reads of string commands run at once: a rule can refuse one on its path (``ask`` has
        # no card to wait on here, so it lets the read run, as the default does).
        verdict = self.operator.policy.verdict(action, path)
        if verdict.verdict == "deny":
            raise CommandError(
                codes.DENIED, f"{action} {path} is not allowed in this workspace ({verdict.text})."
            )

    # -- documents -------------------------------------------------------------------------------
    def _read(self, path: str) -> str:
        try:
            data = self._read_bytes(path)
        except FileTooLarge as exc:
            message = f"{path} has {exc.size} bytes; open one #block of it instead."
            raise CommandError("FILE_TOO_LARGE", message) from None
        except OperatorError as exc:
            if exc.code == operator_codes.ERR_NOT_FOUND:
                raise CommandError(codes.NOT_FOUND, f"File not found: {path}") from None
            raise
        return decode_text(data, path).text

    def _load(self, path: str, block: str | None) -> tuple[str, list[str], int]:
        """(whole text, the lines shown, first line number) of a document or one block."""
        text = self._read(path)
        lines = blocks.split(text)
        if block is None:
            return text, lines, 1
        if not blocks.is_markdown(path):
            raise CommandError(codes.NOT_MARKDOWN, f"{path} is not Markdown; #blocks are headings.")
        found = blocks.find(text, block, path)
        return text, lines[found.start : found.end], found.start + 1

    def _target(self, name: str, arg: str) -> tuple[str, str | None]:
        if not arg.strip():
            raise CommandError(codes.USAGE, f"/{name} needs a path: /{name} path[#block].")
        return split_address(arg)

    def _show(self, rid: str, request: Request, verb: str, path: str, block: str | None) -> Reply:
        _, lines, _ = self._load(path, block)
        document = "\n".join(lines)
        return self._done(rid, request, f"{verb} {_address(path, block)}",
                          responses.readable(document), document, path)  # fmt: skip

    def _open_document(self, rid: str, request: Request, arg: str) -> Reply:
        path, block = self._target("open", arg)
        reply = self._show(rid, request, "Opened", path, block)
        if self.document is not None and self.document != (path, block):
            self.back.append(self.document)
        self.document = (path, block)
        return reply

    _cmd_open = _open_document

    def _cmd_back(self, rid: str, request: Request, arg: str) -> Reply:
        if arg:
            raise CommandError(codes.USAGE, "/back takes no arguments.")
        if not self.back:
            raise CommandError(codes.NO_HISTORY, "no earlier document to go back to.")
        path, block = self.back[-1]
        reply = self._show(rid, request, "Back to", path, block)
        self.back.pop()
        self.document = (path, block)
        return reply

    def _open_now(self, name: str) -> tuple[str, str | None]:
        if self.document is None:
            raise CommandError(codes.NO_DOCUMENT, f"no document is open; /open one before /{name}.")
        return self.document

    def _open_name(self) -> str | None:
        return _address(*self.document) if self.document else None

    def _cmd_refresh(self, rid: str, request: Request, arg: str) -> Reply:
        return self._show(rid, request, "Refreshed", *self._open_now("refresh"))

    def _cmd_close(self, rid: str, request: Request, arg: str) -> Reply:
        path, block = self._open_now("close")
        self.document = None
        return self._done(rid, request, f"Closed: {_address(path, block)}")

    def _cmd_verify(self, rid: str, request: Request, arg: str) -> Reply:
        path, block = self._target("verify", arg)
        if block is None:
            raise CommandError(codes.USAGE, "/verify needs a block: /verify path#block.")
        _, lines, _ = self._load(path, block)
        return self._done(rid, request, f"Verified {path}#{block}", responses.preview(lines))

    def _cmd_ls(self, rid: str, request: Request, arg: str) -> Reply:
        path = arg.strip().rstrip("/") or "."
        self._check_rules(POLICY_ACTIONS["ls"], path)
        entries = self.operator.workspace.list_dir(path)
        hidden = self.operator.policy.hidden("fs.list")
        if hidden is not None:  # a rule applies to every path a listing shows
            base = "" if path in (".", "") else path.strip("/") + "/"
            entries = [e for e in entries if not hidden(base + e.name)]
        lines = [f"{e.name}/" if e.is_dir else f"{e.name}  ({e.size} bytes)" for e in entries]
        if len(lines) > LIST_LIMIT:
            lines[LIST_LIMIT:] = [f"... and {len(lines) - LIST_LIMIT} more"]
        shown = "." if path in (".", "") else path
        return self._done(rid, request, f"Listing {shown}/", "\n".join(lines) or "(empty folder)")

    # -- changes ---------------------------------------------------------------------------------
    def _cmd_edit(self, rid: str, request: Request, arg: str) -> Reply:
        path, block = self._target("edit", arg)
        where = _address(path, block)
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
