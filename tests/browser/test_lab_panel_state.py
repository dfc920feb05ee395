"""The Operator panel keeps telling the truth over time: undo and redo from the History view,
a page reload and a server restart with a proposal still pending, a rejected base change and
the change built on it, the folder every card's paths are taken from."""

from __future__ import annotations

from pathlib import Path

import pytest
from browserkit import show_operator_panel, start_server, stop_server, wait_for_launcher
from test_lab_panel import (
    PANEL,
    b64,
    card,
    command,
    edits,
    open_lab,
    results_text,
    run_reply,
    screenshot,
    wait_status,
)

from jupyter_operator.protocol import parse_results

pytestmark = pytest.mark.timeout(300)


def history_row(page, command_id: str):
    return page.locator(f"{PANEL} .jp-Operator-history-row", has_text=f"{command_id} (")


def open_history(page) -> None:
    history = page.locator(f"{PANEL} .jp-Operator-history")
    if history.get_attribute("open") is None:
        history.locator("summary").first.click()


def test_undo_from_history_updates_cards_and_results(lab_server, page) -> None:
    root = lab_server.root
    (root / "hist.txt").write_text("one\n")
    open_lab(page, lab_server)
    run_reply(
        page,
        "\n".join([
            command("h1", "fs.write", "hist.txt", content_b64=b64("two\n")),
            command("h2", "fs.write", "hist-other.txt", content_b64=b64("other\n")),
        ]),
    )  # fmt: skip
    wait_status(page, "h1", "pending")
    # Every card says which folder its path is taken from (relative to the server root).
    assert "the server root" in card(page, "h1").locator(".jp-Operator-card-where").text_content()
    page.locator(f"{PANEL} .jp-Operator-approve-all").click()
    wait_status(page, "h1", "applied")
    wait_status(page, "h2", "applied")
    # A second reply changes the same file again, so h1 is no longer the latest change to it.
    run_reply(page, command("h3", "fs.write", "hist.txt", content_b64=b64("three\n")))
    wait_status(page, "h3", "pending")
    card(page, "h3").locator(".jp-Operator-approve").click()
    wait_status(page, "h3", "applied")

    open_history(page)
    history_row(page, "h1").wait_for()
    row = history_row(page, "h1")
    assert "approved by a person" in row.text_content()
    meta = row.locator(".jp-Operator-history-meta").text_content()
    assert "session" in meta and "applied on disk" in meta  # where the change landed
    row.locator(".jp-Operator-history-diff summary").click()
    assert "two" in row.locator(".cm-content").text_content()
    # A created file's diff is not kept in the journal: the history makes it again from the
    # bytes kept for redo, and shows it as it showed a kept one.
    created = history_row(page, "h2")
    created.locator(".jp-Operator-history-diff summary").click()
    assert "other" in created.locator(".cm-content").text_content()
    screenshot(page, "lab-panel-history-created-diff")

    # Undoing the older entry is refused, and the reason names the later change to undo first.
    row.locator(".jp-Operator-history-undo").click()
    error = page.locator(f"{PANEL} > .jp-Operator-error")  # the panel's own (not Ask mode's)
    error.wait_for(state="visible")
    assert (root / "hist.txt").read_text() == "three\n"
    message = error.text_content()
    assert "hist.txt" in message and "changed" in message, message
    screenshot(page, "lab-panel-history-refused")

    # Undo the newest change from its own card's session, then the older one from history.
    history_row(page, "h3").locator(".jp-Operator-history-undo").click()
    wait_status(page, "h3", "undone")
    assert (root / "hist.txt").read_text() == "two\n"
    # No stale note beside a new error, and the error of the refusal is gone.
    assert error.is_hidden()
    assert "Undid" in page.locator(f"{PANEL} .jp-Operator-note").text_content()
    results = {r.id: r for r in parse_results(results_text(page))}
    assert not results["h3"].ok and "undid" in results["h3"].summary

    history_row(page, "h1").locator(".jp-Operator-history-undo").click()
    undone_row = f"{PANEL} .jp-Operator-history-row[data-undone='true']"
    page.locator(undone_row, has_text="h1 (").wait_for()
    assert (root / "hist.txt").read_text() == "one\n"
    screenshot(page, "lab-panel-history")
    assert not [e for e in page.console_errors if "operator" in e.lower()]


def test_a_rejected_base_and_its_dependent_change(lab_server, page) -> None:
    root = lab_server.root
    open_lab(page, lab_server)
    reply = "\n".join([
        command("base-1", "fs.write", "based.txt", content="first"),
        command("dep-1", "fs.applyEdits", "based.txt",
                edits_b64=edits({"op": "replaceAll", "find": "first", "text": "second"})),
    ])  # fmt: skip
    run_reply(page, reply)
    wait_status(page, "dep-1", "pending")
    dependent = card(page, "dep-1")
    # The dependency is written on the card, and its Approve is disabled and looks it.
    note = dependent.locator(".jp-Operator-dependency")
    assert note.is_visible() and "Builds on base-1" in note.text_content()
    approve = dependent.locator(".jp-Operator-approve")
    assert approve.is_disabled()
    assert float(approve.evaluate("el => getComputedStyle(el).opacity")) < 0.6
    screenshot(page, "lab-panel-dependent")
    card(page, "base-1").locator(".jp-Operator-reject").click()
    wait_status(page, "base-1", "rejected")
    wait_status(page, "dep-1", "rejected")
    assert "ERR_BASE_REJECTED" in dependent.text_content()
    assert note.is_hidden()
    results = {r.id: r for r in parse_results(results_text(page))}
    assert results["dep-1"].summary.startswith("Not applied (ERR_BASE_REJECTED)")
    assert "Invalid OPERATOR_CMD" not in results["dep-1"].summary
    assert not (root / "based.txt").exists()


