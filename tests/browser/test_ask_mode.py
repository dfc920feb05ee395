"""The panel's Ask mode in a real JupyterLab, against the loopback OpenAI-compatible endpoint.

The server calls the model with the key from its own environment; the browser sees the
streamed reply, the cards of each turn and the Stop button, never the key.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from ask_views import ASK, open_ask
from browserkit import LabServer, screenshot, show_operator_panel
from magic_notebooks import magic_notebook, run_quick_cell, setup_source
from notebook_cards import button, card_by_id, cards, status_is
from support.fake_openai import FakeOpenAI, Script
from support.replies import b64, block

pytestmark = pytest.mark.timeout(240)


def test_a_multi_turn_task_with_an_approval(ask_server: LabServer, page, fake: FakeOpenAI) -> None:
    (ask_server.root / "notes.txt").write_text("alpha\n")
    fake.add(
        Script("I will read the notes first.\n" + block("r1", "fs.read", path="notes.txt"),
               chunk=8, delay=0.02),
        Script("Now the plan.\n" + block("w1", "fs.write", path="plan.md",
                                           content_b64=b64("# Plan\n\n- alpha\n")), chunk=8),
        "Done: plan.md is written.",
    )  # fmt: skip
    open_ask(page, ask_server)
    page.locator(f"{ASK} .jp-Operator-ask-task").fill("Write a plan from notes.txt")
    page.locator(f"{ASK} .jp-Operator-ask-button").click()
    # prose streams in; the read's card shows its result
    page.locator(f"{ASK} .jp-Operator-ask-prose").filter(has_text="read the notes first").wait_for()
    page.locator(f'{ASK} .jp-Operator-card[data-id="r1"][data-status="done"]').wait_for()
    write = page.locator(f'{ASK} .jp-Operator-card[data-id="w1"][data-status="pending"]')
    write.wait_for(timeout=30_000)
    status = page.locator(f"{ASK} .jp-Operator-ask-status")
    assert "Turn 2/10" in status.text_content() and "waiting for you" in status.text_content()
    assert not (ask_server.root / "plan.md").exists()
    screenshot(page, "ask-mode-waiting")
    write.locator(".jp-Operator-approve").click()
    status.filter(has_text="ended").wait_for(timeout=30_000)
    page.locator(f"{ASK} .jp-Operator-ask-prose").filter(has_text="plan.md is written").wait_for()
    assert (ask_server.root / "plan.md").read_text() == "# Plan\n\n- alpha\n"
    assert "Turn 3/10" in status.text_content()
    screenshot(page, "ask-mode-done")
    assert fake.key not in page.content()
    assert fake.requests[-1]["messages"][-1]["content"].startswith("OPERATOR_RESULT")
    assert page.console_errors == []


def test_the_first_turn_waiting_for_a_decision_shows_its_tokens(
    ask_server: LabServer, page, fake: FakeOpenAI
) -> None:
    """The endpoint reports usage with the reply: the panel shows it while the turn waits for
    a decision (it said "0 tokens" until the turn was decided)."""
    fake.add(block("w1", "fs.write", path="first.txt", content_b64=b64("x\n")), "Done.")
    open_ask(page, ask_server)
    page.locator(f"{ASK} .jp-Operator-ask-task").fill("Write first.txt")
    page.locator(f"{ASK} .jp-Operator-ask-button").click()
    write = page.locator(f'{ASK} .jp-Operator-card[data-id="w1"][data-status="pending"]')
    write.wait_for(timeout=30_000)
    status = page.locator(f"{ASK} .jp-Operator-ask-status").text_content() or ""
    assert "Turn 1/10" in status and "waiting for you" in status
    assert re.search(r"· [1-9][\d,]* tokens ·", status), status
    write.locator(".jp-Operator-approve").click()
    page.locator(f"{ASK} .jp-Operator-ask-status").filter(has_text="ended").wait_for(
        timeout=30_000
    )


def test_the_model_asks_and_the_persons_answer_continues_the_run(
    ask_server: LabServer, page, fake: FakeOpenAI
) -> None:
    fake.add(
        "I can write the summary. Which file name should it have?",
        Script("Writing it.\n" + block("q1", "fs.write", path="answered.md",
                                        content_b64=b64("# Summary\n")), chunk=8),
        "Done: answered.md is written.",
    )  # fmt: skip
    open_ask(page, ask_server)
    page.locator(f"{ASK} .jp-Operator-ask-task").fill("Write a summary")
    page.locator(f"{ASK} .jp-Operator-ask-button").click()
    question = page.locator(f"{ASK} .jp-Operator-question")
    question.filter(has_text="Which file name should it have?").wait_for(timeout=30_000)
    status = page.locator(f"{ASK} .jp-Operator-ask-status")
    assert "the model asks you a question" in status.text_content()
    question.locator(".jp-Operator-question-send").click()  # an empty answer is not sent
    question.filter(has_text="Write an answer first.").wait_for()
    question.locator(".jp-Operator-question-answer").fill("answered.md")
    assert "Write an answer first." not in (question.text_content() or "")
    screenshot(page, "ask-mode-question")
    question.locator(".jp-Operator-question-send").click()
    question.filter(has_text="You answered: answered.md").wait_for(timeout=30_000)
    write = page.locator(f'{ASK} .jp-Operator-card[data-id="q1"][data-status="pending"]')
    write.wait_for(timeout=30_000)
    assert "Turn 2/10" in status.text_content()
    assert fake.requests[-1]["messages"][-1] == {"role": "user", "content": "answered.md"}
    write.locator(".jp-Operator-approve").click()
    status.filter(has_text="ended: The model finished").wait_for(timeout=30_000)
    assert (ask_server.root / "answered.md").read_text() == "# Summary\n"
    prose = page.locator(f"{ASK} .jp-Operator-ask-prose")
    prose.filter(has_text="answered.md is written").wait_for()
    screenshot(page, "ask-mode-answered")
    assert page.console_errors == []


def test_a_leaked_tool_call_is_shown_translated_and_can_be_approved(
    ask_server: LabServer, page, fake: FakeOpenAI
) -> None:
    fake.add(
        'Creating it.\n<tool_call>\n{"name": "write_file", "arguments": '
        '{"path": "leaked.txt", "content": "from a tool call\\n"}}\n</tool_call>',
        "Done.",
    )  # fmt: skip
    open_ask(page, ask_server)
    page.locator(f"{ASK} .jp-Operator-ask-task").fill("Create leaked.txt")
    page.locator(f"{ASK} .jp-Operator-ask-button").click()
    card = page.locator(f'{ASK} .jp-Operator-card[data-id="tool-call-1"][data-status="pending"]')
    card.wait_for(timeout=30_000)
    foreign = card.locator(".jp-Operator-foreign")
    assert "own tool-call format (Hermes/Qwen <tool_call> JSON: write_file)" in (
        foreign.text_content() or "")
    assert "action: fs.write\npath: leaked.txt" in (foreign.locator("pre").text_content() or "")
    notice = page.locator(f"{ASK} .jp-Operator-ask-notice")
    notice.filter(has_text="its own tool-call format").wait_for()
    assert not (ask_server.root / "leaked.txt").exists()
    screenshot(page, "ask-mode-leaked-call")
    card.locator(".jp-Operator-approve").click()
    page.locator(f"{ASK} .jp-Operator-ask-status").filter(has_text="ended").wait_for(timeout=30_000)
    assert (ask_server.root / "leaked.txt").read_text() == "from a tool call\n"
    told = fake.requests[-1]["messages"][-1]["content"]
    assert "was a tool call in your own format" in told and "Send OPERATOR_CMD blocks" in told


def test_stop_in_the_middle_of_a_reply(ask_server: LabServer, page, fake: FakeOpenAI) -> None:
    fake.add(Script("word " * 2000, chunk=5, delay=0.01))
    open_ask(page, ask_server)
    page.locator(f"{ASK} .jp-Operator-ask-task").fill("Talk for a while")
    page.locator(f"{ASK} .jp-Operator-ask-button").click()
    page.locator(f"{ASK} .jp-Operator-ask-prose").filter(has_text="word word word").wait_for()
    page.locator(f"{ASK} .jp-Operator-ask-stop").click()
    status = page.locator(f"{ASK} .jp-Operator-ask-status")
    status.filter(has_text="Stopped by the person").wait_for(timeout=30_000)
    shown = page.locator(f"{ASK} .jp-Operator-ask-prose").text_content() or ""
    assert shown.count("word") < 2000
    screenshot(page, "ask-mode-stopped")


def _agent_notebook(fake: FakeOpenAI, host: Path) -> dict:
    setup = setup_source(
        host / "journal",
        f"os.environ['JUPYTER_OPERATOR_TRANSCRIPT_DIR'] = {str(host / 'runs')!r}",
        f"%operator model fake-model --base-url {fake.url}",
    )
    cells = ["%%operator_agent --max-turns 5\nWrite a plan.", "6 * 7"]
    return magic_notebook(host / "journal", *cells, setup=setup)


def run_agent_notebook(page, server: LabServer, fake: FakeOpenAI, host: Path, name: str):
    """Open a new ``%%operator_agent`` notebook ``name`` and run its setup and agent cells;
    return the agent's view."""
    (server.root / f"{name}.ipynb").write_text(json.dumps(_agent_notebook(fake, host)))
    page.goto(server.page_url(f"lab/workspaces/{name}/tree/{name}.ipynb"))
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=60_000)
    run_quick_cell(page, 0)
    run_quick_cell(page, 1)
    return page.locator(".jpo-agent")


