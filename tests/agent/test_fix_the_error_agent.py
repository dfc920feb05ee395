"""The notebook's own loop through the Python API: a model runs a failing cell, reads the
traceback, fixes the cell and runs it again (the loopback endpoint, the real SDK)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from support.cell_runs import FIXED, analysis, fix_script, joined, results_sent
from support.fake_openai import FakeOpenAI

from jupyter_operator.agent import Agent, OpenAIChat


def test_the_model_reads_the_traceback_fixes_the_cell_and_runs_it(
    fake: FakeOpenAI, workspace: Path
) -> None:
    path = analysis(workspace)
    fix_script(fake)
    agent = Agent(OpenAIChat("fake-model", base_url=fake.url, api_key=fake.key), root=workspace,
                  decide=lambda run: run.approve_all())  # fmt: skip
    outcome = asyncio.run(agent.run("Make analysis.ipynb run without errors"))
    assert outcome.reason == "done"
    first = results_sent(fake, 1)
    assert first["r1"].ok and first["r2"].code == "ERR_CELL_ERROR"
    assert "NameError: name 'totl' is not defined" in first["r2"].summary
    assert "----> 1 print('mean', totl / len(values))" in (first["r2"].details or "")
    second = results_sent(fake, 2)
    assert second["e1"].ok and second["r3"].ok
    assert "[stdout]\nmean 4.0" in (second["r3"].details or "")
    cells = json.loads(path.read_text())["cells"]
    assert joined(cells[1]["source"]) == FIXED
    assert joined(cells[1]["outputs"][0]["text"]) == "mean 4.0\n"
