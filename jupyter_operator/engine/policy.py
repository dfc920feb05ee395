"""Which actions run without asking and which are refused outright.

A policy is a person's decision made in advance, so it lives on the host side only: nothing in a
model's reply can change it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..protocol import (
    ACTIONS,
    CELL_ACTIONS,
    CELL_READ_ACTIONS,
    CELL_WRITE_ACTIONS,
    DELETE_ACTIONS,
    WRITE_ACTIONS,
)

#: Names that stand for a group of actions in a policy. The notebook cell actions (a host
#: extension) count as a read (nb.readCells) and as writes: a cell change rewrites one file.
GROUPS: dict[str, frozenset[str]] = {
    # operator.* actions only answer questions, so they count as reads.
    "reads": frozenset(ACTIONS) - frozenset(WRITE_ACTIONS) - frozenset(DELETE_ACTIONS)
    | CELL_READ_ACTIONS,
    "writes": frozenset(WRITE_ACTIONS) | CELL_WRITE_ACTIONS,
    "deletes": frozenset(DELETE_ACTIONS),
    "mutations": frozenset(WRITE_ACTIONS) | frozenset(DELETE_ACTIONS) | CELL_WRITE_ACTIONS,
    "all": frozenset(ACTIONS) | CELL_ACTIONS,
}


def expand(names: Iterable[str]) -> frozenset[str]:
    """Turn group and action names into the set of action names they cover.

    Raises ValueError naming the first unknown entry, so a typo never silently widens or narrows
    what runs without asking.
    """
    actions: set[str] = set()
    for name in names:
        if name in GROUPS:
            actions |= GROUPS[name]
        elif name in ACTIONS or name in CELL_ACTIONS:
            actions.add(name)
        else:
            known = ", ".join(sorted(GROUPS))
            raise ValueError(f"unknown action or group {name!r} (groups: {known}; or an action)")
    return frozenset(actions)


@dataclass(frozen=True)
class Policy:
    """What runs without asking (``auto``) and what is refused (``deny``).

    Entries are action names (``fs.write``) or groups (``reads``, ``writes``, ``deletes``,
    ``mutations``, ``all``). ``deny`` wins over ``auto``. The default runs reads at once and asks
    for every mutation.
    """

    auto: frozenset[str] = field(default_factory=lambda: frozenset({"reads"}))
    deny: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        object.__setattr__(self, "auto", frozenset(self.auto))
        object.__setattr__(self, "deny", frozenset(self.deny))
        expand(self.auto)
        expand(self.deny)

    def is_denied(self, action: str) -> bool:
        """True when the person has refused this action in advance."""
        return action in expand(self.deny)

    def runs_without_asking(self, action: str) -> bool:
        """True when the action needs no click (and is not denied)."""
        return action in expand(self.auto) and not self.is_denied(action)

    def rule_for(self, action: str) -> str | None:
        """The entry that decides ``action`` without asking (``deny=fs.delete``, ``auto=reads``).

        None when the action waits for a person.
        """
        for key, names in (("deny", self.deny), ("auto", self.auto)):
            for name in sorted(names):
                if action in expand([name]):
                    return f"{key}={name}"
        return None

    @classmethod
    def parse(cls, text: str) -> Policy:
        """Parse ``"auto=reads,writes deny=fs.delete"``; ``none`` stands for the empty set.

        Missing parts keep their defaults. Raises ValueError with a one-line message.
        """
        parts: dict[str, frozenset[str]] = {}
        for token in text.replace(";", " ").split():
            key, sep, value = token.partition("=")
            if not sep or key not in ("auto", "deny"):
                raise ValueError(f"expected auto=... or deny=..., got {token!r}")
            names = [n for n in value.split(",") if n and n != "none"]
            expand(names)
            parts[key] = frozenset(names)
        return cls(**parts)

    def describe(self) -> str:
        """The policy as text that ``parse`` accepts."""
        auto = ",".join(sorted(self.auto)) or "none"
        deny = ",".join(sorted(self.deny)) or "none"
        return f"auto={auto} deny={deny}"
