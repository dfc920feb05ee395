"""A notebook saved by the person after deciding its cards, reopened without a kernel (trusted,
as the person's own file, and untrusted, as a shared copy), in JupyterLab and Notebook 7: every
card shows its final state statically, never "Error displaying widget: model not found"."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import nbformat
import pytest
from browserkit import LabServer, screenshot, start_server, stop_server
from notebook_cards import button, card_for, status_is
from test_demo_notebooks import (  # noqa: F401  (demo_server is a fixture)
    WIDGET_MIME,
    demo_server,
    open_notebook,
    run_code_cell,
    save,
)

pytestmark = pytest.mark.timeout(420)

OPERATOR_CELL = 3  # the quickstart's %%operator cell (code cells, 0-based)


def card_output(path: Path) -> dict[str, Any]:
    """The saved output of the quickstart's %%operator cell (the run's display)."""
    nb = nbformat.read(path, as_version=4)
    cell = [c for c in nb.cells if c.cell_type == "code"][OPERATOR_CELL]
    [found] = [o for o in cell.outputs if "jupyter_operator" in o.get("metadata", {})]
    return found


def shut_down_kernels(server: LabServer) -> None:
    def call(method: str, path: str) -> Any:
        request = urllib.request.Request(
            f"{server.url}api/{path}", method=method,
            headers={"Authorization": f"token {server.token}"},
        )  # fmt: skip
        with urllib.request.urlopen(request, timeout=30) as response:
            body = response.read()
            return json.loads(body) if body else None

    for session in call("GET", "sessions"):
        call("DELETE", f"sessions/{session['id']}")
    assert call("GET", "kernels") == []


def copy_without_kernel(saved: Path, name: str, *, trusted: bool, widget: bool = False) -> Path:
    """The saved notebook with no kernel to start (``none``); signed as the person's own file
    when ``trusted`` (a copy nobody signed is untrusted). ``widget`` puts the widget view back
    (the file as it was saved before the save hook, for the control case)."""
    nb = nbformat.read(saved, as_version=4)
    nb.metadata.pop("kernelspec", None)  # the app then asks which kernel: "No Kernel"
    # Each copy differs, so signing one never makes another trusted (signatures are kept
    # by content).
    nb.metadata["copy_of"] = {"name": saved.name, "as": name}
    if widget:
        cell = [c for c in nb.cells if c.cell_type == "code"][OPERATOR_CELL]
        for output in cell.outputs:
            if "jupyter_operator" in output.get("metadata", {}):
                output["data"][WIDGET_MIME] = {"model_id": "0" * 32, "version_major": 2,
                                               "version_minor": 0}  # fmt: skip
    target = saved.parent / name
    nbformat.write(nb, target)
    if trusted:  # what the server does when the person saves: sign with the same secret
        env = dict(os.environ, JUPYTER_PLATFORM_DIRS="1")
        subprocess.run([sys.executable, "-m", "jupyter", "trust", str(target)], env=env,
                       check=True, capture_output=True)  # fmt: skip
    return target


def reopen(page: Any, server: LabServer, name: str, app: str) -> Any:
    """Open ``name`` (which has no kernel to start) and return the %%operator cell's output."""
    if app == "lab":
        page.goto(server.page_url(f"lab/workspaces/{name.split('.')[0]}/tree/{name}"))
    else:
        page.goto(server.page_url(f"notebooks/{name}"))
    no_kernel = page.locator(".jp-Dialog button", has_text="No Kernel")
    try:
        no_kernel.wait_for(timeout=20_000)
        no_kernel.click()
    except Exception:  # no dialog: the app chose "No Kernel" itself
        pass
    cell = page.locator(".jp-Notebook .jp-CodeCell").nth(OPERATOR_CELL)
    cell.scroll_into_view_if_needed()
    output = cell.locator(".jp-OutputArea")
    output.locator(".jp-OutputArea-output").first.wait_for(timeout=60_000)
    kernel = page.locator("#jp-main-statusbar, .jp-NotebookPanel-toolbar").first
    assert "No Kernel" in kernel.inner_text(), kernel.inner_text()
    page.wait_for_timeout(1_500)  # a widget renderer reports "model not found" within this
    return output