def test_the_notebook_runs_a_multi_turn_task_against_the_endpoint(
    ask_server: LabServer, page, fake: FakeOpenAI, tmp_path: Path
) -> None:

    fake.add(
        Script("I will write the plan now.\n" + block("nb-w1", "fs.write", path="nb-plan.md",
                                                      content_b64=b64("# Plan\n")), chunk=8),
        "Done: nb-plan.md is written.",
    )  # fmt: skip
    view = run_agent_notebook(page, ask_server, fake, tmp_path, "agent")
    view.get_by_text("I will write the plan now.").wait_for(timeout=60_000)
    card = cards(view, kind="mutation")
    card.wait_for(timeout=60_000)
    assert "waiting for you" in view.locator(".jpo-agent-bar").inner_text()
    assert "turn 1/5" in view.locator(".jpo-agent-bar").inner_text()
    # the kernel answers another cell while the run waits for the decision
    run_quick_cell(page, 2)
    page.locator(".jp-Notebook .jp-Cell").nth(2).locator(".jp-OutputArea").get_by_text(
        "42"
    ).wait_for(timeout=30_000)
    assert not (ask_server.root / "nb-plan.md").exists()
    screenshot(page, "agent-notebook-waiting")
    button(card, "Approve").click()
    view.get_by_text("ended: done").wait_for(timeout=30_000)
    assert (ask_server.root / "nb-plan.md").read_text() == "# Plan\n"
    view.get_by_text("Done: nb-plan.md is written.").wait_for()
    screenshot(page, "agent-notebook-done")
    assert fake.key not in page.content()


