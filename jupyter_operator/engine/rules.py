"""Policy rules: ``auto|ask|deny [ACTION] [PATHGLOB]``, one per line, parsed with line numbers.

The grammar (docs/rules.md has the whole story)::

    rule     := VERDICT ACTION PATHGLOB | VERDICT ACTION | VERDICT PATHGLOB
    VERDICT  := auto | ask | deny
    ACTION   := an action name (fs.write), a group (reads, writes, deletes, mutations, runs,
                all) or *
    PATHGLOB := a glob (engine/globs.py); ** when left out

Code that runs (``runs``: ``nb.runCell``, ``nb.restartKernel``, ``nb.rebuildState``) is bound by no
file rule, so only a rule that names it may approve it: an ``auto`` rule whose ACTION is one of
those names, ``runs`` or ``all``. ``*`` and a bare path never approve a run (in ``ask`` and
``deny`` rules they still cover runs: asking or refusing is always safe).

With a single argument, it is the ACTION when it is ``*``, a group or an action name, and the
PATHGLOB when it holds ``/`` or a glob character (``*``, ``?``, ``[``); anything else (a plain
``notes.md``, a misspelt ``fs.wirte``) is an error, so a typo never silently widens a rule.
Words are split on spaces; a glob with spaces is quoted (``"my notes/**"``); ``#`` starts a
comment at the start of a word.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from ..protocol import (
    ACTIONS,
    CELL_READ_ACTIONS,
    CELL_WRITE_ACTIONS,
    DELETE_ACTIONS,
    RUN_ACTIONS,
    WRITE_ACTIONS,
)
from .globs import Glob, GlobError, compile_glob

VerdictName = Literal["auto", "ask", "deny"]
VERDICTS: tuple[VerdictName, ...] = ("auto", "ask", "deny")

#: Host extension actions (notebook cells) a rule may name even before a host enables them.
EXTENSION_READS = CELL_READ_ACTIONS
EXTENSION_WRITES = CELL_WRITE_ACTIONS
_READS = frozenset(ACTIONS) - frozenset(WRITE_ACTIONS) - frozenset(DELETE_ACTIONS)

#: Names that stand for a group of actions in a rule.
GROUPS: dict[str, frozenset[str]] = {
    # operator.* actions only answer questions, so they count as reads.
    "reads": _READS | EXTENSION_READS,
    # A cell action rewrites its notebook: a write, whatever it does to the cells.
    "writes": frozenset(WRITE_ACTIONS) | EXTENSION_WRITES,
    "deletes": frozenset(DELETE_ACTIONS),
    "mutations": frozenset(WRITE_ACTIONS) | frozenset(DELETE_ACTIONS) | EXTENSION_WRITES,
    # Running code is neither a read nor a write: only a rule naming runs approves it.
    "runs": RUN_ACTIONS,
    "all": frozenset(ACTIONS) | EXTENSION_READS | EXTENSION_WRITES | RUN_ACTIONS,
}
KNOWN_ACTIONS = GROUPS["all"]
#: The groups that name runs: with a run's own name, the only words of an ``auto`` rule that
#: approve code (``all`` says every action, runs included, in so many words).
RUN_GROUPS: frozenset[str] = frozenset({"runs", "all"})
#: Actions on the files of the workspace, which file rules bind and code that runs does not.
FILE_ACTIONS: frozenset[str] = frozenset(
    a for a in KNOWN_ACTIONS - RUN_ACTIONS if a.startswith(("fs.", "nb."))
)
_GLOB_CHARS = set("/*?[")
_SPACES = " \t\r\n"


class RulesError(ValueError):
    """Rules that cannot be parsed; ``errors`` holds ``(line, message)`` for each bad line."""

    def __init__(self, errors: list[tuple[int, str]], source: str | None = None,
                 unit: str = "line") -> None:  # fmt: skip
        self.errors = errors
        self.source = source
        where = f"{source} " if source else ""
        super().__init__("; ".join(f"{where}{unit} {line}: {msg}" for line, msg in errors))


def expand(names: Iterable[str]) -> frozenset[str]:
    """Turn group and action names into the set of action names they cover.

    Raises ValueError naming the first unknown entry, so a typo never silently widens or narrows
    what runs without asking.
    """
    actions: set[str] = set()
    for name in names:
        if name in GROUPS:
            actions |= GROUPS[name]
        elif name in KNOWN_ACTIONS:
            actions.add(name)
        else:
            known = ", ".join(sorted(GROUPS))
            raise ValueError(f"unknown action or group {name!r} (groups: {known}; or an action)")
    return frozenset(actions)


@dataclass(frozen=True)
class Rule:
    """One rule: its verdict, the action (name, group or ``*``), the glob, and its text."""

    verdict: VerdictName
    action: str
    glob: Glob
    text: str

    def covers(self, action: str) -> bool:
        """True when the rule's ACTION names ``action`` (``*`` names every action).

        An ``auto`` rule covers a run only when it names the run or a group of runs: ``*`` and a
        bare path approve no code, whatever else they approve (:data:`RUN_GROUPS`).
        """
        if action in RUN_ACTIONS and self.verdict == "auto":
            return self.action == action or self.action in RUN_GROUPS
        if self.action == "*":
            return True
        if self.action in GROUPS:
            return action in GROUPS[self.action]
        return action == self.action

    @classmethod
    def make(cls, verdict: VerdictName, action: str = "*", glob: str = "**") -> Rule:
        """A rule from its parts (checked as :func:`parse_rules` checks them)."""
        if verdict not in VERDICTS:
            raise ValueError(f"expected auto, ask or deny, got {verdict!r}")
        if action != "*":
            expand([action])
        return cls(verdict, action, compile_glob(glob), " ".join(_quote(w) for w in
                                                                  (verdict, action, glob)))


@dataclass(frozen=True)
class Verdict:
    """What a policy says about one action on one path, and which rule said it.

    ``index`` is the rule's 1-based position (None for the default); ``text`` is what cards
    show: ``"rule 2: auto fs.write notes/**"``, ``"default: ask"`` or ``"default: auto reads"``.
    """

    verdict: VerdictName
    index: int | None
    text: str


def _quote(word: str) -> str:
    return shlex.quote(word) if any(ch.isspace() or ch in "'\"#" for ch in word) else word


def _words(line: str) -> list[str]:
    """The words of a rule line: split on spaces and tabs, ``'...'`` and ``"..."`` group, a
    ``#`` starts a comment only at the start of a word (``secrets#old/**`` is one glob, not
    ``secrets`` and a comment: a rule is never cut short silently). No escape character: a
    backslash separates names in a glob. ValueError for an unclosed quote."""
    words: list[str] = []
    word: list[str] | None = None  # None: between words
    quote: str | None = None
    for ch in line:
        if quote is not None:
            if ch == quote:
                quote = None
            else:
                word.append(ch)  # type: ignore[union-attr]
        elif ch in _SPACES:
            if word is not None:
                words.append("".join(word))
                word = None
        elif ch == "#" and word is None:
            break
        else:
            word = [] if word is None else word
            if ch in "'\"":
                quote = ch
            else:
                word.append(ch)
    if quote is not None:
        raise ValueError("No closing quotation")
    if word is not None:
        words.append("".join(word))
    return words


def _is_action(word: str) -> bool:
    return word == "*" or word in GROUPS or word in KNOWN_ACTIONS


def parse_line(line: str) -> Rule | None:
    """One rule (None for a blank or comment line); ValueError with a one-line reason."""
    try:
        words = _words(line)
    except ValueError as exc:  # an unclosed quote
        raise ValueError(f"cannot split the line into words ({exc})") from None
    if not words:
        return None
    verdict, args = words[0], words[1:]
    if verdict not in VERDICTS:
        raise ValueError(f"expected auto, ask or deny, got {verdict!r}")
    if not args:
        raise ValueError(f"'{verdict}' needs an action, a path glob, or both")
    if len(args) > 2:
        raise ValueError(
            f"too many words ({len(words)}); a rule is VERDICT ACTION PATHGLOB "
            "(quote a glob that has spaces)"
        )
    if len(args) == 1:
        (arg,) = args
        if _is_action(arg):
            action, glob = arg, "**"
        elif _GLOB_CHARS & set(arg):
            action, glob = "*", arg
        else:
            raise ValueError(
                f"{arg!r} is not an action or a group (groups: {', '.join(sorted(GROUPS))}); "
                f"to match a path, write '{verdict} * {arg}'"
            )
    else:
        action, glob = args
        if not _is_action(action):
            raise ValueError(
                f"unknown action or group {action!r} (groups: {', '.join(sorted(GROUPS))}; "
                "or an action name, or *)"
            )
    try:
        compiled = compile_glob(glob)
    except GlobError as exc:
        raise ValueError(str(exc)) from None
    return Rule(verdict, action, compiled, " ".join(_quote(w) for w in words))  # type: ignore[arg-type]


def parse_rules(text: str, source: str | None = None) -> tuple[Rule, ...]:
    """Every rule of ``text``, in order; :class:`RulesError` lists each bad line by number."""
    rules: list[Rule] = []
    errors: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        try:
            rule = parse_line(line)
        except ValueError as exc:
            errors.append((number, str(exc)))
            continue
        if rule is not None:
            rules.append(rule)
    if errors:
        raise RulesError(errors, source)
    return tuple(rules)


def rule_note(decided_by: str | None, rule: str | None, status: str | None) -> str | None:
    """What a card says about the rule behind an item or a history entry, or None.

    ``"auto-approved by rule 2: auto fs.write notes/**"``, ``"denied by rule 1: deny ..."``,
    ``"asked by default: ask"`` (a pending item), None when a person decided.
    """
    if not rule:
        return None
    if status == "denied":
        return f"denied by {rule}"
    if decided_by == "rule":
        return f"auto-approved by {rule}"
    if status == "pending":
        return f"asked by {rule}"
    return None
