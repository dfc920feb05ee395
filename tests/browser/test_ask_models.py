"""Ask mode with a model added from the panel: no model in any config file, no restart.

The server starts with no model at all. The person adds the loopback endpoint with its key in
the panel's "Add model" form, then asks through it at once; each turn shows the tokens the
endpoint reported, and the cost from the server's price table. The key is typed once: no answer
of the server, no page content and no file of the workspace holds it afterwards, and the file
it is stored in (Jupyter's data folder) is owner-only.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from ask_views import ASK
from browserkit import (
    LabServer,
    require_chromium,
    run_palette_command,
    screenshot,
    start_server,
    stop_server,
)
from support.fake_openai import FakeOpenAI, Script
from support.replies import b64, block

import jupyter_operator

pytestmark = pytest.mark.timeout(240)

KEY = "sk-typed-once-in-the-panel-51c0ffee"


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(key=KEY) as server:
        yield server


@pytest.fixture(scope="module")
def bare_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    """JupyterLab with no model configured and no key in its environment; its own Jupyter
    data folder (where added endpoints are stored), which serves the lab extension of the
    package under test."""
    require_chromium()
    root = tmp_path_factory.mktemp("models-root")
    settings = tmp_path_factory.mktemp("models-settings")
    config = tmp_path_factory.mktemp("models-config")
    data = tmp_path_factory.mktemp("models-data")
    (data / "labextensions").mkdir()
    built = Path(jupyter_operator.__file__).parent / "labextension"
    (data / "labextensions" / "jupyter-operator").symlink_to(built, target_is_directory=True)
    (config / "jupyter_server_config.json").write_text(json.dumps({
        "OperatorAgent": {"transcripts_dir": str(tmp_path_factory.mktemp("models-runs")),
                          "prices": {"fake-model": [1000, 2000]}},
        "OperatorExtension": {"journal_dir": str(tmp_path_factory.mktemp("models-journal"))},
    }))  # fmt: skip
    with pytest.MonkeyPatch.context() as env:
        for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "JUPYTER_OPERATOR_MODEL"):
            env.delenv(name, raising=False)
        env.setenv("JUPYTER_CONFIG_DIR", str(config))
        env.setenv("JUPYTER_DATA_DIR", str(data))
        env.setenv("JUPYTER_PREFER_ENV_PATH", "0")  # this data folder's extension first
        # Every request logged (debug): the key must not be in any line of it.
        server = start_server(root, settings, "lab", extra_args=["--ServerApp.log_level=DEBUG"])
    server.data = data  # type: ignore[attr-defined]
    server.log = settings / "lab.log"  # type: ignore[attr-defined]
    server.settings_dir = settings  # type: ignore[attr-defined]
    yield server
    stop_server(server)


def open_panel_ask(page, server: LabServer) -> None:
    page.goto(server.page_url("lab/workspaces/models"))
    tab = page.locator('.lm-TabBar-tab[data-id="jupyter-operator-panel"]')
    tab.wait_for(timeout=60_000)
    page.locator("#jupyterlab-splash").wait_for(state="detached", timeout=60_000)
    if "lm-mod-current" not in (tab.get_attribute("class") or ""):
        tab.click()
    open_ask(page)


def open_ask(page) -> None:
    """Unfold Ask unless it is open already (with no model, Lab opens it on Add model once)."""
    ask = page.locator(ASK)
    for _ in range(3):
        if ask.evaluate("details => details.open"):
            return
        ask.locator(".jp-Operator-ask-summary").click()
        page.wait_for_timeout(300)  # the offer may have opened it just before the click
    assert ask.evaluate("details => details.open")


def test_add_a_model_in_the_panel_and_ask_through_it_without_a_restart(
    bare_server: LabServer, page, fake: FakeOpenAI
) -> None:
    answers: list[str] = []

    def keep(response) -> None:  # every answer of the extension's API, to look for the key
        if "/jupyter-operator/api/" in response.url:
            with contextlib.suppress(Exception):  # an event stream still open at the end
                answers.append(response.text())

    page.on("response", keep)
    open_panel_ask(page, bare_server)
    status = page.locator(f"{ASK} .jp-Operator-ask-status")
    status.filter(has_text="No model configured on the server").wait_for()
    assert page.locator(f"{ASK} .jp-Operator-ask-button").is_disabled()

    form = page.locator(f"{ASK} .jp-Operator-ask-addform")
    form.wait_for(state="visible")  # offered once: no model on the server yet
    form.get_by_label("Endpoint name").fill("loopback")
    form.get_by_label("Base URL").fill(fake.url)
    form.get_by_label("Model name at the endpoint").fill("fake-model")
    form.get_by_label("API key").fill(KEY)
    screenshot(page, "ask-models-add-form")
    form.get_by_role("button", name="Save the model endpoint").click()
    form.wait_for(state="hidden")
    picker = page.get_by_label("Model to ask")
    picker.locator('option[value="loopback"]').wait_for(state="attached")
    assert picker.input_value() == "loopback"
    assert "loopback: fake-model at 127.0.0.1" in (picker.locator("option:checked").text_content()
                                                   or "")  # fmt: skip
    assert form.get_by_label("API key").input_value() == ""  # not kept in the page
    assert page.locator(f"{ASK} .jp-Operator-ask-button").is_enabled()

    (bare_server.root / "notes.txt").write_text("alpha\n")
    fake.add(
        Script("Writing.\n" + block("w1", "fs.write", path="plan.md",
                                      content_b64=b64("# Plan\n")), usage=(1200, 345)),
        Script("Done: plan.md is written.", usage=(2000, 7)),
    )  # fmt: skip
    page.locator(f"{ASK} .jp-Operator-ask-task").fill("Write a plan")
    page.locator(f"{ASK} .jp-Operator-ask-button").click()
    write = page.locator(f'{ASK} .jp-Operator-card[data-id="w1"][data-status="pending"]')
    write.wait_for(timeout=30_000)
    turns = page.locator(f"{ASK} .jp-Operator-ask-turn")
    # The endpoint's usage of turn 1 (1200 + 345 tokens at 1000 and 2000 a million: 1.2 + 0.69)
    usage = turns.nth(0).locator(".jp-Operator-ask-usage")
    assert usage.text_content() == "· 1,545 tokens (1,200 in, 345 out) · $1.89"
    assert "· 1,545 tokens · $1.89 · waiting for you" in (status.text_content() or "")
    screenshot(page, "ask-models-turn-usage")
    write.locator(".jp-Operator-approve").click()
    status.filter(has_text="ended").wait_for(timeout=30_000)
    second = turns.nth(1).locator(".jp-Operator-ask-usage")
    assert second.text_content() == "· 2,007 tokens (2,000 in, 7 out) · $2.01"
    assert "Turn 2/10 · 3,552 tokens · $3.90 · ended" in (status.text_content() or "")
    assert (bare_server.root / "plan.md").read_text() == "# Plan\n"
    screenshot(page, "ask-models-done")

    # A cost budget from Ask's options stops the next run cleanly once it is reached.
    fake.add(Script(block("l1", "fs.list", path="."), usage=(1200, 345)),
             Script(block("l2", "fs.list", path="."), usage=(1200, 345)))  # fmt: skip
    page.locator(f"{ASK} .jp-Operator-ask-options-summary").click()
    page.get_by_label("Budget: most cost for the run").fill("1")
    page.locator(f"{ASK} .jp-Operator-ask-task").fill("List the files")
    page.locator(f"{ASK} .jp-Operator-ask-button").click()
    status.filter(has_text="the cost budget ($1) is used up").wait_for(timeout=30_000)
    assert "Turn 1/10 · 1,545 tokens · $1.89" in (status.text_content() or "")
    assert fake.scripts, "the run asked the model again after its budget was used up"
    screenshot(page, "ask-models-budget")

    # The key went to the server once: no answer, page or workspace file holds it.
    assert answers and all(KEY not in text for text in answers)
    assert KEY not in page.content()
    root_files = [p for p in bare_server.root.rglob("*") if p.is_file()]
    assert all(KEY.encode() not in p.read_bytes() for p in root_files)
    keys = bare_server.data / "jupyter_operator" / "models" / "keys.json"  # type: ignore[attr-defined]
    assert stat.S_IMODE(os.stat(keys).st_mode) == 0o600
    log = bare_server.log.read_text(errors="replace")  # type: ignore[attr-defined]
    assert "token-authenticated request" in log and KEY not in log
    assert page.console_errors == []


def _server_models(server: LabServer) -> dict[str, dict]:
    """The server's endpoints by name, read through its REST API (never a key)."""
    with urllib.request.urlopen(server.page_url("jupyter-operator/api/agent/models")) as answer:
        return {m["name"]: m for m in json.loads(answer.read())["models"]}