def _fix_notebook(path: Path) -> None:
    from support.cell_notebooks import code, notebook

    path.write_text(notebook(code("values = [3, 4, 5]", id="load"),
                             code("print('mean', totl / len(values))", id="mean")))  # fmt: skip


def _fix_script(fake: FakeOpenAI, name: str, ids: tuple[str, str] = ("load", "mean")) -> None:
    from support.cell_runs import FIXED

    load, mean = ids
    fake.add(
        "Running it.\n" + block("r1", "nb.runCell", notebook=name, cell_id=load) + "\n"
        + block("r2", "nb.runCell", notebook=name, cell_id=mean),
        "A typo.\n" + block("e1", "nb.replaceCell", notebook=name, cell_id=mean,
                            content_b64=b64(FIXED)),
        "The notebook runs without errors now.",
    )  # fmt: skip


def _results_sent(fake: FakeOpenAI, back: int) -> dict:
    from jupyter_operator.protocol import parse_results

    text = fake.requests[-back]["messages"][-1]["content"]
    return {result.id: result for result in parse_results(text)}


def test_ask_mode_fixes_an_error_by_running_cells(
    ask_server: LabServer, page, fake: FakeOpenAI
) -> None:
    """The fix-the-error loop in the panel: the model runs cells (the notebook opens and runs
    them in its own kernel), reads the traceback, and the person approves its fix with
    Approve & Run."""
    _fix_notebook(ask_server.root / "fix-ask.ipynb")
    _fix_script(fake, "fix-ask.ipynb")
    open_ask(page, ask_server)
    page.locator(f"{ASK} .jp-Operator-ask-task").fill("Make fix-ask.ipynb run without errors")
    page.locator(f"{ASK} .jp-Operator-ask-button").click()
    for run_id in ("r1", "r2"):
        run = page.locator(f'{ASK} .jp-Operator-card[data-id="{run_id}"][data-status="pending"]')
        run.wait_for(timeout=60_000)
        run.locator(".jp-Operator-approve").click()
    page.locator(f'{ASK} .jp-Operator-card[data-id="r2"][data-status="failed"]').wait_for(
        timeout=60_000)
    # The notebook was opened for the run; the error is in its cell, as if the person ran it.
    page.locator(".jp-NotebookPanel:visible .jp-Cell").nth(1).locator(".jp-OutputArea").get_by_text(
        "NameError").first.wait_for(timeout=30_000)
    fix = page.locator(f'{ASK} .jp-Operator-card[data-id="e1"][data-status="pending"]')
    fix.wait_for(timeout=60_000)
    screenshot(page, "ask-mode-fix-error")
    fix.locator(".jp-Operator-approve-run").click()
    page.locator(f"{ASK} .jp-Operator-ask-status").filter(has_text="ended").wait_for(
        timeout=60_000)
    page.locator(".jp-NotebookPanel:visible .jp-Cell").nth(1).locator(".jp-OutputArea").get_by_text(
        "mean 4.0").wait_for(timeout=30_000)
    first, second = _results_sent(fake, 2), _results_sent(fake, 1)
    assert first["r2"].code == "ERR_CELL_ERROR" and "NameError" in first["r2"].summary
    assert "name 'totl' is not defined" in (first["r2"].details or "")
    assert second["e1"].ok and "mean 4.0" in (second["e1"].details or "")
    screenshot(page, "ask-mode-fixed")
    assert page.console_errors == []


