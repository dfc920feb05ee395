"""The corpus of model replies: every leak, stop and near miss is handled within one turn."""

from __future__ import annotations

from collections import Counter

from support.model_corpus import load, run_all


def test_the_corpus_holds_every_family_stop_and_near_miss() -> None:
    kinds = Counter(entry["kind"] for entry in load())
    assert sum(kinds.values()) >= 150
    families = {kind.split(":")[1] for kind in kinds if kind.startswith("leak:")}
    assert {"openai", "hermes", "harmony", "deepseek", "kimi", "glm", "anthropic", "gemini",
            "gemma"} <= {family.split("-")[0] for family in families}  # fmt: skip
    assert {"stop:empty", "stop:promise", "stop:cut_off", "stop:refusal", "stop:question",
            "near:workspace", "near:b64-spaces", "near:curly-quotes", "fine"} <= set(kinds)


def test_every_reply_ends_as_intended_after_at_most_one_corrective_turn() -> None:
    outcomes = run_all()
    missed = [o for o in outcomes if not o.handled]
    assert missed == []
    for outcome in outcomes:
        if outcome.kind.startswith("leak:"):
            assert outcome.classified == "foreign_tool_call", outcome
        elif outcome.kind.startswith("stop:"):
            assert outcome.classified == outcome.kind.split(":")[1], outcome