def _operator_settings(page):
    """Open JupyterLab's settings editor (palette: Settings Editor) on the Operator plugin."""
    run_palette_command(page, "Settings Editor", "Settings Editor")
    page.locator(".jp-PluginList-entry", has_text="Operator").first.click()
    form = page.locator(".jp-SettingsPanel .jp-SettingsForm", has_text="Model endpoints")
    form.wait_for(timeout=30_000)
    return form


def _field_values(form) -> list[str]:
    return [field.input_value() for field in form.locator("input[type='text']").all()]


def test_the_settings_editor_lists_the_panels_endpoints_and_edits_reach_the_server(
    bare_server: LabServer, page, fake: FakeOpenAI
) -> None:
    open_panel_ask(page, bare_server)
    form = page.locator(f"{ASK} .jp-Operator-ask-addform")
    if form.is_hidden():
        page.get_by_role("button", name="Add a model endpoint").click()
    form.get_by_label("Endpoint name").fill("from-panel")
    form.get_by_label("Base URL").fill(fake.url)
    form.get_by_label("Model name at the endpoint").fill("fake-model")
    form.get_by_label("API key").fill(KEY)
    form.get_by_role("button", name="Save the model endpoint").click()
    form.wait_for(state="hidden")

    # Added in the panel: the settings editor lists it, with where its key comes from.
    settings = _operator_settings(page)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.jp-SettingsForm input')]"
        ".some(i => i.value === 'from-panel')", timeout=30_000)  # fmt: skip
    values = _field_values(settings)
    assert "from-panel" in values and fake.url in values and "fake-model" in values
    assert "stored" in values  # where the key comes from, not the key
    assert KEY not in page.content()
    screenshot(page, "ask-models-settings-editor")

    # Removed in the settings editor: the server forgets it (and its stored key).
    settings.locator(".array-item").last.hover()  # its buttons show on hover
    settings.locator("[title='Remove item']").last.click()
    deadline = time.monotonic() + 20
    while "from-panel" in _server_models(bare_server) and time.monotonic() < deadline:
        time.sleep(0.3)
    assert "from-panel" not in _server_models(bare_server)
    user_settings = (bare_server.settings_dir / "jupyter-operator" / "plugin.jupyterlab-settings")  # type: ignore[attr-defined]
    assert KEY not in user_settings.read_text()

    # Added in the settings editor (its key named, never typed there): the server has it.
    settings.locator("button[title='Add item']").last.click()
    for field, value in (("name", "from-settings"), ("model", "fake-model"),
                         ("key", "$FAKE_KEY"), ("base_url", fake.url)):  # fmt: skip
        settings.locator(".array-item").last.locator(f"input[id$='_{field}']").fill(value)
    deadline = time.monotonic() + 20
    while "from-settings" not in _server_models(bare_server) and time.monotonic() < deadline:
        time.sleep(0.3)
    listed = _server_models(bare_server).get("from-settings")
    assert listed and listed["base_url"] == fake.url and listed["key"] == "$FAKE_KEY"
    picker = page.get_by_label("Model to ask")
    picker.locator('option[value="from-settings"]').wait_for(state="attached")
    screenshot(page, "ask-models-settings-editor-added")
    assert not [e for e in page.console_errors if "operator" in e.lower()]