def test_operator_agent_in_the_notebook_runs_its_cells(
    ask_server: LabServer, page, fake: FakeOpenAI, tmp_path: Path
) -> None:
    """``%%operator_agent`` works on the notebook it runs in: its runs happen in the open
    notebook (the output in the cell), its fix is shown in the open cell at once."""

    setup = setup_source(
        tmp_path / "journal",
        f"os.environ['JUPYTER_OPERATOR_TRANSCRIPT_DIR'] = {str(tmp_path / 'runs')!r}",
        f"%operator model fake-model --base-url {fake.url}",
    )
    cells = ["values = [3, 4, 5]", "print('mean', totl / len(values))",
             "%%operator_agent --max-turns 5\nMake this notebook run without errors."]  # fmt: skip
    (ask_server.root / "agent-fix.ipynb").write_text(
        json.dumps(magic_notebook(tmp_path / "journal", *cells, setup=setup)))
    _fix_script(fake, "agent-fix.ipynb", ("c1", "c2"))
    page.goto(ask_server.page_url("lab/workspaces/agent-fix/tree/agent-fix.ipynb"))
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=60_000)
    run_quick_cell(page, 0)
    run_quick_cell(page, 3)
    view = page.locator(".jpo-agent")
    for run_id in ("r1", "r2"):
        run = card_by_id(view, run_id)
        status_is(run, "pending", timeout=60_000)
        assert "NOT sandboxed" in run.inner_text()
        button(run, "Run").click()
    cells_ = page.locator(".jp-Notebook .jp-Cell")
    cells_.nth(2).locator(".jp-OutputArea").get_by_text("NameError").first.wait_for(
        timeout=60_000)
    fix = card_by_id(view, "e1")
    status_is(fix, "pending", timeout=60_000)
    screenshot(page, "agent-notebook-fix-error")
    button(fix, "Approve & Run").click()
    view.get_by_text("ended: done").wait_for(timeout=60_000)
    cells_.nth(2).locator(".jp-OutputArea").get_by_text("mean 4.0").wait_for(timeout=30_000)
    assert "total = sum(values)" in cells_.nth(2).locator(".jp-InputArea-editor").inner_text()
    first, second = _results_sent(fake, 2), _results_sent(fake, 1)
    assert first["r2"].code == "ERR_CELL_ERROR"
    assert second["e1"].ok and "mean 4.0" in (second["e1"].details or "")
    screenshot(page, "agent-notebook-fixed")


