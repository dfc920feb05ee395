"""A string-command session over one workspace: the open document, a back stack, variables,
a folder for bash lines, registered actions and menus.

Every file access goes through the ``Operator``'s workspace (the jail); every change is an
engine proposal (a diff to approve, atomic, in the undo journal). Reads run at once unless
the policy denies them; changes run at once only when the policy allows ``fs.write``.

One class, one idea: the session runs a script, dispatches each command to its handler, and
holds the handlers by concern (the session's own state, the open document, the changes).
"""

from __future__ import annotations

import logging
import posixpath
import secrets
import string
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ...dialects.commands import codes, help, responses
from ...dialects.commands import heading_blocks as blocks
from ...dialects.commands.parse import (
    MALFORMED,
    CommandError,
    Request,
    expand,
    parse_flags,
    parse_script,
    parse_set,
    quote,
    split_address,
)
from ...protocol import Command, OperatorError
from ...protocol import codes as operator_codes
from ...protocol._models import Delete, Write
from ...workspace import FileTooLarge, decode_text
from ..items import Item
from ..operator import Operator
from ..reads import READ_LIMIT, OutputBudget
from ..undo import inverse as undo_inverse
from . import actions, bash, changes
from .bash import SANDBOX, ShellRunner
from .replies import Batch, Reply

log = logging.getLogger(__name__)

#: The engine action a policy sees for each command (session commands touch no file).
POLICY_ACTIONS = {
    "open": "fs.read", "back": "fs.read", "refresh": "fs.read", "edit": "fs.read",
    "verify": "fs.read", "ls": "fs.list", "write": "fs.write", "append": "fs.write",
}  # fmt: skip
LIST_LIMIT = 500  # entries /ls shows


def join_address(path: str, block: str | None) -> str:
    """``path#block``, or the path alone (the inverse of ``split_address``)."""
    return f"{path}#{block}" if block is not None else path


