"""Actions and menus a person registers in Python for a command session.

An action is a function called by ``/act.name --flag value``. Its schema names the flags:
``{"file": {"type": "path", "required": True, "help": "the answers"}}``; a plain string
stands for an optional ``str`` flag with that help. Types: ``str``, ``int``, ``float``,
``bool``, ``path`` (a path inside the workspace, checked through the jail before the call).

The function returns text (the response is that text), a :class:`Doc` (the response opens
that document, like ``/open``), or None.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ...dialects.commands import codes
from ...dialects.commands.parse import CommandError

TYPES = ("str", "int", "float", "bool", "path")
_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


@dataclass(frozen=True)
class Doc:
    """What an action returns to open a document: ``Doc("notes.md", "Feedback")``."""

    path: str
    block: str | None = None


@dataclass(frozen=True)
class Flag:
    name: str
    type: str = "str"
    required: bool = False
    help: str = ""
    default: Any = None


@dataclass(frozen=True)
class Action:
    """A registered action: its function, flags and one-line description."""

    name: str
    fn: Callable[..., Any]
    flags: tuple[Flag, ...] = ()
    description: str = ""

    def schema_text(self) -> str:
        """The flags as ``/act.name --help`` prints them."""
        lines = [f"/act.{self.name}" + "".join(
            f" --{f.name} {f.type.upper()}" if f.required else f" [--{f.name}"
            + ("" if f.type == "bool" else f" {f.type.upper()}") + "]"
            for f in self.flags
        )]  # fmt: skip
        if self.description:
            lines.append(self.description)
        for f in self.flags:
            extra = "required" if f.required else (
                f"default {f.default!r}" if f.default is not None else "optional")  # fmt: skip
            lines.append(
                f"  --{f.name:<12} {f.type:<6} {extra}" + (f"  {f.help}" if f.help else "")
            )
        if not self.flags:
            lines.append("  (no flags)")
        return "\n".join(lines)


def check_name(name: str, kind: str) -> str:
    """A name usable after ``/act.`` or ``/nav``; ValueError otherwise."""
    if not name or not set(name) <= _NAME_CHARS or len(name) > 64:
        raise ValueError(f"{kind} name {name!r}: use letters, digits, _ and - only")
    return name


def make_action(name: str, fn: Callable[..., Any], schema: Mapping[str, Any] | None,
                description: str | None) -> Action:  # fmt: skip
    """Validate a registration; ValueError names what is wrong."""
    check_name(name, "action")
    if not callable(fn):
        raise ValueError("the action must be callable")
    flags = []
    for flag_name, spec in (schema or {}).items():
        check_name(flag_name, "flag")
        if isinstance(spec, str):
            spec = {"help": spec}
        spec = dict(spec)
        unknown = set(spec) - {"type", "required", "help", "default"}
        if unknown:
            raise ValueError(f"flag {flag_name}: unknown keys {sorted(unknown)}")
        if spec.get("type", "str") not in TYPES:
            raise ValueError(f"flag {flag_name}: type must be one of {', '.join(TYPES)}")
        flags.append(Flag(flag_name, **spec))
    doc = description if description is not None else (inspect.getdoc(fn) or "").split("\n")[0]
    return Action(name, fn, tuple(flags), doc)


def bind(action: Action, given: Mapping[str, str | bool],
         check_path: Callable[[str], str]) -> dict[str, Any]:  # fmt: skip
    """Keyword arguments for the action from the flags given; CommandError(USAGE) if wrong."""
    known = {f.name: f for f in action.flags}
    for name in given:
        if name not in known:
            raise CommandError(codes.USAGE, f"/act.{action.name} has no flag --{name}; "
                               f"/act.{action.name} --help lists them.")  # fmt: skip
    kwargs: dict[str, Any] = {}
    for flag in action.flags:
        if flag.name not in given:
            if flag.required:
                raise CommandError(codes.USAGE, f"/act.{action.name} needs --{flag.name}.")
            if flag.default is not None:
                kwargs[flag.name] = flag.default
            continue
        value = given[flag.name]
        if flag.type == "bool":
            if value is True or str(value).lower() in ("true", "yes", "1"):
                kwargs[flag.name] = True
            elif str(value).lower() in ("false", "no", "0"):
                kwargs[flag.name] = False
            else:
                raise CommandError(codes.USAGE, f"--{flag.name} is a switch (true or false).")
            continue
        if value is True:
            raise CommandError(codes.USAGE, f"--{flag.name} needs a value.")
        try:
            if flag.type == "int":
                kwargs[flag.name] = int(value)
            elif flag.type == "float":
                kwargs[flag.name] = float(value)
            elif flag.type == "path":
                kwargs[flag.name] = check_path(value)
            else:
                kwargs[flag.name] = value
        except ValueError:
            raise CommandError(codes.USAGE, f"--{flag.name} must be {flag.type}.") from None
    return kwargs


def wants_session(fn: Callable[..., Any]) -> bool:
    """True when the function takes a ``session`` argument (it is passed the session)."""
    try:
        return "session" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


@dataclass(frozen=True)
class Menu:
    """A named list of (label, command) entries shown by ``/nav name``."""

    name: str
    entries: tuple[tuple[str, str], ...]
    title: str = ""


def make_menu(name: str, entries: Iterable[Any], title: str | None) -> Menu:
    """Validate a menu: entries are ``(label, command)`` pairs or ``{"label", "command"}``."""
    check_name(name, "menu")
    if name == "scaffold":
        raise ValueError("'scaffold' is reserved (/nav scaffold shows a template)")
    pairs = []
    for entry in entries:
        if isinstance(entry, Mapping):
            entry = (entry["label"], entry["command"])
        label, command = entry
        if not str(command).startswith("/"):
            raise ValueError(f"menu entry {label!r}: the command must start with /")
        pairs.append((str(label), str(command)))
    return Menu(name, tuple(pairs), title or "")


@dataclass
class Registry:
    """The actions and menus of one session."""

    actions: dict[str, Action] = field(default_factory=dict)
    menus: dict[str, Menu] = field(default_factory=dict)
