"""What a person reads: one badge word per outcome, sentences without the model's format."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from jupyter_operator.engine.items import Status
from jupyter_operator.engine.labels import BADGES, badge, outcome_line, person_text
from jupyter_operator.protocol import OperatorError, Result, codes

STATE_TS = Path(__file__).resolve().parents[2] / "labextension" / "src" / "state.ts"


def fault_summary(code: str, message: str) -> str:
    return OperatorError(code, message).summary


def test_every_status_has_its_own_badge() -> None:
    assert set(BADGES) == set(Status.__args__)  # type: ignore[attr-defined]
    assert len(set(BADGES.values())) == len(BADGES)
    # The outcome kinds, one word each.
    assert [BADGES[s] for s in ("error", "failed", "denied", "rejected", "stale", "undone")] == [
        "Invalid", "Failed", "Denied", "Rejected", "Stale", "Undone",
    ]  # fmt: skip
    assert badge("something-new") == "something-new"


def test_the_panel_uses_the_same_table() -> None:
    source = STATE_TS.read_text(encoding="utf-8")
    table = source[source.index("STATUS_LABELS") :]
    table = table[: table.index("};")]
    found = dict(re.findall(r"^\s*(\w+): '([^']*)',?$", table, re.MULTILINE))
    assert found == BADGES


@pytest.mark.parametrize(
    ("summary", "text"),
    [
        (fault_summary(codes.ERR_NOT_FOUND, "nothing to undo in this workspace."),
         "nothing to undo in this workspace."),
        (fault_summary(codes.ERR_REJECTED, "nothing was changed. Reason: too big"),
         "nothing was changed. Reason: too big."),
        (fault_summary(codes.ERR_POLICY_DENIED, "fs.delete is not allowed (rule 1)."),
         "fs.delete is not allowed (rule 1)."),
        (fault_summary(codes.ERR_STALE_PREVIEW, "a.txt changed"), "a.txt changed."),
        ("ERROR(NOT_FOUND): File not found: x.md", "File not found: x.md."),
        ("Wrote file", "Wrote file"),  # not a model format: left as it is
        ("File too large for fs.read (300000 bytes). Use fs.readSlice.",
         "File too large for fs.read (300000 bytes). Use fs.readSlice."),
    ],
)  # fmt: skip
def test_person_text_drops_the_model_prefix_and_code(summary: str, text: str) -> None:
    assert person_text(summary) == text


def test_outcome_line_reads_the_result() -> None:
    class Item:
        status = "failed"
        summary = "planned"
        result = Result.failure("w1", codes.ERR_NOT_FOUND, "notes.txt does not exist")

    assert outcome_line(Item()) == "Failed: notes.txt does not exist."