def test_reload_with_a_pending_proposal_then_decide(lab_server, page) -> None:
    root = lab_server.root
    (root / "reload.txt").write_text("before\n")
    open_lab(page, lab_server)
    reply = "Here is the change.\n" + command(
        "rl-1", "fs.write", "reload.txt", content_b64=b64("after\n")
    )
    run_reply(page, reply)
    wait_status(page, "rl-1", "pending")
    page.reload()
    open_lab_again(page)
    wait_status(page, "rl-1", "pending")
    assert "Reopened" in page.locator(f"{PANEL} .jp-Operator-note").text_content()
    # The reply box comes back too, beside its cards.
    box = page.locator(f"{PANEL} .jp-Operator-input")
    assert box.input_value() == reply
    card(page, "rl-1").locator(".jp-Operator-approve").click()
    wait_status(page, "rl-1", "applied")
    assert (root / "reload.txt").read_text() == "after\n"
    # A reply typed but not run yet is kept as well.
    # No wait: a reload right after typing (inside the save debounce) keeps it too.
    box.fill("a draft, not run yet")
    page.reload()
    open_lab_again(page)
    assert page.locator(f"{PANEL} .jp-Operator-input").input_value() == "a draft, not run yet"
    screenshot(page, "lab-panel-reply-after-reload")


def open_lab_again(page) -> None:
    """After a reload: wait for the shell and the panel (its tab may need a click)."""
    page.locator("#jupyterlab-splash").wait_for(state="detached", timeout=60_000)
    wait_for_launcher(page)
    show_operator_panel(page)
    page.locator(f"{PANEL} .jp-Operator-input").wait_for(state="visible")


def test_restart_the_server_with_a_pending_proposal_then_decide(tmp_path: Path, page) -> None:
    root, settings, journal = tmp_path / "root", tmp_path / "settings", tmp_path / "journal"
    for folder in (root, settings, journal):
        folder.mkdir()
    (root / "restart.txt").write_text("old\n")
    env = {"JUPYTER_OPERATOR_JOURNAL_DIR": str(journal)}
    server = start_server(root, settings, extra_env=env)
    try:
        open_lab(page, server)
        run_reply(
            page,
            "\n".join([
                command("rs-1", "fs.write", "restart.txt", content_b64=b64("new\n")),
                command("rs-2", "fs.write", "restart2.txt", content_b64=b64("two\n")),
            ]),
        )  # fmt: skip
        wait_status(page, "rs-1", "pending")
        screenshot(page, "lab-panel-before-restart")
    finally:
        stop_server(server)
    # The same port keeps the page's origin, so the panel finds its session id again.
    server = start_server(root, settings, port=server.port, extra_env=env)
    try:
        page.reload()
        open_lab_again(page)
        wait_status(page, "rs-1", "pending")
        card(page, "rs-1").locator(".jp-Operator-approve").click()
        wait_status(page, "rs-1", "applied")
        assert (root / "restart.txt").read_text() == "new\n"
        # The other proposal is stale now: a person changed its file after the preview.
        (root / "restart2.txt").write_text("mine\n")
        card(page, "rs-2").locator(".jp-Operator-approve").click()
        wait_status(page, "rs-2", "stale")
        assert (root / "restart2.txt").read_text() == "mine\n"
        screenshot(page, "lab-panel-after-restart")
    finally:
        stop_server(server)


def test_running_the_same_reply_again_asks_nothing(lab_server, page) -> None:
    root = lab_server.root
    open_lab(page, lab_server)
    reply = command("same-1", "fs.write", "same.txt", content_b64=b64("same\n"))
    run_reply(page, reply)
    wait_status(page, "same-1", "pending")
    card(page, "same-1").locator(".jp-Operator-approve").click()
    wait_status(page, "same-1", "applied")
    # Again: the write would change nothing, so the engine settles it without a question.
    run_reply(page, reply)
    summary = card(page, "same-1").locator(".jp-Operator-card-summary", has_text="No change")
    summary.wait_for()
    wait_status(page, "same-1", "done")
    assert card(page, "same-1").locator(".jp-Operator-approve").is_hidden()
    assert page.locator(f"{PANEL} .jp-Operator-approve-all").is_hidden()
    assert (root / "same.txt").read_text() == "same\n"


def test_a_cell_runs_in_its_notebooks_folder(lab_server, page) -> None:
    """The panel takes a cell's paths from the notebook's folder, as the notebook's kernel does."""
    import json

    root = lab_server.root
    (root / "course").mkdir(exist_ok=True)
    (root / "course" / "data.txt").write_text("next to the notebook\n")
    (root / "data.txt").write_text("at the server root\n")
    answer = command("nb-1", "fs.read", "data.txt") + "\n"
    notebook = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": 1,
                "id": "c1",
                "metadata": {},
                "source": ["print(answer)"],
                "outputs": [{"output_type": "stream", "name": "stdout", "text": answer}],
            }
        ],
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (root / "course" / "lesson.ipynb").write_text(json.dumps(notebook))
    open_lab(page, lab_server, "course/lesson.ipynb")
    page.locator(".jp-Notebook .jp-Cell").first.click()
    page.locator('.jp-cell-toolbar [data-command="jupyter-operator:run-cell"]').first.click()
    wait_status(page, "nb-1", "done")
    assert "next to the notebook" in card(page, "nb-1").text_content()
    assert "course/" in card(page, "nb-1").locator(".jp-Operator-card-where").text_content()
    screenshot(page, "lab-panel-notebook-folder")
