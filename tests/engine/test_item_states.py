"""The table of an item's statuses (engine/item_states.py) and Item.move_to, its only door."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from jupyter_operator.engine import EngineError, IllegalTransition, Item
from jupyter_operator.engine.item_states import FINAL, STATUSES, TRANSITIONS

PACKAGE = Path(__file__).resolve().parents[2] / "jupyter_operator"

ALLOWED = sorted((old, new) for old, targets in TRANSITIONS.items() for new in targets)
FORBIDDEN = sorted((old, new) for old in STATUSES for new in STATUSES
                   if new not in TRANSITIONS[old])  # fmt: skip


def make(status: str) -> Item:
    return Item(0, "w1", "fs.write", "a.txt", 1, "mutation", status, "")  # type: ignore[arg-type]


@pytest.mark.parametrize(("old", "new"), ALLOWED, ids=lambda s: s)
def test_every_allowed_transition_moves_the_item(old: str, new: str) -> None:
    item = make(old)
    item.move_to(new)  # type: ignore[arg-type]
    assert item.status == new


@pytest.mark.parametrize(("old", "new"), FORBIDDEN, ids=lambda s: s)
def test_every_other_transition_is_refused_and_leaves_the_status(old: str, new: str) -> None:
    item = make(old)
    with pytest.raises(IllegalTransition) as raised:
        item.move_to(new)  # type: ignore[arg-type]
    assert item.status == old
    assert (raised.value.old, raised.value.new) == (old, new)


@pytest.mark.parametrize(("old", "new"), [
    ("done", "pending"),  # a result given to the model is never taken back
    ("rejected", "applied"),  # a refused change is never written afterwards
    ("denied", "pending"),  # a rule's refusal is not turned into a question
    ("pending", "undone"),  # only what was applied can be undone
    ("undone", "running"),  # an undone change's cell does not run
    ("applied", "applied"),  # the same status is no transition (rule 3)
    ("pending", "finished"),  # not a status at all
])  # fmt: skip
def test_named_forbidden_transitions_raise_the_engine_error_with_its_code(old: str,
                                                                         new: str) -> None:
    item = make(old)
    with pytest.raises(EngineError) as raised:
        item.move_to(new)  # type: ignore[arg-type]
    assert raised.value.code == "illegal_transition"
    assert raised.value.status_hint == 409
    assert repr(old) in str(raised.value) and repr(new) in str(raised.value)


def test_assigning_the_status_directly_is_refused() -> None:
    item = make("pending")
    with pytest.raises(IllegalTransition, match="move_to"):
        item.status = "applied"  # type: ignore[misc]
    assert item.status == "pending"


def test_the_table_covers_every_status_and_final_ones_have_no_exit() -> None:
    assert set(TRANSITIONS) == STATUSES
    assert all(targets <= STATUSES for targets in TRANSITIONS.values())
    assert all(not TRANSITIONS[status] for status in FINAL)
    assert all(TRANSITIONS[status] for status in STATUSES - FINAL)
    # Nothing moves back to waiting or pending except through the queue's release.
    assert {old for old, new in ALLOWED if new == "pending"} == {"waiting"}


def _status_stores(path: Path) -> list[tuple[int, str]]:
    """Where a module assigns an attribute named ``status`` (line, the object's source)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            for sub in ast.walk(target):
                if (isinstance(sub, ast.Attribute) and sub.attr == "status"
                        and isinstance(sub.ctx, ast.Store)):  # fmt: skip
                    found.append((node.lineno, ast.unparse(sub.value)))
    return found


# Objects with a ``status`` of their own (not an item's): a shell command's state, a dialect's
# reply, an HTTP error, and widget labels.
NOT_ITEMS = {
    ("engine/items.py", "Item"),  # the class's status guard, set once the dataclass is made
    ("engine/shell_ops.py", "state"),
    ("engine/commands/bash.py", "state"),
    ("engine/commands/command_session.py", "reply"),
    ("server/errors.py", "self"),
    ("widgets/agent_view.py", "self"),
    ("widgets/copybox.py", "self"),
}


def test_no_module_assigns_an_item_status() -> None:
    stores = [(str(path.relative_to(PACKAGE)), line, owner)
              for path in sorted(PACKAGE.rglob("*.py")) if "labextension" not in path.parts
              for line, owner in _status_stores(path)]  # fmt: skip
    assert stores, "the check finds no status assignment at all"
    direct = [s for s in stores if (s[0], s[2]) not in NOT_ITEMS]
    assert direct == [], "use Item.move_to"
