"""Reading string commands: scripts of slash commands, bodies, bash lines, variables, flags.

A script is read line by line:

- A line starting with ``/name`` is a command (``[id] /name ...`` gives it a request id).
- ``/write``, ``/append`` and ``/edit`` take a body: the lines after them, up to a line ``/end``
  or the next command line. Trailing blank lines before a next command are not part of the body.
  Inside a body only a known command name or ``/end`` ends it, so ``/usr/bin/env`` or ``// note``
  stay body lines. ``/write path <<EOF`` takes every line up to a line ``EOF`` literally.
- Any other non-blank line outside a body is a bash line (a leading ``$ `` is dropped).
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass

from . import codes

#: Slash commands (``/act.name`` is matched separately).
COMMANDS = frozenset(
    {"open", "back", "refresh", "edit", "ls", "write", "append", "close", "set", "undo", "help"}
    | {"info", "nav", "act", "verify", "end"}
)
BODY_COMMANDS = frozenset({"write", "append", "edit"})
#: The name of a request that could not be read (its ``arg`` says why); no command has it.
MALFORMED = "!malformed"

_LINE = re.compile(
    r"^[ \t]*(?:\[(?P<id>[A-Za-z0-9_-]{1,32})\][ \t]*)?"
    r"/(?P<name>[A-Za-z][A-Za-z0-9_.-]*)(?:[ \t]+(?P<arg>.*?))?[ \t]*$"
)
_HEREDOC = re.compile(r"^(?P<arg>.*?)[ \t]*<<[ \t]*(?P<mark>[A-Za-z_][A-Za-z0-9_]*)$")
_VARIABLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.-]*)\}")
_SET = re.compile(r"^\{?(?P<name>[A-Za-z_][A-Za-z0-9_.-]*)\}?[ \t]*=[ \t]*(?P<value>.*)$")


class CommandError(Exception):
    """A request that cannot be carried out; becomes ``ERROR(code): message``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Request:
    """One command of a script.

    ``name`` is the command without its slash (``open``, ``act.grade``) or ``bash``; ``arg`` the
    rest of the line; ``body`` the text after it (None when none was given); ``echo`` the line as
    written, for ``re: [id] ...``; ``line`` its 1-based line number in the script.
    """

    name: str
    arg: str
    echo: str
    body: str | None = None
    line: int = 1
    request_id: str | None = None

    @property
    def is_bash(self) -> bool:
        return self.name == "bash"


def _known(name: str) -> bool:
    return name in COMMANDS or name == "act" or name.startswith("act.")


def _command(text: str) -> re.Match[str] | None:
    return _LINE.match(text)


def _finish_body(lines: list[str], trim: bool) -> str:
    if trim:
        while lines and not lines[-1].strip():
            lines.pop()
    return "".join(line + "\n" for line in lines)


def parse_script(text: str) -> list[Request]:
    """Split a script into requests, in order (see the module docstring for the rules)."""
    lines = [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]
    requests: list[Request] = []
    i = 0
    while i < len(lines):
        raw, number = lines[i], i + 1
        i += 1
        if not raw.strip():
            continue
        match = _command(raw)
        if match is None:
            bash = raw.strip()
            bash = bash[2:].lstrip() if bash.startswith("$ ") else bash
            requests.append(Request("bash", bash, raw.strip(), line=number))
            continue
        name, arg = match["name"], match["arg"] or ""
        echo = raw.strip()
        if match["id"]:  # the id is shown once, in "re: [id]"
            echo = echo.partition("]")[2].strip()
        body: str | None = None
        if name in BODY_COMMANDS:
            heredoc = _HEREDOC.match(arg)
            collected: list[str] = []
            if heredoc:
                arg, mark = heredoc["arg"], heredoc["mark"]
                while i < len(lines) and lines[i] != mark:
                    collected.append(lines[i])
                    i += 1
                closed = i < len(lines)
                i += 1
                if not closed:
                    requests.append(Request(MALFORMED, f"{mark} never closes the body", echo,
                                            line=number, request_id=match["id"]))  # fmt: skip
                    continue
                body = _finish_body(collected, trim=False)
            else:
                ended = False
                while i < len(lines):
                    inner = _command(lines[i])
                    if inner and inner["name"] == "end" and not inner["arg"]:
                        ended = True
                        i += 1
                        break
                    if inner and _known(inner["name"]):
                        break
                    collected.append(lines[i])
                    i += 1
                if collected or ended:
                    body = _finish_body(collected, trim=not ended)
                    if not body and not ended:
                        body = None
        requests.append(Request(name, arg, echo, body, number, match["id"]))
    return requests


def parse_line(text: str) -> Request:
    """One command written on one line (the ``%op`` magic); a body follows ``<<`` never."""
    requests = parse_script(text.strip("\n"))
    if len(requests) != 1:
        raise CommandError(codes.USAGE, "give exactly one command on one line.")
    return requests[0]


def expand(text: str, variables: dict[str, str]) -> str:
    """Replace ``{name}`` by the value of a defined variable; unknown names stay as written."""
    return _VARIABLE.sub(lambda m: variables.get(m[1], m[0]), text)


def parse_set(arg: str) -> tuple[str, str]:
    """``{name} = "value"`` (or ``name = value``) -> (name, value).

    A quoted value is a JSON string (``\\n``, ``\\"`` and the like are escapes).
    """
    match = _SET.match(arg.strip())
    if not match:
        raise CommandError(codes.USAGE, 'write /set {name} = "value", or /set alone to list.')
    value = match["value"].strip()
    if value.startswith('"'):
        try:
            decoded = json.loads(value)
        except ValueError:
            raise CommandError(
                codes.USAGE, "the quoted value is not closed or has a bad escape."
            ) from None
        if not isinstance(decoded, str):
            raise CommandError(codes.USAGE, "give one quoted value.")
        value = decoded
    return match["name"], value


def quote(value: str) -> str:
    """A variable's value as it is shown: a JSON string."""
    return json.dumps(value, ensure_ascii=False)


def split_address(target: str) -> tuple[str, str | None]:
    """``notes.md#Setup`` -> (``notes.md``, ``Setup``); no ``#`` -> (path, None)."""
    path, sep, block = target.strip().partition("#")
    if sep and not block.strip():
        raise CommandError(codes.USAGE, "a # must be followed by a heading: path#Heading.")
    return path.strip(), (block.strip() if sep else None)


def parse_flags(arg: str) -> dict[str, str | bool]:
    """``--file answers.md --strict --n=3`` -> {"file": "answers.md", "strict": True, "n": "3"}."""
    try:
        tokens = shlex.split(arg)
    except ValueError as exc:
        raise CommandError(codes.USAGE, f"cannot read the flags ({exc}).") from None
    flags: dict[str, str | bool] = {}
    k = 0
    while k < len(tokens):
        token = tokens[k]
        k += 1
        if not token.startswith("--") or len(token) < 3:
            raise CommandError(codes.USAGE, f"expected a flag like --name, got {token!r}.")
        name, eq, value = token[2:].partition("=")
        if eq:
            flags[name] = value
        elif k < len(tokens) and not tokens[k].startswith("--"):
            flags[name] = tokens[k]
            k += 1
        else:
            flags[name] = True
    return flags
