"""The approval panel driven by Button.click() against the real engine."""

from __future__ import annotations

from pathlib import Path

import pytest
from ipython_fixtures import diff_text
from operator_replies import block, edits_block, reply, write_block

from jupyter_operator.engine import Operator
from jupyter_operator.protocol import parse_results
from jupyter_operator.widgets import RunView


def view_for(root: Path, text: str) -> RunView:
    return RunView(Operator(root).run(text))


def test_approve_writes_the_file_and_the_card_shows_it(workspace: Path) -> None:
    view = view_for(workspace, reply(write_block("w1", "notes/plan.txt", "Alpha\nBeta\n")))
    card = view.card_for("w1")
    assert card.item.status == "pending"
    assert "jpo-add" in card.diff_view.value and ">Alpha<" in card.diff_view.value
    assert "new file" in card.header.value
    assert not (workspace / "notes" / "plan.txt").exists()  # nothing before the click
    assert view.results is None

    card.approve_button.click()

    assert (workspace / "notes" / "plan.txt").read_bytes() == b"Alpha\nBeta\n"
    assert card.item.status == "applied"
    assert "jpo-s-applied" in card.header.value and "Applied." in card.header.value
    assert all(button.disabled for button in card.buttons)
    assert not set(card.controls) & set(card.children)  # the buttons are gone
    # Every proposal is decided: the results panel shows the text for the model.
    assert view.results in view.children
    [result] = parse_results(view.results.text.value)
    assert result.id == "w1" and result.ok


def test_reject_with_reason_reaches_the_results(workspace: Path) -> None:
    (workspace / "a.txt").write_text("old\n")
    view = view_for(workspace, reply(write_block("w1", "a.txt", "new\n")))
    card = view.card_for("w1")
    assert card.reason is None  # the field appears when asked for
    card.reason_button.click()
    card.reason_button.click()  # a double click does not reject without the reason
    assert card.item.status == "pending" and "first" in card.reason.placeholder
    assert card.reason in card.children
    assert card.reason_button.description == "Send rejection"
    card.reason.value = "keep the old wording"
    card.reason_button.click()

    assert (workspace / "a.txt").read_text() == "old\n"
    assert card.item.status == "rejected"
    assert "keep the old wording" in view.run.results_text
    [result] = parse_results(view.results.value)
    assert not result.ok and "ERR_REJECTED" in result.summary
    assert "keep the old wording" in result.summary
    assert all(button.disabled for button in card.buttons) and card.reason.disabled


def test_plain_reject_ignores_the_reason_field(workspace: Path) -> None:
    view = view_for(workspace, reply(write_block("w1", "a.txt", "x\n")))
    card = view.card_for("w1")
    card.reason_button.click()
    card.reason.value = "typed but not sent"
    card.reject_button.click()
    assert card.item.status == "rejected"
    assert "typed but not sent" not in view.run.results_text


def test_a_button_works_once(workspace: Path) -> None:
    view = view_for(workspace, reply(write_block("w1", "a.txt", "one\n")))
    card = view.card_for("w1")
    card.approve_button.click()
    (workspace / "a.txt").write_text("changed by hand\n")
    # A second click (e.g. a stale browser view) must not decide again or write again.
    card.approve_button.click()
    card.reject_button.click()
    assert (workspace / "a.txt").read_text() == "changed by hand\n"
    assert card.item.status == "applied"
    assert view.messages.outputs == ()


def test_stale_preview_is_shown_as_stale(workspace: Path) -> None:
    (workspace / "a.txt").write_text("v1\n")
    view = view_for(workspace, reply(write_block("w1", "a.txt", "v2\n")))
    (workspace / "a.txt").write_text("edited meanwhile\n")
    card = view.card_for("w1")
    card.approve_button.click()
    assert (workspace / "a.txt").read_text() == "edited meanwhile\n"
    assert card.item.status == "stale"
    assert "jpo-s-stale" in card.header.value and "changed after this preview" in card.header.value
    assert "ERR_STALE_PREVIEW" in view.results.value