class CommandSession:
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

    # The session commands: variables, help, info, menus, actions, and bash lines (``cd``
    # itself; the rest through the shell runner once there is one).

    def _done(self, rid: str, request: Request, system: str, content: str | None = None,
              document: str | None = None, path: str | None = None) -> Reply:  # fmt: skip
        return Reply(rid, request, "done", responses.body(system, content),
                     document=document, document_path=path)  # fmt: skip

    # -- session ---------------------------------------------------------------------------------
    def _cmd_set(self, rid: str, request: Request, arg: str) -> Reply:
        if not arg.strip():
            lines = [f"{{{k}}} = {quote(v)}" for k, v in sorted(self.variables.items())]
            return self._done(rid, request, "Variables", "\n".join(lines) or "(no variables)")
        name, value = parse_set(arg)
        self.variables[name] = value
        return self._done(rid, request, f"{{{name}}} = {quote(value)}")

    def _cmd_help(self, rid: str, request: Request, arg: str) -> Reply:
        topic = arg.strip().lstrip("/")
        if not topic:
            return self._done(rid, request, "String Commands", help.HELP)
        if topic == "bash":
            why = self._bash_unavailable()
            available = help.BASH_AVAILABLE if why is None else help.BASH_MISSING + " " + why
            return self._done(
                rid, request, "Bash Session", help.BASH_HELP.format(availability=available)
            )
        raise CommandError(codes.USAGE, "/help takes no topic or 'bash'.")

    def _cmd_info(self, rid: str, request: Request, arg: str) -> Reply:
        pending = sum(1 for b in self.batches if b.pending is not None)
        info = {
            "workspace": ".",
            "open": self._open_name() or "(none)",
            "back": responses.plural(len(self.back), "document"),
            "cwd": self.cwd or ".",
            "variables": ", ".join(sorted(self.variables)) or "(none)",
            "actions": ", ".join(sorted(self.registry.actions)) or "(none)",
            "menus": ", ".join(sorted(self.registry.menus)) or "(none)",
            "policy": self.operator.policy.summary(),
            "waiting": responses.plural(pending, "change"),
            "bash": "available" if self._bash_unavailable() is None else "not available (cd only)",
            "requests": str(self.count),
        }
        return self._done(
            rid, request, "Session info", "\n".join(f"{k}: {v}" for k, v in info.items())
        )

    def _cmd_nav(self, rid: str, request: Request, arg: str) -> Reply:
        name = arg.strip()
        menus = self.registry.menus
        if not name:
            lines = [f"{m.name}  {m.title + '  ' if m.title else ''}"
                     f"({responses.plural(len(m.entries), 'entry', 'entries')})"
                     for m in menus.values()]  # fmt: skip
            return self._done(
                rid, request, "Menus", "\n".join(lines) or "(no menus; /nav scaffold)"
            )
        if name == "scaffold":
            return self._done(rid, request, "Nav Scaffold", help.SCAFFOLD)
        if name not in menus:
            raise CommandError(codes.NOT_FOUND, f"no menu '{name}'; /nav lists them.")
        menu = menus[name]
        entries = [f"{n}. {label}: {cmd}" for n, (label, cmd) in enumerate(menu.entries, 1)]
        lines = ([menu.title] if menu.title else []) + entries
        return self._done(rid, request, f"Menu: {name}", "\n".join(lines) or "(empty menu)")

    def _act(self, rid: str, request: Request, name: str, arg: str) -> Reply:
        table = self.registry.actions
        if not name:
            if arg.strip():
                raise CommandError(
                    codes.USAGE, "write /act.name --flag value (or /act alone to list)."
                )
            lines = [f"{a.name}  {a.description}".rstrip() for a in table.values()]
            return self._done(rid, request, "Actions", "\n".join(lines) or "(no actions)")
        action = table.get(name)
        if action is None:
            raise CommandError(codes.NOT_FOUND, f"no action '{name}'; /act lists them.")
        flags = parse_flags(arg)
        wants_help = flags.get("help") is True and all(f.name != "help" for f in action.flags)
        if wants_help or (not flags and action.flags):
            return self._done(rid, request, f"Action: {name}", action.schema_text())
        kwargs = actions.bind(action, flags, self._check_path)
        if actions.wants_session(action.fn):
            kwargs["session"] = self
        try:
            result = action.fn(**kwargs)
        except (CommandError, OperatorError):  # the action's own clear refusal
            raise
        except Exception:
            log.exception("action %s failed", name)
            raise CommandError(
                codes.ACTION_FAILED, f"the action {name} failed on the host."
            ) from None
        if isinstance(result, actions.Doc):
            target = result.path if result.block is None else f"{result.path}#{result.block}"
            return self._open_document(rid, request, target)
        return self._done(rid, request, str(result) if result is not None else f"Done: act.{name}")

    def _check_path(self, path: str) -> str:
        # A path flag hands the file to the action, which reads it: the read rules decide.
        self._check_rules("fs.read", path)
        info = self.operator.workspace.stat(path)
        if not info.is_file:
            raise CommandError("NOT_A_FILE", f"{path} is not a file.")
        return path

    # -- bash lines ------------------------------------------------------------------------------
    def _bash_unavailable(self) -> str | None:
        return bash.unavailable(self.shell, bash.shell_policy_of(self.operator))

    def _bash(self, rid: str, request: Request, line: str) -> Reply:
        words = bash.cd_words(line)
        if words is not None:
            if len(words) > 2:
                raise CommandError(codes.USAGE, "cd takes one folder: cd path (quote spaces).")
            target = posixpath.normpath(
                posixpath.join(self.cwd or ".", words[1] if len(words) > 1 else ".")
            )
            if len(words) == 1:
                target = "."
            info = self.operator.workspace.stat(target)
            if not info.is_dir:
                raise CommandError("NOT_A_DIRECTORY", f"{target} is not a folder.")
            self.cwd = "" if target == "." else target
            return self._done(rid, request, f"exit: 0 | cwd: {self.cwd or '.'}")
        return self._run_bash(rid, request, line)

    def _run_bash(self, rid: str, request: Request, line: str) -> Reply:
        """Propose one bash line: the command and its folder wait for approval (``bash``)."""
        run = bash.propose(self.operator, self.shell, rid, request.line, line, self.cwd or ".")
        item = run.items[0]
        if item.status == "pending":
            where = responses.one_line(self.cwd or ".")
            waiting = f"Proposed: bash in {where} ({item.summary}); waiting for approval"
            return Reply(rid, request, "pending", waiting, run=run)
        return self._settled(rid, request, item)  # the shell policy ran it at once

    def _settled(self, rid: str, request: Request, item: Any) -> Reply:
        if item.status == "done":
            return Reply(rid, request, "done", item.response or "", run=None)
        code = codes.from_operator_code(item.error_code or "ERR_IO")
        message = item.summary.partition("): ")[2] or item.summary
        return Reply(rid, request, "error", responses.error_body(code, message), code)

    # -- the open document ----------------------------------------------------------------------
    # /open, /back, /refresh, /close, /verify: a file or one Markdown #block of it, read through
    # ``_read_bytes`` (the jail, the read rules and the script's output budget).

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
        return self._done(rid, request, f"{verb} {join_address(path, block)}",
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
        return join_address(*self.document) if self.document else None

    def _cmd_refresh(self, rid: str, request: Request, arg: str) -> Reply:
        return self._show(rid, request, "Refreshed", *self._open_now("refresh"))

    def _cmd_close(self, rid: str, request: Request, arg: str) -> Reply:
        path, block = self._open_now("close")
        self.document = None
        return self._done(rid, request, f"Closed: {join_address(path, block)}")

    def _cmd_verify(self, rid: str, request: Request, arg: str) -> Reply:
        path, block = self._target("verify", arg)
        if block is None:
            raise CommandError(codes.USAGE, "/verify needs a block: /verify path#block.")
        _, lines, _ = self._load(path, block)
        return self._done(rid, request, f"Verified {path}#{block}", responses.preview(lines))

    # -- changes ---------------------------------------------------------------------------------
    # /edit with a body, /write, /append and /undo: each computes the file's new text and
    # proposes it through ``changes`` as an engine run, decided by a person or the rules.

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
