"""An Ask run that ended with a question outlives the page: after a reload the Ask view shows
the question again, and the answer continues that very run."""

from __future__ import annotations

import pytest
from ask_views import ASK, open_ask
from browserkit import screenshot, show_operator_panel
from support.fake_openai import FakeOpenAI
from support.replies import b64, block

pytestmark = pytest.mark.timeout(240)


def test_a_question_asked_before_a_reload_is_answered_after_it(
    ask_server, page, fake: FakeOpenAI
) -> None:
    fake.add(
        "I can write the notes. Which file name should they have?",
        block("q2", "fs.write", path="after-reload.md", content_b64=b64("# Notes\n")),
        "Done: after-reload.md is written.",
    )  # fmt: skip
    open_ask(page, ask_server)
    page.locator(f"{ASK} .jp-Operator-ask-task").fill("Write notes")
    page.locator(f"{ASK} .jp-Operator-ask-button").click()
    question = page.locator(f"{ASK} .jp-Operator-question")
    question.filter(has_text="Which file name should they have?").wait_for(timeout=30_000)
    asked = len(fake.requests)

    page.reload()
    show_operator_panel(page)
    summary = page.locator(f"{ASK} .jp-Operator-ask-summary")
    summary.wait_for(timeout=60_000)
    if page.locator(f"{ASK}[open]").count() == 0:
        summary.click()
    question.filter(has_text="Which file name should they have?").wait_for(timeout=30_000)
    status = page.locator(f"{ASK} .jp-Operator-ask-status")
    assert "the model asks you a question" in status.text_content()
    assert "Turn 1/" in status.text_content(), "the reloaded status forgot where the run stands"
    question.locator(".jp-Operator-question-answer").fill("after-reload.md")
    screenshot(page, "ask-question-after-reload")
    question.locator(".jp-Operator-question-send").click()
    question.filter(has_text="You answered: after-reload.md").wait_for(timeout=30_000)
    write = page.locator(f'{ASK} .jp-Operator-card[data-id="q2"][data-status="pending"]')
    write.wait_for(timeout=30_000)
    # The same run goes on: the model hears the answer after its own question.
    sent = fake.requests[asked]["messages"]
    assert sent[-1] == {"role": "user", "content": "after-reload.md"}
    assert "Which file name should they have?" in sent[-2]["content"]
    write.locator(".jp-Operator-approve").click()
    status.filter(has_text="ended: The model finished").wait_for(timeout=30_000)
    assert (ask_server.root / "after-reload.md").read_text() == "# Notes\n"
    screenshot(page, "ask-question-answered-after-reload")
    assert page.console_errors == []
