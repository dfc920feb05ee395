"""The "Workspace files" view in a real JupyterLab: the reference client of the Editor File API.

One JupyterLab server with two workspaces (behind a non-root base_url, token auth on). The view
lists the workspace root, opens a file into CodeMirror, saves with Ctrl+S (the status goes
unsaved -> saving -> saved and the bytes reach the disk), and shows the API's refusals (a file
over 1 MB, a file that is not UTF-8, a save the jail refuses) as messages in plain words.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from browserkit import (
    LabServer,
    require_chromium,
    run_palette_command,
    screenshot,
    start_server,
    stop_server,
    wait_for_launcher,
)

pytestmark = pytest.mark.timeout(300)

VIEW = "#jupyter-operator-files"
STATUS = f"{VIEW} .jp-OperatorFiles-status"
NOTICE = f"{VIEW} .jp-OperatorFiles-notice"
MIB = 1_048_576
MARKUP = "<img src=x onerror=alert(1)>.txt"


@pytest.fixture(scope="module")
def files_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    """JupyterLab with a ``default`` workspace (the root) and a second one, ``scratch``."""
    require_chromium()
    root = tmp_path_factory.mktemp("files-root")
    scratch = tmp_path_factory.mktemp("files-scratch")
    settings = tmp_path_factory.mktemp("files-settings")
    (root / "notes.txt").write_bytes(b"first line\r\nsecond line\r\n")
    (root / "big.txt").write_bytes(b"x" * (MIB + 1))
    (root / "image.bin").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe\x00")
    (root / "victim.txt").write_text("inside\n")
    (root / "docs").mkdir()
    (root / MARKUP).write_text("<b>not bold</b>\n")
    (root / "docs" / "inner.md").write_text("# Inner\n")
    (scratch / "scratch-only.txt").write_text("scratch\n")
    extra = [
        f"--OperatorExtension.workspaces=default={root}",
        f"--OperatorExtension.workspaces=scratch={scratch}",
    ]
    server = start_server(root, settings, "lab", extra_args=extra)
    server.scratch = scratch  # type: ignore[attr-defined]
    yield server
    stop_server(server)


def open_files(page, server: LabServer) -> None:
    """Open JupyterLab in a workspace of its own, then the view through the palette."""
    page.goto(server.page_url(f"lab/workspaces/files-{uuid.uuid4().hex[:8]}"))
    page.locator('.lm-TabBar-tab[data-id="jupyter-operator-panel"]').wait_for(timeout=60_000)
    page.locator("#jupyterlab-splash").wait_for(state="detached", timeout=60_000)
    wait_for_launcher(page)
    run_palette_command(page, "workspace files", "Operator: Open workspace files")
    page.locator(f'{VIEW} [data-path="notes.txt"]').wait_for(timeout=30_000)


def entry(page, path: str):
    return page.locator(f'{VIEW} .jp-OperatorFiles-entry[data-path="{path}"]')


def wait_status(page, status: str) -> None:
    page.locator(f'{STATUS}[data-status="{status}"]').wait_for(timeout=20_000)


def editor_text(page) -> str:
    return page.locator(f"{VIEW} .cm-content").inner_text()


def test_list_open_edit_save(files_server: LabServer, page) -> None:
    root = files_server.root
    open_files(page, files_server)
    names = page.locator(f"{VIEW} .jp-OperatorFiles-entry .jp-OperatorFiles-name").all_inner_texts()
    assert names == ["docs/", MARKUP, "big.txt", "image.bin", "notes.txt", "victim.txt"]
    assert page.locator(STATUS).inner_text() == "No file open"
    # File names and contents are text, never markup.
    assert page.locator(f"{VIEW} img").count() == 0
    entry(page, MARKUP).click()
    wait_status(page, "saved")
    assert page.locator(f"{VIEW} .jp-OperatorFiles-path").inner_text() == MARKUP
    assert "<b>not bold</b>" in editor_text(page)
    assert page.locator(f"{VIEW} img, {VIEW} b").count() == 0
    assert "1.0 MB, over the 1.0 MB limit" in entry(page, "big.txt").inner_text()
    assert entry(page, "notes.txt").inner_text().endswith("25 B")
    # Two workspaces are configured, so the choice is shown.
    assert page.locator(f"{VIEW} .jp-OperatorFiles-workspace option").all_inner_texts() == [
        "default",
        "scratch",
    ]
    screenshot(page, "workspace-files-list")

    entry(page, "notes.txt").click()
    wait_status(page, "saved")
    assert page.locator(f"{VIEW} .jp-OperatorFiles-path").inner_text() == "notes.txt"
    assert "first line" in editor_text(page) and "second line" in editor_text(page)

    # Record every status the indicator shows from now on.
    page.locator(STATUS).evaluate(
        """el => { window.__statuses = [];
          new MutationObserver(() => window.__statuses.push(el.dataset.status))
            .observe(el, {attributes: true, attributeFilter: ['data-status']}); }"""
    )
    page.locator(f"{VIEW} .cm-content").click()
    page.keyboard.press("Control+End")
    page.keyboard.type("third line")
    wait_status(page, "unsaved")
    assert page.locator(STATUS).inner_text() == "Unsaved changes"
    assert root.joinpath("notes.txt").read_bytes() == b"first line\r\nsecond line\r\n"
    screenshot(page, "workspace-files-unsaved")

    page.keyboard.press("Control+s")
    wait_status(page, "saved")
    statuses = page.evaluate("() => window.__statuses")
    assert statuses[-2:] == ["saving", "saved"], statuses
    # The bytes on disk: the file's CRLF line endings kept, the new text appended.
    assert root.joinpath("notes.txt").read_bytes() == b"first line\r\nsecond line\r\nthird line"
    screenshot(page, "workspace-files-saved")

    # Folders are entered and left in the same flat list.
    page.locator(f'{VIEW} .jp-OperatorFiles-entry[data-kind="dir"]', has_text="docs/").click()
    entry(page, "docs/inner.md").click()
    page.wait_for_function(
        "() => document.querySelector('#jupyter-operator-files .jp-OperatorFiles-path')"
        ".textContent === 'docs/inner.md'"
    )
    assert "# Inner" in editor_text(page)
    page.locator(f"{VIEW} .jp-OperatorFiles-entry", has_text="..").click()
    entry(page, "notes.txt").wait_for()
    assert not [e for e in page.console_errors if "operator" in e.lower()]


def test_limits_are_shown_as_messages(files_server: LabServer, page) -> None:
    open_files(page, files_server)
    entry(page, "big.txt").click()
    page.locator(f'{NOTICE}[data-code="file_too_large"]').wait_for(timeout=20_000)
    notice = page.locator(NOTICE).inner_text()
    assert "larger than 1 MB" in notice and "(file_too_large)" in notice and "big.txt" in notice
    assert page.locator(f"{VIEW} .jp-OperatorFiles-editor").is_hidden()
    screenshot(page, "workspace-files-too-large")

    entry(page, "image.bin").click()
    page.locator(f'{NOTICE}[data-code="invalid_utf8"]').wait_for(timeout=20_000)
    notice = page.locator(NOTICE).inner_text()
    assert "not UTF-8 text" in notice and "(invalid_utf8)" in notice
    screenshot(page, "workspace-files-binary")

    # Opening a text file clears the message.
    entry(page, "notes.txt").click()
    wait_status(page, "saved")
    assert page.locator(NOTICE).is_hidden()

    # Unsaved changes are never dropped silently: opening another file asks first.
    before = (files_server.root / "notes.txt").read_bytes()
    page.locator(f"{VIEW} .cm-content").click()
    page.keyboard.type("draft ")
    wait_status(page, "unsaved")
    entry(page, "victim.txt").click()
    dialog = page.locator(".jp-Dialog")
    dialog.wait_for()
    assert "Discard unsaved changes?" in dialog.inner_text()
    dialog.get_by_role("button", name="Cancel").click()
    dialog.wait_for(state="detached")
    assert page.locator(f"{VIEW} .jp-OperatorFiles-path").inner_text() == "notes.txt"
    assert page.locator(STATUS).get_attribute("data-status") == "unsaved"
    entry(page, "victim.txt").click()
    dialog.get_by_role("button", name="Discard").click()
    page.wait_for_function(
        "() => document.querySelector('#jupyter-operator-files .jp-OperatorFiles-path')"
        ".textContent === 'victim.txt'"
    )
    wait_status(page, "saved")
    assert (files_server.root / "notes.txt").read_bytes() == before


def test_refused_save_shows_the_code_in_plain_words(
    files_server: LabServer, page, tmp_path: Path
) -> None:
    root = files_server.root
    outside = tmp_path / "outside.txt"
    outside.write_text("outside\n")
    open_files(page, files_server)
    entry(page, "victim.txt").click()
    wait_status(page, "saved")
    page.locator(f"{VIEW} .cm-content").click()
    page.keyboard.press("Control+Home")
    page.keyboard.type("edited ")
    wait_status(page, "unsaved")
    # Behind the editor's back the file becomes a link out of the workspace: the jail refuses.
    os.replace(root / "victim.txt", root / "victim.old")
    (root / "victim.txt").symlink_to(outside)
    try:
        page.locator(f"{VIEW} .jp-OperatorFiles-save").click()
        wait_status(page, "error")
        label = page.locator(STATUS).inner_text()
        assert label == "Not saved: This path is outside the workspace or protected. (path_escape)"
        assert outside.read_text() == "outside\n"
        screenshot(page, "workspace-files-save-error")
    finally:
        (root / "victim.txt").unlink()
        os.replace(root / "victim.old", root / "victim.txt")
    # The file is back: saving again works and the error goes.
    page.locator(f"{VIEW} .jp-OperatorFiles-save").click()
    wait_status(page, "saved")
    assert (root / "victim.txt").read_text() == "edited inside\n"


def test_workspace_choice_and_dark_theme(files_server: LabServer, page) -> None:
    open_files(page, files_server)
    light = page.locator(VIEW).evaluate("el => getComputedStyle(el).backgroundColor")
    page.locator(f"{VIEW} .jp-OperatorFiles-workspace").select_option("scratch")
    entry(page, "scratch-only.txt").wait_for(timeout=20_000)
    assert entry(page, "notes.txt").count() == 0
    entry(page, "scratch-only.txt").click()
    wait_status(page, "saved")
    page.locator(f"{VIEW} .cm-content").click()
    page.keyboard.press("Control+End")
    page.keyboard.type("more\n")
    page.keyboard.press("Control+s")
    wait_status(page, "saved")
    assert (files_server.scratch / "scratch-only.txt").read_text() == "scratch\nmore\n"  # type: ignore[attr-defined]
    assert not (files_server.root / "scratch-only.txt").exists()

    run_palette_command(page, "Use Theme: JupyterLab Dark", "JupyterLab Dark")
    try:
        page.wait_for_function(
            "() => document.body.dataset.jpThemeLight === 'false'", timeout=30_000
        )
        page.locator("#jupyterlab-splash").wait_for(state="detached", timeout=30_000)
        page.locator(f"{VIEW} .cm-content").wait_for()
        dark = page.locator(VIEW).evaluate("el => getComputedStyle(el).backgroundColor")
        assert dark != light
        screenshot(page, "workspace-files-dark")
    finally:
        run_palette_command(page, "Use Theme: JupyterLab Light", "JupyterLab Light")
        page.wait_for_function("() => document.body.dataset.jpThemeLight === 'true'")
