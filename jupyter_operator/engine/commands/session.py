"""A string-command session over one workspace: the open document, a back stack, variables,
a folder for bash lines, registered actions and menus.

Every file access goes through the ``Operator``'s workspace (the jail); every change is an
engine proposal (a diff to approve, atomic, in the undo journal). Reads run at once unless
the policy denies them; changes run at once only when the policy allows ``fs.write``.

This module runs scripts and dispatches each command to its handler; the handlers live in
mixins by concern: ``session_commands`` (variables, help, menus, actions, bash lines),
``document_commands`` (the open document and the back stack) and ``change_commands`` (the
changes to files).
"""

from __future__ import annotations

import logging
import secrets
import string
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ...dialects.commands import codes, responses
from ...dialects.commands.parse import MALFORMED, CommandError, Request, expand, parse_script
from ...protocol import OperatorError
from ...workspace import decode_text
from ..items import Item
from ..reads import READ_LIMIT, OutputBudget
from ..session import Operator
from . import actions, bash, changes
from .bash import SANDBOX, ShellRunner
from .change_commands import ChangeCommands
from .document_commands import DocumentCommands
from .replies import Batch, Reply
from .session_commands import SessionCommands

log = logging.getLogger(__name__)

#: The engine action a policy sees for each command (session commands touch no file).
POLICY_ACTIONS = {
    "open": "fs.read", "back": "fs.read", "refresh": "fs.read", "edit": "fs.read",
    "verify": "fs.read", "ls": "fs.list", "write": "fs.write", "append": "fs.write",
}  # fmt: skip
LIST_LIMIT = 500  # entries /ls shows


class CommandSession(SessionCommands, DocumentCommands, ChangeCommands):
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

    # -- folders ---------------------------------------------------------------------------------
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