def test_python_api_decisions_update_the_cards(workspace: Path) -> None:
    (workspace / "b.txt").write_text("keep\n")
    text = reply(write_block("w1", "a.txt", "A\n"), block("d1", "fs.delete", "b.txt"))
    view = view_for(workspace, text)
    assert view.batch in view.children  # two waiting: the batch bar is offered
    view.run.approve("w1")  # as a notebook cell would, after the panel was displayed
    assert view.card_for("w1").item.status == "applied"
    assert "jpo-s-applied" in view.card_for("w1").header.value
    assert view.card_for("w1").approve_button.disabled
    assert view.results is None  # d1 still waits
    view.run.reject("d1", reason="not now")
    assert (workspace / "b.txt").exists()
    assert view.results in view.children
    assert [r.id for r in parse_results(view.results.value)] == ["w1", "d1"]
    assert view.approve_all_button.disabled and view.reject_all_button.disabled


def test_approve_all_and_reject_all(workspace: Path) -> None:
    text = reply(write_block("w1", "a.txt", "A\n"), write_block("w2", "b.txt", "B\n"))
    view = view_for(workspace, text)
    view.approve_all_button.click()
    assert (workspace / "a.txt").read_text() == "A\n" and (workspace / "b.txt").read_text() == "B\n"
    assert all(c.item.status == "applied" and c.approve_button.disabled for c in view.cards)
    assert view.approve_all_button.disabled

    other = tmp = workspace / "other"
    tmp.mkdir()
    view = view_for(
        other, reply(write_block("w1", "a.txt", "A\n"), write_block("w2", "b.txt", "B"))
    )
    view.reject_all_button.click()
    assert list(other.iterdir()) == []
    assert [c.item.status for c in view.cards] == ["rejected", "rejected"]


def test_reads_run_at_once_and_show_their_result(workspace: Path) -> None:
    (workspace / "hello.txt").write_text("<img src=x onerror=alert(1)>\nsecond line\n")
    view = view_for(workspace, reply(block("r1", "fs.read", "hello.txt")))
    card = view.card_for("r1")
    assert card.item.status == "done"
    assert card.buttons == [] and card.controls is None
    assert "&lt;img src=x onerror=alert(1)&gt;" in card.header.value
    assert "<img" not in card.header.value
    assert "<details open>" in card.header.value  # short results start open
    # Nothing waits: the results are there at once.
    assert view.results in view.children
    assert view.batch not in view.children


def test_long_read_results_start_collapsed(workspace: Path) -> None:
    (workspace / "long.txt").write_text("".join(f"line {i}\n" for i in range(100)))
    view = view_for(workspace, reply(block("r1", "fs.read", "long.txt")))
    html = view.card_for("r1").header.value
    assert "<details>" in html and "Result (100 lines)" in html


def test_scan_errors_show_code_and_line(workspace: Path) -> None:
    bad = "OPERATOR_CMD\nversion: 1\nid: bad1\naction: fs.write\npath: a.txt\nEND_OPERATOR_CMD\n"
    view = view_for(workspace, "prose\n" + bad)
    [card] = view.cards
    assert card.item.kind == "error"
    assert "ERR_MISSING_WRITE_CONTENT" in card.header.value
    assert "line 2" in card.header.value
    assert "jpo-s-error" in card.header.value
    assert card.buttons == []


def test_file_content_with_markup_renders_as_text(workspace: Path) -> None:
    (workspace / "page.html").write_text("<p>hello</p>\n")
    hostile = "<script>alert(1)</script>\n<img src=x onerror=alert(1)>\n"
    view = view_for(workspace, reply(write_block("w1", "page.html", hostile)))
    card = view.card_for("w1")
    html = card.diff_view.value + card.header.value
    assert "<script>" not in html and "<img" not in html and "<p>" not in html
    assert "+&lt;script&gt;alert(1)&lt;/script&gt;" in diff_text(card.diff_view.value)
    assert "+&lt;img src=x onerror=alert(1)&gt;" in diff_text(card.diff_view.value)
    # The buttons are widgets of their own, not HTML inside the preview.
    assert card.approve_button in card.children
    assert "button" not in card.diff_view.value.lower()


