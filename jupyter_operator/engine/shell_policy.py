"""Which shell commands run without asking, which are refused, and how commands run.

A person's decision made in advance, kept on the host: nothing in a reply can change it. The
default asks for every command.

- ``allow``: exact program names (``pytest``) or exact prefixes (``python -m pytest``), matched
  word by word against the start of the command. A rule only ever covers a *plain* command:
  words of letters, digits and ``_ . / = : , + @ % -`` separated by spaces, and no extra ``env``.
  Anything with shell syntax (``;``, ``&&``, ``|``, ``$``, quotes, globs, redirections) asks.
- ``deny``: glob patterns (``fnmatch``, case-sensitive) over the whole command with its spaces
  collapsed, such as ``*rm -rf*`` or ``sudo *``. Deny wins over allow.
- ``unlisted``: ``ask`` (the default) or ``deny`` for commands no allow rule covers.
"""

from __future__ import annotations

import fnmatch
import re
import shlex
from dataclasses import dataclass
from typing import Literal

_PLAIN = re.compile(r"[A-Za-z0-9_./=:,+@%\- ]+")
# Programs whose approval prompt says "destructive" (the reason text only; every command asks).
_DESTRUCTIVE = {
    "rm",
    "rmdir",
    "mv",
    "dd",
    "chmod",
    "chown",
    "truncate",
    "shred",
    "mkfs",
    "kill",
    "pkill",
    "killall",
    "git",
}

Verdict = Literal["run", "ask", "deny"]


@dataclass(frozen=True)
class ShellDecision:
    """What the policy says about one command, and the rule that said it (if any)."""

    verdict: Verdict
    rule: str | None
    reason: str


#: Why a command a rule allows asks all the same (``ShellDecision.rule``, after the rule).
UNSANDBOXED_ASKS = "a command that would run outside the sandbox asks, whatever the rules say"


def outside_sandbox(decision: ShellDecision, sandboxed: bool) -> ShellDecision:
    """``decision``, or ``ask`` for a command a rule runs where it would not be sandboxed
    (``sandbox=off``, a host's own runner): code runs outside the sandbox only after a
    person's approval."""
    if decision.verdict != "run" or sandboxed:
        return decision
    return ShellDecision("ask", f"{decision.rule}; {UNSANDBOXED_ASKS}",
                         "A command outside the sandbox requires approval")  # fmt: skip


def _words(command: str) -> list[str] | None:
    """The command's words when it is plain (no shell syntax), else None."""
    return command.split() if _PLAIN.fullmatch(command) else None


@dataclass(frozen=True)
class ShellPolicy:
    """Rules for shell commands, and how they run (sandbox, network, timeout, environment)."""

    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    unlisted: Literal["ask", "deny"] = "ask"
    env_allow: tuple[str, ...] = ()  # secret-looking host variables passed on by exact name
    network: bool = False
    sandbox: bool = True  # False runs commands without bubblewrap even where it exists
    timeout_ms: int = 30_000  # when the operation gives none

    def __post_init__(self) -> None:
        for rule in self.allow:
            if not _words(rule):
                raise ValueError(
                    f"allow rule {rule!r} must be plain words (a program and its first arguments)"
                )
        if self.unlisted not in ("ask", "deny"):
            raise ValueError("unlisted must be 'ask' or 'deny'")
        if not 0 < self.timeout_ms <= 600_000:
            raise ValueError("timeout_ms must be 1 to 600000")

    def decide(self, command: str, env: dict[str, str] | None = None) -> ShellDecision:
        """Run, ask or deny ``command`` (with the extra ``env`` the operation carries)."""
        flat = " ".join(command.split())
        for pattern in self.deny:
            if fnmatch.fnmatchcase(flat, pattern):
                return ShellDecision(
                    "deny",
                    f"shell deny: {pattern}",
                    f"Command matches a denied pattern ({pattern})",
                )
        words = _words(command)
        if words and not env:
            for rule in self.allow:
                head = rule.split()
                if words[: len(head)] == head:
                    return ShellDecision("run", f"shell allow: {rule}", "Command is allowed")
        if self.unlisted == "deny":
            return ShellDecision("deny", "shell unlisted=deny", "Command not in allowed list")
        try:
            program = shlex.split(command)[0].rsplit("/", 1)[-1]
        except (ValueError, IndexError):
            program = ""
        reason = (
            "Destructive command requires approval"
            if program in _DESTRUCTIVE
            else "Shell command requires approval"
        )
        return ShellDecision("ask", None, reason)

    def suggestion(self) -> str:
        """The allowed list, for a ``policyDenied`` event."""
        if not self.allow:
            return "No commands are allowed without approval; ask the person to run it."
        return "Allowed commands: " + ", ".join(sorted(self.allow))

    @classmethod
    def parse(cls, text: str) -> ShellPolicy:
        """Parse ``allow=python,pytest,"python -m pytest" deny="*rm -rf*" unlisted=deny
        network=off sandbox=on env=HF_TOKEN timeout=60000``. Raises ValueError (one line)."""
        fields: dict[str, object] = {}
        try:
            tokens = shlex.split(text)
        except ValueError as exc:
            raise ValueError(f"cannot read the shell policy ({exc})") from None
        for token in tokens:
            key, sep, value = token.partition("=")
            items = tuple(v for v in value.split(",") if v and v != "none")
            if not sep:
                raise ValueError(f"expected key=value, got {token!r}")
            if key in ("allow", "deny"):
                fields[key] = items
            elif key == "env":
                fields["env_allow"] = items
            elif key in ("network", "sandbox"):
                if value not in ("on", "off"):
                    raise ValueError(f"{key} must be on or off")
                fields[key] = value == "on"
            elif key == "unlisted":
                fields[key] = value
            elif key == "timeout":
                if not value.isdigit():
                    raise ValueError("timeout must be milliseconds")
                fields["timeout_ms"] = int(value)
            else:
                raise ValueError(
                    f"unknown shell policy key {key!r} (allow, deny, unlisted, "
                    "network, sandbox, env, timeout)"
                )
        return cls(**fields)  # type: ignore[arg-type]

    def describe(self) -> str:
        """The policy as text that :meth:`parse` accepts."""

        def join(items: tuple[str, ...]) -> str:
            return shlex.quote(",".join(items)) if items else "none"

        return (
            f"allow={join(self.allow)} deny={join(self.deny)} unlisted={self.unlisted} "
            f"network={'on' if self.network else 'off'} "
            f"sandbox={'on' if self.sandbox else 'off'} env={join(self.env_allow)} "
            f"timeout={self.timeout_ms}"
        )
