"""The session commands of a string-command session: variables, help, info, menus, actions,
and bash lines (``cd`` itself; the rest through the shell runner once there is one)."""

from __future__ import annotations

import logging
import posixpath
from typing import TYPE_CHECKING, Any

from ...dialects.commands import codes, help, responses
from ...dialects.commands.parse import CommandError, Request, parse_flags, parse_set, quote
from ...protocol import OperatorError
from . import actions, bash
from .replies import Reply

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..session import Operator

log = logging.getLogger(__name__)


class SessionCommands:
    """Mixed into ``CommandSession``: the commands that work on the session's own state."""

    operator: Operator
    shell: bash.ShellRunner | str | None
    variables: dict[str, str]
    registry: actions.Registry
    cwd: str
    back: list[tuple[str, str | None]]
    batches: list[Any]
    count: int
    _check_rules: Callable[[str, str], None]  # CommandSession's rule check for one path

    def _done(self, rid: str, request: Request, system: str, content: str | None = None,
              document: str | None = None, path: str | None = None) -> Reply:  # fmt: skip
        return Reply(rid, request, "done", responses.body(system, content),
                     document=document, document_path=path)  # fmt: skip

    if TYPE_CHECKING:  # provided by CommandSession

        def _open_name(self) -> str | None: ...

        def _open_document(self, rid: str, request: Request, arg: str) -> Reply: ...

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
