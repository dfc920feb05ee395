"""A script of string commands seen as a run (what the server and the panel use)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from jupyter_operator.engine import Operator
from jupyter_operator.engine.commands import CommandRun, run_commands
from jupyter_operator.engine.errors import UnknownItem

SCRIPT = "/write a.md\nA\n/end\n/append a.md\nB\n/end\n/open a.md\n/nope"


@pytest.fixture
def operator(make_operator: Callable[..., Operator]) -> Iterator[Operator]:
    op = make_operator()
    yield op
    op.close()


def test_one_item_per_request_in_order(operator: Operator) -> None:
    run = run_commands(operator, SCRIPT)
    assert isinstance(run, CommandRun) and run.dialect == "commands" and not run.done
    items = run.items
    assert [(i.index, i.kind, i.status) for i in items] == [
        (0, "mutation", "pending"), (1, "read", "waiting"), (2, "read", "waiting"),
        (3, "read", "waiting"),
    ]  # fmt: skip
    assert [i.id for i in run.pending] == [items[0].id]
    tag = run.session.tag
    assert [i.id for i in items] == [f"00{n}{tag}" for n in range(1, 5)]
    assert items[1].summary == f"runs after {items[0].id} is decided: /append a.md"


def test_approve_all_approves_only_what_was_shown(operator: Operator) -> None:
    run = run_commands(operator, SCRIPT)
    decided = run.approve_all()
    # The /append came up after the call: its diff was never shown, so it waits.
    assert [d.outcome for d in decided] == ["applied"] and not run.done
    assert [i.id for i in run.pending] == [run.items[1].id]
    assert [d.outcome for d in run.approve_all()] == ["applied"] and run.done
    assert (operator.root / "a.md").read_text() == "A\nB\n"
    items = run.items
    assert items[1].details.endswith("Appended to: a.md (now 4 bytes)")
    assert items[2].status == "done" and items[2].path == "a.md"
    # A command written the wrong way is invalid (as a block that fails validation).
    assert (items[3].kind, items[3].status) == ("error", "error")
    assert items[3].error_code == "UNKNOWN_COMMAND"
    assert run.results_text == run.batch.text and run.results_text.count("re: [") == 4


def test_a_valid_command_that_cannot_run_failed_and_a_malformed_one_is_invalid(
    operator: Operator,
) -> None:
    run = run_commands(operator, "/open missing.md\n/open\n/bogus")
    assert [(i.kind, i.status, i.error_code) for i in run.items] == [
        ("read", "failed", "NOT_FOUND"), ("error", "error", "USAGE"),
        ("error", "error", "UNKNOWN_COMMAND"),
    ]  # fmt: skip


def test_reject_all_and_decisions_on_decided_or_unknown_items(operator: Operator) -> None:
    run = run_commands(operator, SCRIPT)
    first = run.items[0].id
    decided = run.reject_all("no")
    # /append of the file that was never written is a new proposal: rejected as well.
    assert [d.outcome for d in decided] == ["rejected", "rejected"] and run.done
    assert not (operator.root / "a.md").exists()
    assert run.approve(first).outcome == "already_decided"
    with pytest.raises(UnknownItem):
        run.approve("nothing")
