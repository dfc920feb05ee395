"""Which actions run without asking, which ask, and which are refused: an ordered list of rules.

A policy is a person's decision made in advance, so it lives on the host side only: nothing in a
model's reply can change it, and a rules file inside the workspace (which a model could edit) is
refused. Rules are tried in order and the first whose ACTION and PATHGLOB both match decides;
when none does, reads run (``default: auto reads``) and everything else asks (``default: ask``).
A path that is not a valid workspace path never runs without asking: only ``deny`` rules apply
to it. Code (a cell run, a kernel restart, a shell command) runs without asking only under a rule
that names it, and never while a ``deny`` rule limits the files: code is bound by no file rule,
so such a run asks (``unbound_by_code``), and so does a command the shell policy allows
(``command_decision``). The grammar is in ``rules.py``, glob semantics in
``globs.py``, the guide in docs/rules.md.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from ..protocol import RUN_ACTIONS
from ..workspace import inside, read_rules_file
from .globs import normalise_path
from .rules import (
    FILE_ACTIONS,
    GROUPS,
    Rule,
    RulesError,
    Verdict,
    expand,
    parse_line,
    parse_rules,
)
from .shell_policy import ShellDecision

__all__ = ["GROUPS", "Policy", "RulesError", "RulesFileInWorkspace", "Verdict", "expand"]


class RulesFileInWorkspace(ValueError):
    """A rules file inside the workspace it governs: a model could rewrite its own approvals."""


def _legacy_rules(auto: Iterable[str], deny: Iterable[str]) -> list[Rule]:
    """The rules ``Policy(auto=..., deny=...)`` stands for: deny first (it wins), then auto."""
    auto, deny = sorted(set(auto)), sorted(set(deny))
    expand(auto)
    expand(deny)
    rules = [Rule.make("deny", name) for name in deny]
    rules += [Rule.make("auto", name) for name in auto]
    if not GROUPS["reads"] <= expand(auto):
        rules.append(Rule.make("ask", "reads"))  # the old form asked for reads it did not list
    return rules


class Policy:
    """An ordered list of rules; ``verdict(action, path)`` says what happens to one action.

    ``Policy()`` has no rules (the defaults decide). ``Policy(rules)`` takes ``Rule`` objects or
    rule lines (or one text of rule lines). The older form
    ``Policy(auto={"reads", "fs.write"}, deny={"fs.delete"})`` keeps working: it stands for
    ``deny`` rules, then ``auto`` rules, over every path.
    """

    __slots__ = ("rules", "sources")

    def __init__(self, rules: Iterable[Rule | str] = (), *, auto: Iterable[str] | None = None,
                 deny: Iterable[str] | None = None,
                 sources: Iterable[str] = ()) -> None:  # fmt: skip
        if isinstance(rules, str):  # rule lines as one text, not a list of characters
            rules = parse_rules(rules)
        parsed: list[Rule] = []
        for rule in rules:
            if isinstance(rule, str):
                one = parse_line(rule)
                if one is not None:
                    parsed.append(one)
            else:
                parsed.append(rule)
        if auto is not None or deny is not None:
            parsed += _legacy_rules({"reads"} if auto is None else auto, deny or ())
        self.rules: tuple[Rule, ...] = tuple(parsed)
        #: Real paths of the rules files this policy was read from (kept out of every workspace).
        self.sources: tuple[str, ...] = tuple(sources)

    def __repr__(self) -> str:
        return f"Policy({[rule.text for rule in self.rules]!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Policy):
            return NotImplemented
        return self.texts == other.texts and self.sources == other.sources

    def __hash__(self) -> int:
        return hash((self.texts, self.sources))

    @property
    def texts(self) -> tuple[str, ...]:
        """Each rule's text, in order."""
        return tuple(rule.text for rule in self.rules)

    # -- deciding -------------------------------------------------------------------------------
    def verdict(self, action: str, path: str | None = None) -> Verdict:
        """``auto``, ``ask`` or ``deny`` for ``action`` on ``path``, and the rule that said so.

        ``path`` is matched in its normalised workspace-relative form (``globs.normalise_path``);
        an action without a path matches only rules whose glob is ``**``. A run (``runs``) is
        approved only by a rule naming it (``Rule.covers``), and asks instead while a ``deny``
        rule limits the files (:meth:`unbound_by_code`).
        """
        norm = normalise_path(path)
        invalid = bool(path) and norm is None
        for index, rule in enumerate(self.rules, 1):
            if invalid and rule.verdict != "deny":
                continue  # an escaping path never runs without asking
            if rule.covers(action) and rule.glob.matches(norm):
                text = f"rule {index}: {rule.text}"
                unbound = self.unbound_by_code() if action in RUN_ACTIONS else None
                if rule.verdict == "auto" and unbound is not None:
                    return Verdict("ask", index, f"{text}, but {unbound}")
                return Verdict(rule.verdict, index, text)
        if action in GROUPS["reads"] and not invalid:
            return Verdict("auto", None, "default: auto reads")
        return Verdict("ask", None, "default: ask")

    def unbound_by_code(self) -> str | None:
        """Why code may not run without asking here, or None: the first ``deny`` rule on the
        workspace's files (``rule 1: deny writes src/** binds files, not code that runs``).

        A cell or a shell command can read, write and delete any file the sandbox lets it, so
        while a rule refuses some file action, every run asks, even one a rule would approve.
        """
        for index, rule in enumerate(self.rules, 1):
            if rule.verdict == "deny" and any(rule.covers(a) for a in FILE_ACTIONS):
                return f"rule {index}: {rule.text} binds files, not code that runs"
        return None

    def command_decision(self, decision: ShellDecision) -> ShellDecision:
        """The shell policy's ``decision`` on a command, held back by these rules: a command an
        ``allow`` rule would run asks while :meth:`unbound_by_code` names a ``deny`` rule (a
        command, like a cell, is bound by no file rule)."""
        unbound = self.unbound_by_code() if decision.verdict == "run" else None
        if unbound is None:
            return decision
        return ShellDecision("ask", f"{decision.rule}, but {unbound}",
                             "Shell command requires approval: the workspace's rules limit "
                             "files, and a command is not bound by them")  # fmt: skip

    def hidden(self, *actions: str) -> Callable[[str], bool] | None:
        """A test for the paths below a searched or listed folder that any of ``actions`` may
        not touch (a ``deny`` rule matches them), or None when no rule can deny one.

        Searches and listings skip these paths: a rule applies to every path an action
        touches, not only to the one it names (a search reads every file it looks in, so it
        passes ``fs.read`` too).
        """
        if not any(r.verdict == "deny" and r.covers(a) for r in self.rules for a in actions):
            return None
        return lambda path: any(self.verdict(a, path).verdict == "deny" for a in actions)

    def verdict_all(self, action: str, path: str, touched: Iterable[str]) -> Verdict:
        """The verdict for ``action`` on ``path`` and on every path it also ``touched``
        (each entry a folder delete would move): a ``deny`` for any of them denies the whole
        action, an ``ask`` for any asks, and only when all say ``auto`` does it run."""
        top = self.verdict(action, path)
        if top.verdict == "deny" or not self.rules:
            return top
        asked: Verdict | None = None
        for below in touched:
            found = self.verdict(action, below)
            if found.verdict == "deny":
                return Verdict("deny", found.index, f"{found.text}, for {below}")
            if found.verdict == "ask" and asked is None and top.verdict == "auto":
                asked = Verdict("ask", found.index, f"{found.text}, for {below}")
        return asked or top

    def is_denied(self, action: str) -> bool:
        """Path-independent check kept for older callers: a rule refuses ``action`` outright.

        New code calls :meth:`verdict` with the path.
        """
        return self.verdict(action).verdict == "deny"

    def runs_without_asking(self, action: str) -> bool:
        """Path-independent check kept for older callers; new code calls :meth:`verdict`."""
        return self.verdict(action).verdict == "auto"

    def rule_for(self, action: str) -> str | None:
        """Kept for older callers: the text of the verdict for ``action`` on any path."""
        return self.verdict(action).text

    # -- the older two-set view -----------------------------------------------------------------
    @property
    def auto(self) -> frozenset[str]:
        """Actions and groups an ``auto`` rule covers on every path (the older view)."""
        return self._everywhere("auto")

    @property
    def deny(self) -> frozenset[str]:
        """Actions and groups a ``deny`` rule refuses on every path (the older view)."""
        return self._everywhere("deny")

    def _everywhere(self, verdict: str) -> frozenset[str]:
        everywhere = [r for r in self.rules if r.verdict == verdict and r.glob.text == "**"]
        return frozenset(r.action for r in everywhere)

    def only_denials(self) -> Policy:
        """The same ``deny`` rules and nothing else (a dry run: reads run, changes are shown)."""
        return Policy([r for r in self.rules if r.verdict == "deny"], sources=self.sources)

    # -- building -------------------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str, *, source: str | None = None) -> Policy:
        """Rules, one per line (``#`` comments); :class:`RulesError` names each bad line.

        The older one-line form ``"auto=reads,writes deny=fs.delete"`` (``none`` for the empty
        set) is still read when the text starts with ``auto=`` or ``deny=``.
        """
        stripped = text.lstrip()
        if stripped.startswith(("auto=", "deny=")):
            return cls._parse_legacy(stripped)
        return cls(parse_rules(text, source))

    @classmethod
    def _parse_legacy(cls, text: str) -> Policy:
        parts: dict[str, list[str]] = {}
        for token in text.replace(";", " ").split():
            key, sep, value = token.partition("=")
            if not sep or key not in ("auto", "deny"):
                raise ValueError(f"expected auto=... or deny=..., got {token!r}")
            parts[key] = [n for n in value.split(",") if n and n != "none"]
        return cls(auto=parts.get("auto", ["reads"]), deny=parts.get("deny", []))

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Policy:
        """The rules of a rules file (host side; see ``workspace.read_rules_file``).

        Raises OSError when it cannot be read and :class:`RulesError` (naming the file and the
        line) when a rule is bad.
        """
        real, text = read_rules_file(path)
        policy = cls.parse(text, source=Path(path).name)
        return cls(policy.rules, sources=(real,))

    @classmethod
    def from_options(cls, *, file: str | os.PathLike[str] | None = None,
                     rules: Iterable[str] = (), text: str | None = None) -> Policy:  # fmt: skip
        """The policy a host's options give: ``file``'s rules, then each of ``rules`` (one rule
        each: ``--rule``, ``policy_rules``), then ``text`` (rule lines or the older one-line
        form). Rule numbers run on across all three. OSError / :class:`RulesError` as in
        :meth:`load` and :meth:`parse`; a bad entry of ``rules`` is named by its position.
        """
        policy = cls.load(file) if file else cls()
        rules = list(rules)
        if rules:
            extra: list[Rule] = []
            errors: list[tuple[int, str]] = []
            for number, line in enumerate(rules, 1):
                try:
                    rule = parse_line(line)
                except ValueError as exc:
                    errors.append((number, str(exc)))
                    continue
                if rule is None:
                    errors.append((number, "an empty rule"))
                else:
                    extra.append(rule)
            if errors:
                raise RulesError(errors, unit="rule")
            policy = policy.then(cls(extra))
        if text and text.strip():
            policy = policy.then(cls.parse(text))
        return policy

    def then(self, other: Policy) -> Policy:
        """This policy's rules followed by ``other``'s (numbering runs on)."""
        return Policy(self.rules + other.rules, sources=self.sources + other.sources)

    def check_outside(self, root: str | os.PathLike[str]) -> None:
        """Raise :class:`RulesFileInWorkspace` when a rules file lies inside ``root``."""
        for source in self.sources:
            if inside(source, root):
                raise RulesFileInWorkspace(
                    f"the rules file {Path(source).name} is inside the workspace, where a model "
                    "could rewrite its own approvals; keep rules files outside the workspace"
                )

    # -- showing --------------------------------------------------------------------------------
    def describe(self) -> str:
        """The rules as text that :meth:`parse` accepts (one per line; empty: the defaults)."""
        return "\n".join(self.texts)

    def summary(self) -> str:
        """The rules on one line, numbered (for a header, a repr, a transcript)."""
        if not self.rules:
            return "no rules (reads run, every change asks)"
        return "; ".join(f"{i}: {text}" for i, text in enumerate(self.texts, 1))

    def numbered(self) -> str:
        """The rules one per line with their numbers and the default (what ``policy`` shows)."""
        lines = [f"{i:>3}  {text}" for i, text in enumerate(self.texts, 1)]
        lines.append("  -  default: auto reads, ask for every change")
        return "\n".join(lines)