def test_from_no_config_to_a_fixed_traceback_in_the_panel(
    bare_server: LabServer, page, fake: FakeOpenAI
) -> None:
    """The README's three steps with no config file: Lab opens the Operator panel's Ask on its
    "Add model" form while the server has no model; "Fix with Operator" asked before a model
    is saved waits for it and starts once it is; the approved fix runs."""
    from magic_notebooks import run_quick_cell
    from support.cell_notebooks import code, notebook

    for name in _server_models(bare_server):  # whatever the tests before added
        request = urllib.request.Request(
            bare_server.page_url(f"jupyter-operator/api/agent/models/{name}"), method="DELETE")
        urllib.request.urlopen(request).close()
    fixed = "print('ratio', total / max(count, 1))"
    (bare_server.root / "ratio.ipynb").write_text(notebook(
        code("total, count = 6, 0", id="load"),
        code("print('ratio', total / count)", id="ratio")))  # fmt: skip
    fake.add(
        "Dividing by a zero count.\n" + block("f1", "nb.replaceCell", notebook="ratio.ipynb",
                                               cell_id="ratio", content_b64=b64(fixed)),
        "The cell runs without an error now.",
    )  # fmt: skip
    page.goto(bare_server.page_url("lab/workspaces/no-config/tree/ratio.ipynb"))
    tab = page.locator('.lm-TabBar-tab[data-id="jupyter-operator-panel"]')
    tab.wait_for(timeout=60_000)
    page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for(timeout=60_000)
    if "lm-mod-current" not in (tab.get_attribute("class") or ""):
        tab.click()
    form = page.locator(f"{ASK} .jp-Operator-ask-addform")
    form.wait_for(state="visible")  # offered: nobody unfolded Ask or pressed Add model
    screenshot(page, "no-config-add-model-offered")

    run_quick_cell(page, 0)
    run_quick_cell(page, 1)
    output = page.locator(".jp-NotebookPanel:visible .jp-Cell").nth(1).locator(".jp-OutputArea")
    output.get_by_text("ZeroDivisionError").first.wait_for(timeout=30_000)
    asked = len(fake.requests)
    output.locator(".jp-Operator-fix-error").click()
    error = page.locator(f"{ASK} > .jp-Operator-error")
    error.filter(has_text="the fix starts once it is saved").wait_for()
    assert len(fake.requests) == asked  # no model asked before one is saved
    screenshot(page, "no-config-fix-waits-for-a-model")

    form.get_by_label("Endpoint name").fill("first")
    form.get_by_label("Base URL").fill(fake.url)
    form.get_by_label("Model name at the endpoint").fill("fake-model")
    form.get_by_label("API key").fill(KEY)
    form.get_by_role("button", name="Save the model endpoint").click()
    card = page.locator(f'{ASK} .jp-Operator-card[data-id="f1"][data-status="pending"]')
    card.wait_for(timeout=60_000)
    assert error.is_hidden()
    assert "ZeroDivisionError" in json.dumps(fake.requests[asked]["messages"][-1])
    screenshot(page, "no-config-fix-offered")
    card.locator(".jp-Operator-approve-run").click()
    page.locator(f"{ASK} .jp-Operator-ask-status").filter(has_text="ended").wait_for(
        timeout=60_000)  # fmt: skip
    output.get_by_text("ratio 6.0").wait_for(timeout=30_000)
    assert output.get_by_text("ZeroDivisionError").count() == 0
    screenshot(page, "no-config-fixed")
    assert not [e for e in page.console_errors if "operator" in e.lower()]