def test_hostile_file_name_is_escaped(workspace: Path) -> None:
    name = "x'\"onmouseover=alert(1).txt"
    view = view_for(workspace, reply(write_block("w1", name, "hi\n")))
    header = view.card_for("w1").header.value
    assert "onmouseover=alert(1)" in header  # shown, as text
    assert "'\"onmouseover" not in header and "&#x27;&quot;onmouseover" in header


def test_bidi_characters_in_a_write_are_marked_with_a_warning(workspace: Path) -> None:
    view = view_for(
        workspace, reply(write_block("w1", "a.py", "access = 'user\u202e \u2066admin'\n"))
    )
    card = view.card_for("w1")
    assert "\u202e" not in card.diff_view.value
    assert "&lt;U+202E&gt;" in card.diff_view.value and "&lt;U+2066&gt;" in card.diff_view.value
    assert "invisible, bidirectional or control characters" in card.header.value


def test_large_diff_is_truncated_with_show_all(workspace: Path) -> None:
    content = "".join(f"row {i}\n" for i in range(3000))
    view = view_for(workspace, reply(write_block("w1", "big.txt", content)))
    card = view.card_for("w1")
    assert card.toggle is not None and "Show all" in card.toggle.description
    assert "row 2999" not in card.diff_view.value
    card.toggle.click()
    assert "row 2999" in card.diff_view.value and card.toggle.description == "Show less"
    card.toggle.click()
    assert "row 2999" not in card.diff_view.value
    card.approve_button.click()  # approval applies the whole change, not the shown part
    assert (workspace / "big.txt").read_text() == content


def test_apply_edits_diff_and_summary(workspace: Path) -> None:
    (workspace / "plan.txt").write_text("Alpha\nBeta\n")
    edits = [{"op": "insertAfter", "anchor": "Beta", "text": "\nGamma"}]
    view = view_for(workspace, reply(edits_block("e1", "plan.txt", edits)))
    card = view.card_for("e1")
    assert '<span class="jpo-stat-add">+1</span>' in card.header.value
    assert "+Gamma" in diff_text(card.diff_view.value)
    card.approve_button.click()
    assert (workspace / "plan.txt").read_text() == "Alpha\nBeta\nGamma\n"