def test_the_notebook_agent_asks_and_the_answer_in_the_cell_continues(
    ask_server: LabServer, page, fake: FakeOpenAI, tmp_path: Path
) -> None:
    import re

    fake.add(
        "Which file name should the plan have?",
        Script("Writing it.\n" + block("nb-q1", "fs.write", path="nb-answered.md",
                                       content_b64=b64("# Plan\n")), chunk=8),
        "Done: nb-answered.md is written.",
    )  # fmt: skip
    view = run_agent_notebook(page, ask_server, fake, tmp_path, "agent-q")
    view.get_by_text("The model asks:").wait_for(timeout=60_000)
    assert "waiting for your answer" in view.locator(".jpo-agent-bar").inner_text()
    view.locator("textarea").fill("nb-answered.md")
    screenshot(page, "agent-notebook-question")
    view.locator("button.jupyter-button", has_text=re.compile(r"^\s*Answer\s*$")).click()
    view.get_by_text("You answered: nb-answered.md").wait_for(timeout=30_000)
    card = cards(view, kind="mutation")
    card.wait_for(timeout=60_000)
    button(card, "Approve").click()
    view.get_by_text("ended: done").wait_for(timeout=30_000)
    assert (ask_server.root / "nb-answered.md").read_text() == "# Plan\n"
    assert fake.requests[-2]["messages"][-1] == {"role": "user", "content": "nb-answered.md"}
    screenshot(page, "agent-notebook-answered")


def test_fix_with_operator_sends_the_traceback_and_the_approved_fix_runs(
    ask_server: LabServer, page, fake: FakeOpenAI
) -> None:
    """"Fix with Operator" on a cell's error output: the model gets the cell, its traceback
    without colour codes and the notebook; the person approves & runs its fix, the cell ends
    without an error and the rerun's result goes back to the model."""
    from support.cell_notebooks import code, notebook

    fixed = "print('ratio', total / max(count, 1))"
    (ask_server.root / "ratio.ipynb").write_text(notebook(
        code("total, count = 6, 0", id="load"),
        code("print('ratio', total / count)", id="ratio")))  # fmt: skip
    fake.add(
        "Dividing by a zero count.\n" + block("f1", "nb.replaceCell", notebook="ratio.ipynb",
                                               cell_id="ratio", content_b64=b64(fixed)),
        "The cell runs without an error now.",
    )  # fmt: skip
    asked = len(fake.requests)
    page.goto(ask_server.page_url("lab/workspaces/fix-error/tree/ratio.ipynb"))
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=60_000)
    run_quick_cell(page, 0)
    run_quick_cell(page, 1)
    output = page.locator(".jp-NotebookPanel:visible .jp-Cell").nth(1).locator(".jp-OutputArea")
    output.get_by_text("ZeroDivisionError").first.wait_for(timeout=30_000)
    fix_button = output.locator(".jp-Operator-fix-error")
    fix_button.wait_for()
    assert page.locator(".jp-Operator-fix-error").count() == 1  # only the failed cell has one
    traceback = output.locator(".jp-OutputArea-output").first.bounding_box()
    place = fix_button.bounding_box()
    assert traceback is not None and place is not None
    # below the traceback, which keeps the whole width of the output area
    assert place["y"] >= traceback["y"] + traceback["height"] - 1, (place, traceback)
    assert place["x"] == pytest.approx(traceback["x"], abs=2), (place, traceback)
    screenshot(page, "fix-error-button")
    fix_button.click()
    card = page.locator(f'{ASK} .jp-Operator-card[data-id="f1"][data-status="pending"]')
    card.wait_for(timeout=60_000)
    sent = fake.requests[asked]["messages"][-1]["content"]
    assert "ZeroDivisionError: division by zero" in sent
    assert "print('ratio', total / count)" in sent and "total, count = 6, 0" in sent
    assert "cell ratio (index 1) of the notebook ratio.ipynb" in sent
    assert "\x1b" not in sent and "[0;31m" not in sent
    task = page.locator(f"{ASK} .jp-Operator-ask-task").input_value()
    assert task == sent  # the Ask box shows what the model was asked
    screenshot(page, "fix-error-offered")
    card.locator(".jp-Operator-approve-run").click()
    page.locator(f"{ASK} .jp-Operator-ask-status").filter(has_text="ended").wait_for(
        timeout=60_000)
    output.get_by_text("ratio 6.0").wait_for(timeout=30_000)
    assert output.get_by_text("ZeroDivisionError").count() == 0
    assert output.locator(".jp-Operator-fix-error").count() == 0
    rerun = _results_sent(fake, 1)["f1"]
    assert rerun.ok and "ratio 6.0" in (rerun.details or "")
    screenshot(page, "fix-error-fixed")
    assert page.console_errors == []