def check_final_state(output: Any) -> None:
    static = output.locator(".jpo-static")
    static.wait_for(timeout=30_000)
    write = static.locator(".jpo-card.jpo-kind-mutation", has_text="plan.md")
    edit = static.locator(".jpo-card.jpo-kind-mutation", has_text="notes.txt")
    assert "[Applied]" in write.text_content()
    assert "[Rejected]" in edit.text_content()
    text = output.inner_text()
    assert "model not found" not in text and "Error displaying widget" not in text
    assert "[pending]" not in text and "waiting for you" not in text.lower()
    # The results for the model, as a static copy (the live Copy box is a widget).
    results = static.locator(".jpo-static-results")
    results.locator("summary").click()
    assert "id: write-1\nok: true" in results.locator("pre").inner_text()


@pytest.mark.parametrize("demo_server", ["lab", "notebook"], indirect=True)
def test_saved_notebook_reopened_without_kernel(
    demo_server: LabServer,  # noqa: F811  (the fixture imported above)
    page: Any,
    request: Any,
    tmp_path: Path,
) -> None:
    app = request.node.callspec.params["demo_server"]
    open_notebook(page, demo_server, "01-quickstart.ipynb", app)
    for index in range(OPERATOR_CELL + 1):
        run_code_cell(page, index)
    write, edit = card_for(page, "plan.md"), card_for(page, "notes.txt")
    status_is(write, "pending", timeout=60_000)
    button(write, "Approve").click()
    status_is(write, "applied")
    button(edit, "Reject").click()
    status_is(edit, "rejected")
    # The live view keeps its controls (the Copy button) after the decisions.
    page.locator(".jp-Operator-run-widget .jp-Operator-copy").wait_for()

    path = demo_server.root / "01-quickstart.ipynb"
    # The kernel's update of the saved view follows the click by a moment: a save made in
    # between holds the view as it was, and the next save the final one.
    for _ in range(10):
        save(page, path)
        saved = card_output(path)
        if saved["metadata"]["jupyter_operator"]["final"]:
            break
        page.wait_for_timeout(500)
    # Every card is decided: the saved output is its static view only, marked final.
    assert saved["metadata"]["jupyter_operator"] == {"final": True}, saved["data"]["text/plain"]
    assert WIDGET_MIME not in saved["data"]
    assert "[Applied] fs.write plan.md (write-1)" in saved["data"]["text/plain"]
    assert "jpo-static-results" in saved["data"]["text/html"]
    shut_down_kernels(demo_server)

    trusted = copy_without_kernel(path, "trusted.ipynb", trusted=True)
    untrusted = copy_without_kernel(path, "shared.ipynb", trusted=False)
    # The control: a trusted copy with the widget view still in it (as saved before the save
    # hook) is taken by the widget renderer, so the trusted copy really is rendered as trusted.
    control = copy_without_kernel(path, "control.ipynb", trusted=True, widget=True)

    # The same folder served again with no kernel to start at all.
    stop_server(demo_server)
    server = start_server(
        demo_server.root, tmp_path / "settings", app=app,
        extra_args=["--KernelSpecManager.allowed_kernelspecs=no-such-kernel"],
    )  # fmt: skip
    try:
        for copy in (trusted, untrusted):
            output = reopen(page, server, copy.name, app)
            check_final_state(output)
            screenshot(page, f"saved-notebook-{app}-{copy.stem}-without-kernel")
        output = reopen(page, server, control.name, app)
        # With no kernel the widget renderer waits forever ("Loading widget..."); with a new
        # kernel it says "model not found": either way, never the card.
        output.get_by_text(re.compile("Loading widget|model not found")).wait_for()
        assert output.locator(".jpo-static").count() == 0
        screenshot(page, f"saved-notebook-{app}-control-widget-view-kept")
    finally:
        stop_server(server)
