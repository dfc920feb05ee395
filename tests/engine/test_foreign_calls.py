"""Tool calls in a model's own format as items: translated, the person's to approve, told."""

from __future__ import annotations

from pathlib import Path

from support.replies import b64, block

from jupyter_operator.engine import Policy
from jupyter_operator.engine.persist import dump_run, load_data, load_run
from jupyter_operator.protocol import parse_results

HERMES_WRITE = ('<tool_call>{"name": "write_file", "arguments": {"path": "hello.txt", '
                '"content": "hi\\n"}}</tool_call>')  # fmt: skip
HERMES_READ = '<tool_call>{"name": "read_file", "arguments": {"path": "notes.txt"}}</tool_call>'
UNCLEAR = '<tool_call>{"name": "frobnicate", "arguments": {"level": 3}}</tool_call>'


def _auto(make_operator, *rules: str):
    return make_operator(policy=Policy([*rules, "auto all"]))


def test_no_rule_approves_a_translation_and_the_card_says_why(root: Path, make_operator) -> None:
    run = _auto(make_operator).run("Sure.\n" + HERMES_WRITE)
    (item,) = run.items
    assert item.id == "tool-call-1" and item.action == "fs.write" and item.status == "pending"
    assert item.rule == "translation: no rule approves a translated tool call"
    assert item.foreign is not None and item.foreign.family == "hermes"
    assert "path: hello.txt" in (item.foreign.block or "")
    assert item.to_dict()["foreign"]["family_name"] == "Hermes/Qwen <tool_call> JSON"
    assert item.diff is not None and "+hi" in item.diff
    assert not (root / "hello.txt").exists()


def test_approved_the_model_gets_the_real_result_and_a_note(root: Path, make_operator) -> None:
    run = _auto(make_operator).run(HERMES_WRITE)
    run.approve("tool-call-1")
    assert (root / "hello.txt").read_text() == "hi\n"
    (result,) = parse_results(run.results_text)
    assert result.ok and "the person approved its translation" in result.summary
    assert "Send OPERATOR_CMD blocks" in result.summary


def test_rejected_the_model_gets_the_block_it_meant(root: Path, make_operator) -> None:
    run = _auto(make_operator).run(HERMES_WRITE)
    run.reject("tool-call-1", reason="not yet")
    (result,) = parse_results(run.results_text)
    assert result.code == "ERR_FOREIGN_TOOL_CALL" and result.summary.endswith("Reason: not yet")
    assert result.details == run.item("tool-call-1").foreign.block
    assert not (root / "hello.txt").exists()


def test_a_deny_rule_still_denies_a_translation(root: Path, make_operator) -> None:
    run = _auto(make_operator, "deny fs.write").run(HERMES_WRITE)
    assert run.item("tool-call-1").status == "denied" and not run.pending


def test_a_translated_read_waits_too(root: Path, make_operator) -> None:
    (root / "notes.txt").write_text("secret plan\n")
    run = _auto(make_operator).run(HERMES_READ)
    item = run.item("tool-call-1")
    assert item.kind == "read" and item.status == "pending" and item.result is None
    run.approve("tool-call-1")
    assert item.details == "secret plan\n" and "own format" in (item.result.summary or "")


def test_an_unclear_call_is_an_error_that_asks_for_a_block(make_operator) -> None:
    run = _auto(make_operator).run(UNCLEAR)
    (item,) = run.items
    assert item.kind == "error" and item.error_code == "ERR_FOREIGN_TOOL_CALL"
    assert item.foreign is not None and item.foreign.block is None
    assert "Rewrite the call as an OPERATOR_CMD block" in item.result.summary


def test_translations_follow_the_blocks_with_ids_of_their_own(root: Path, make_operator) -> None:
    reply = block("tool-call-1", "fs.write", path="a.txt", content_b64=b64("a"))
    reply += "\n" + HERMES_WRITE
    run = _auto(make_operator).run(reply)
    assert [i.id for i in run.items] == ["tool-call-1", "tool-call-2"]
    assert run.items[0].status == "applied" and run.items[1].foreign is not None


def test_a_saved_run_keeps_its_translations(root: Path, make_operator) -> None:
    text = "Sure.\n" + HERMES_WRITE + "\n" + UNCLEAR
    run = _auto(make_operator).run(text)
    loaded = load_run(make_operator(), load_data(dump_run(run, text)))
    assert [i.foreign for i in loaded.items] == [i.foreign for i in run.items]
    loaded.approve("tool-call-1")
    assert (root / "hello.txt").read_text() == "hi\n"