def test_the_fix_shortcut_asks_about_the_active_cells_error(
    ask_server: LabServer, page, fake: FakeOpenAI
) -> None:
    """Ctrl+Alt+F (the command's default shortcut) on the failed cell starts the same run."""
    from support.cell_notebooks import code, notebook

    (ask_server.root / "keys.ipynb").write_text(notebook(code("1 / 0", id="boom")))
    fake.add("The cell divides by zero on purpose; nothing to change.")
    asked = len(fake.requests)
    page.goto(ask_server.page_url("lab/workspaces/fix-keys/tree/keys.ipynb"))
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=60_000)
    run_quick_cell(page, 0)
    cell = page.locator(".jp-NotebookPanel:visible .jp-Cell").nth(0)
    cell.locator(".jp-Operator-fix-error").wait_for(timeout=30_000)
    cell.locator(".jp-InputPrompt").click()  # the failed cell is the active one
    page.keyboard.press("Escape")
    page.keyboard.press("Control+Alt+f")
    status = page.locator(f"{ASK} .jp-Operator-ask-status")
    status.filter(has_text="ended").wait_for(timeout=60_000)
    sent = fake.requests[asked]["messages"][-1]["content"]
    assert "cell boom (index 0) of the notebook keys.ipynb" in sent
    assert "ZeroDivisionError: division by zero" in sent and "\x1b" not in sent


def test_the_notebooks_thread_continues_and_a_reload_shows_it_again(
    ask_server: LabServer, page, fake: FakeOpenAI
) -> None:
    """The Ask view keeps one conversation per notebook: a follow-up continues it, a page
    reload shows it again, New thread starts afresh."""
    from support.cell_notebooks import code, notebook

    (ask_server.root / "thread.ipynb").write_text(notebook(code("ratio = 6 / 3", id="r")))
    fake.add("It computes a ratio.", "The ratio is 2.0.", "Hello again.")
    page.goto(ask_server.page_url("lab/workspaces/ask-thread/tree/thread.ipynb"))
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=60_000)
    show_operator_panel(page)
    page.locator(f"{ASK} .jp-Operator-ask-summary").click()
    name = page.locator(f"{ASK} .jp-Operator-ask-thread-name")
    name.filter(has_text="Thread: thread.ipynb").wait_for()
    status = page.locator(f"{ASK} .jp-Operator-ask-status")
    box = page.locator(f"{ASK} .jp-Operator-ask-task")
    for turn, task in enumerate(("What does this notebook do?", "And its value?"), 1):
        box.fill(task)
        page.locator(f"{ASK} .jp-Operator-ask-button").click()
        status.filter(has_text="ended").wait_for(timeout=30_000)
        page.locator(f"{ASK} .jp-Operator-ask-prose").filter(
            has_text="It computes a ratio." if turn == 1 else "The ratio is 2.0.").wait_for()
    said = [(m["role"], m["content"]) for m in fake.requests[-1]["messages"][1:]]
    assert said == [("user", "What does this notebook do?"),
                    ("assistant", "It computes a ratio."), ("user", "And its value?")]  # fmt: skip

    page.reload()
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=60_000)
    show_operator_panel(page)
    summary = page.locator(f"{ASK} .jp-Operator-ask-summary")
    summary.wait_for(timeout=60_000)
    if page.locator(f"{ASK}[open]").count() == 0:
        summary.click()
    log = page.locator(f"{ASK} .jp-Operator-ask-thread-log")
    log.get_by_text("The ratio is 2.0.").wait_for(timeout=30_000)
    shown = log.locator(".jp-Operator-ask-thread-text").all_text_contents()
    assert shown == ["What does this notebook do?", "It computes a ratio.", "And its value?",
                     "The ratio is 2.0."]  # fmt: skip
    assert "Thread: thread.ipynb" in (name.text_content() or "")
    screenshot(page, "ask-thread-after-reload")

    page.locator(f"{ASK} .jp-Operator-ask-new-thread").click()
    log.locator(".jp-Operator-ask-thread-text").first.wait_for(state="detached")
    box.fill("Hello")
    page.locator(f"{ASK} .jp-Operator-ask-button").click()
    status.filter(has_text="ended").wait_for(timeout=30_000)
    assert [m["role"] for m in fake.requests[-1]["messages"]] == ["system", "user"]
    assert page.console_errors == []
