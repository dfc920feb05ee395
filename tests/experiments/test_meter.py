"""The grid's meter: tokens, cost (against the grid's cost budget) and runs left, in the
terminal's lines and the notebook's bar, as rows come back from the loopback endpoint."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.fake_openai import FakeOpenAI, Script
from support.ipython_fixtures import route_comms_to_recorders
from support.replies import b64, block

from jupyter_operator.cli import main
from jupyter_operator.experiments import Experiment, ModelSpec, load_suite
from jupyter_operator.experiments.progress import ProgressBar

HELLO = Path(__file__).resolve().parents[1] / "data" / "eval_suite" / "hello"
WRITE = block("w1", "fs.write", path="hello.txt", content_b64=b64("hello\n"))
USAGE = (100_000, 10_000)  # $0.30 at $2 / $10 per million


def a_run() -> list[Script]:
    return [Script(WRITE, usage=USAGE), Script("Done.", usage=USAGE)]


def test_the_terminal_line_of_each_run_shows_tokens_cost_and_runs_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        fake.add("OK", *a_run(), *a_run())
        code = main(["eval", str(HELLO), "--model", "fake-model", "--base-url", fake.url,
                     "--repeats", "2", "--price", "fake-model=2,10", "--budget-cost", "5",
                     "--workers", "0", "--out", str(tmp_path / "o")])  # fmt: skip
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("[")]
    assert code == 0 and len(lines) == 2
    assert lines[0].endswith("1/2 runs · 1 passed · 0 failing · 220,000 tokens · "
                             "$0.6000 of $5.0000 · 1 left"), lines[0]
    assert lines[1].endswith("440,000 tokens · $1.2000 of $5.0000 · 0 left"), lines[1]


def test_the_notebook_bar_counts_cost_and_the_runs_its_budget_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    route_comms_to_recorders(monkeypatch)
    seen: list[str] = []
    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        fake.add(*a_run(), *a_run(), *a_run())
        experiment = Experiment(load_suite(HELLO), [ModelSpec.endpoint("fake-model", fake.url)],
                                repeats=3, out=tmp_path / "o", prices={"fake-model": (2, 10)},
                                budget_cost=1.0)  # fmt: skip
        bars: list[ProgressBar] = []

        def progress(row: dict[str, Any], tally: Any) -> None:
            if not bars:
                bars.append(ProgressBar(tally))
            bars[0](row, tally)
            seen.append(bars[0].label.value)

        progress.finished = lambda tally: bars[0].finished(tally)  # type: ignore[attr-defined]
        experiment.run(workers=0, progress=progress)
    # $0.60 a run: the first fits the $1 budget, the second would not
    assert seen == ["1/3 runs · 1 passed · 0 failing · 220,000 tokens · $0.6000 of $1.0000 · "
                    "2 left"]  # fmt: skip
    assert bars[0].label.value == ("1/3 runs · 1 passed · 0 failing · 220,000 tokens · "
                                   "$0.6000 of $1.0000 · 0 left · 2 not started (over the "
                                   "cost budget)")  # fmt: skip
    assert bars[0].bar.bar_style == "warning"