def test_handler_errors_go_to_the_output_widget(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    view = view_for(workspace, reply(write_block("w1", "a.txt", "A\n")))

    def broken(_id: str) -> None:
        raise RuntimeError(f"disk failure at {workspace}/a.txt")

    monkeypatch.setattr(view.run, "approve", broken)
    view.card_for("w1").approve_button.click()
    [output] = view.messages.outputs
    # One line for the person: no traceback, no exception name, no host path.
    assert output["text"] == "operator: the decision could not be applied (internal error)\n"
    assert not (workspace / "a.txt").exists()


def test_copy_button_puts_a_script_in_a_hidden_output(workspace: Path) -> None:
    view = view_for(workspace, reply(write_block("w1", "a.txt", "</script>\n")))
    view.card_for("w1").approve_button.click()
    view.results.copy_button.click()
    [output] = view.results._sink.outputs
    script = output["data"]["application/javascript"]
    assert "navigator.clipboard.writeText" in script
    assert "OPERATOR_RESULT" in script and "<" not in script
    assert "Copied" in view.results.status.value


def test_results_box_stays_read_only(workspace: Path) -> None:
    view = view_for(workspace, reply(write_block("w1", "a.txt", "A\n")))
    view.run.approve("w1")
    original = view.results.text.value
    view.results.text.value = "tampered"
    assert view.results.text.value == original


@pytest.mark.parametrize("status", ["applied", "rejected"])
def test_repr_is_a_short_summary_without_content(workspace: Path, status: str) -> None:
    view = view_for(workspace, reply(write_block("w1", "a.txt", "SECRET CONTENT\n")))
    if status == "applied":
        view.run.approve("w1")
    else:
        view.run.reject("w1")
    bundle = view._repr_mimebundle_()
    assert "SECRET" not in repr(view) and "SECRET" not in bundle["text/plain"]
    assert f"[{status.capitalize()}] fs.write a.txt (w1)" in bundle["text/plain"]
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_change_on_top_of_an_undecided_change_waits_for_it(workspace: Path) -> None:
    (workspace / "plan.txt").write_text("Alpha\n")
    first = [{"op": "replaceFirst", "find": "Alpha", "text": "Alpha\nBeta"}]
    second = [{"op": "replaceFirst", "find": "Beta", "text": "Gamma"}]
    view = view_for(
        workspace,
        reply(edits_block("e1", "plan.txt", first), edits_block("e2", "plan.txt", second)),
    )
    card1, card2 = view.card_for("e1"), view.card_for("e2")
    assert card2.item.builds_on == "e1"
    assert card2.approve_button.disabled and not card2.reject_button.disabled
    assert "Previewed on top of e1" in card2.header.value
    card1.approve_button.click()
    assert not card2.approve_button.disabled
    assert "Previewed on top of" not in card2.header.value
    card2.approve_button.click()
    assert (workspace / "plan.txt").read_text() == "Alpha\nGamma\n"


def test_rejecting_the_base_change_shows_the_recomputed_diff(workspace: Path) -> None:
    (workspace / "plan.txt").write_text("Alpha\nBeta\n")
    first = [{"op": "replaceFirst", "find": "Alpha", "text": "One"}]
    second = [{"op": "replaceFirst", "find": "Beta", "text": "Two"}]
    view = view_for(
        workspace,
        reply(edits_block("e1", "plan.txt", first), edits_block("e2", "plan.txt", second)),
    )
    card2 = view.card_for("e2")
    assert "One" in card2.diff_view.value  # context from e1's preview
    view.card_for("e1").reject_button.click()
    # e2 is now previewed from the disk: the diff shown is what approving would write.
    assert card2.item.status == "pending" and "One" not in card2.diff_view.value
    assert "-Beta" in diff_text(card2.diff_view.value)
    assert "+Two" in diff_text(card2.diff_view.value)
    card2.approve_button.click()
    assert (workspace / "plan.txt").read_text() == "Alpha\nTwo\n"


def test_read_after_a_pending_write_runs_once_it_is_decided(workspace: Path) -> None:
    text = reply(write_block("w1", "a.txt", "fresh\n"), block("r1", "fs.read", "a.txt"))
    view = view_for(workspace, text)
    read = view.card_for("r1")
    assert read.item.status == "waiting"
    assert "Waiting for an earlier change" in read.header.value
    assert read.buttons == []
    view.card_for("w1").approve_button.click()
    assert read.item.status == "done"
    assert "fresh" in read.header.value
    assert view.results in view.children


def test_reads_that_need_approval_get_buttons(workspace: Path) -> None:
    from jupyter_operator.engine import Policy

    (workspace / "a.txt").write_text("secret-ish\n")
    run = Operator(workspace, policy=Policy.parse("auto=none")).run(
        reply(block("r1", "fs.read", "a.txt"))
    )
    view = RunView(run)
    card = view.card_for("r1")
    assert card.item.status == "pending" and card.approve_button is not None
    assert "needs your approval" in card.header.value
    card.approve_button.click()
    assert card.item.status == "done" and "secret-ish" in card.header.value
    assert card.approve_button.disabled


def test_invisible_characters_beyond_the_preview_still_warn(workspace: Path) -> None:
    content = "".join(f"row {i}\n" for i in range(1000)) + "tail\u202e\n"
    view = view_for(workspace, reply(write_block("w1", "big.txt", content)))
    card = view.card_for("w1")
    assert card.toggle is not None and "U+202E" not in card.diff_view.value  # not shown yet
    assert "invisible, bidirectional or control characters" in card.header.value


def test_long_replies_say_what_was_not_scanned(workspace: Path) -> None:
    text = "x" * 250_000 + "\n" + write_block("w1", "a.txt", "A\n")
    view = view_for(workspace, text)
    assert "Only the last 200,000 characters were scanned" in view.heading.value
    assert [card.item.id for card in view.cards] == ["w1"]


def test_commands_cut_off_are_a_warning_banner_and_told_to_the_model(workspace: Path) -> None:
    lost = "\n".join(write_block(f"e{n}", f"e{n}.txt", "e\n") for n in range(2))
    text = lost + "\n" + "x" * 250_000 + "\n" + write_block("w1", "a.txt", "A\n")
    view = view_for(workspace, text)
    banner = view.heading.value.split('class="jpo-note jpo-warn jpo-banner">')[1]
    assert banner.startswith("This reply is longer than the 200,000 characters that are scanned")
    assert "hold 2 OPERATOR_CMD markers whose commands did not run" in banner
    view.card_for("w1").approve_button.click()
    assert view.results is not None
    assert view.results.value.startswith("Note: only the last 200,000 characters")
    # Nothing but lost commands: the note is still offered for the model.
    alone = view_for(workspace, lost + "\n" + "x" * 250_000)
    assert alone.cards == [] and alone.results is not None
    assert "No OPERATOR_CMD blocks found" in alone.heading.value


def test_a_reply_without_blocks_says_what_was_looked_for(workspace: Path) -> None:
    view = view_for(workspace, "Just prose, no commands.")
    assert view.cards == []
    assert "No OPERATOR_CMD blocks found (looked for blocks of the Operator dialect: a line " \
        "OPERATOR_CMD, key: value lines, a line END_OPERATOR_CMD)." in view.heading.value
    assert view.results is None


def test_reason_field_gets_focus_and_enter_sends_the_rejection(workspace: Path) -> None:
    view = view_for(workspace, reply(write_block("w1", "a.txt", "A\n")))
    card = view.card_for("w1")
    card.reason_button.click()
    sent = [args[0] if args else kwargs.get("data") for args, kwargs in card.reason.comm.messages]
    assert {"method": "custom", "content": {"do": "focus"}} in sent
    card.reason.value = "not this file"
    card.reason._handle_custom_msg({"event": "submit"}, [])  # Enter in the field
    assert card.item.status == "rejected"
    assert "Reason: not this file" in card.item.result.summary


def test_batch_buttons_come_before_the_cards(workspace: Path) -> None:
    view = view_for(workspace, reply(write_block("w1", "a.txt", "A"), write_block("w2", "b", "B")))
    children = list(view.children)
    assert children.index(view.batch) < children.index(view.card_for("w1"))
    assert [b.description for b in view.card_for("w1").buttons] == [
        "Approve", "Edit", "Reject", "Reject with reason...",
    ]  # fmt: skip


def test_a_write_that_changes_nothing_needs_no_approval(workspace: Path) -> None:
    (workspace / "a.txt").write_text("same\n")
    view = view_for(workspace, reply(write_block("w1", "a.txt", "same\n")))
    card = view.card_for("w1")
    assert card.item.status == "done" and card.buttons == []
    assert "No change: a.txt already has exactly this content" in card.header.value
    [result] = parse_results(view.run.results_text)
    assert result.ok and "nothing was written" in result.summary


def test_saved_html_shows_each_card_without_buttons(workspace: Path) -> None:
    view = view_for(workspace, reply(write_block("w1", "a.txt", "<b>A</b>\n")))
    html = view._repr_mimebundle_()["text/html"]
    assert "jpo-badge jpo-s-pending" in html and "&lt;b&gt;A&lt;/b&gt;" in html
    assert "<button" not in html and "<b>A" not in html
    view.card_for("w1").approve_button.click()
    html = view._repr_mimebundle_()["text/html"]
    assert "jpo-badge jpo-s-applied" in html and "jpo-badge jpo-s-pending" not in html


def test_saved_view_is_marked_final_with_a_static_copy_of_the_results(workspace: Path) -> None:
    view = view_for(
        workspace, reply(write_block("w1", "a.txt", "A\n"), write_block("w2", "b.txt", "B <i>\n"))
    )
    # While anything waits, the saved output keeps its live widget and has no results yet.
    assert view.saved_metadata() == {"jupyter_operator": {"final": False}}
    assert "jpo-static-results" not in view._repr_mimebundle_()["text/html"]
    view.run.approve("w1")
    view.run.reject("w2", reason="not <b>now</b>")
    assert view.saved_metadata() == {"jupyter_operator": {"final": True}}
    html = view._repr_mimebundle_()["text/html"]
    assert "jpo-static-results" in html
    assert "id: w1\nok: true" in html and "not &lt;b&gt;now&lt;/b&gt;" in html
    assert "<b>now" not in html  # the model's and the person's text stay text


def test_static_results_are_cut_to_a_readable_size() -> None:
    from jupyter_operator.widgets.card_html import STATIC_RESULTS_CHARS, static_results_html

    html = static_results_html("Results", "q" * (STATIC_RESULTS_CHARS + 5))
    assert "[... 5 more characters not saved]" in html
    assert html.count("q") == STATIC_RESULTS_CHARS


def test_cards_speak_to_a_person_with_one_badge_word_per_outcome(workspace: Path) -> None:
    text = reply(
        block("bad", "fs.bogus", path="x.txt"),
        block("r1", "fs.read", path="missing.txt"),
        write_block("w1", "a.txt", "new\n"),
    )
    view = view_for(workspace, text)
    view.card_for("w1").reason_button.click()
    view.card_for("w1").reason.value = "not now"
    view.card_for("w1").reason_button.click()
    badges = {card.item.id: card.header.value for card in view.cards}
    assert '">Invalid</span>' in badges["bad"]  # the block failed validation
    assert '">Failed</span>' in badges["r1"]  # a valid command that failed when run
    assert '">Rejected</span>' in badges["w1"]  # a person refused it
    for card in view.cards:
        shown = card.header.value
        assert "Invalid OPERATOR_CMD" not in shown and "Rejected (ERR_" not in shown
    read = view.card_for("r1").header.value
    assert "missing.txt does not exist." in read and "(ERR_NOT_FOUND)" in read
    assert "Reason: not now" in view.card_for("w1").header.value
    # The model still reads its own format.
    assert "Invalid OPERATOR_CMD (ERR_NOT_FOUND)" in view.run.results_text


def test_a_call_in_the_models_own_format_is_shown_translated(workspace: Path) -> None:
    leaked = ('<tool_call>{"name": "write_file", "arguments": {"path": "t.txt", '
              '"content": "<b>x</b>\\n"}}</tool_call>\n<tool_call>{"name": "frob"}</tool_call>')
    view = view_for(workspace, "Sure.\n" + leaked)
    card = view.card_for("tool-call-1")
    assert "The model used its own tool-call format (Hermes/Qwen &lt;tool_call&gt; JSON: " \
           "write_file)" in card.header.value
    assert "path: t.txt" in card.header.value and "approve it like any other" in card.header.value
    assert "&lt;b&gt;x&lt;/b&gt;" in card.diff_view.value  # the content, escaped, in the diff
    unclear = view.card_for("tool-call-2")
    assert "Its intent is not clear" in unclear.header.value
    card.approve_button.click()
    assert (workspace / "t.txt").read_text() == "<b>x</b>\n"
