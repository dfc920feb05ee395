"""A grid's cost budget (--budget-cost): it stops before the runs it cannot afford, says which
and why, and a later run with a larger budget starts them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.fake_openai import FakeOpenAI, Script
from support.replies import b64, block

from jupyter_operator.cli import main
from jupyter_operator.experiments import Experiment, ModelSpec, load_suite

HELLO = Path(__file__).resolve().parents[1] / "data" / "eval_suite" / "hello"
WRITE = block("w1", "fs.write", path="hello.txt", content_b64=b64("hello\n"))
#: $2 / $10 per million prompt / completion tokens: each reply below costs $0.30
PRICE = "fake-model=2,10"
USAGE = (100_000, 10_000)


def a_run() -> list[Script]:
    """The replies of one run: it writes hello.txt, then says it is done ($0.60)."""
    return [Script(WRITE, usage=USAGE), Script("Done.", usage=USAGE)]


def eval_(*args: str, out: Path) -> int:
    return main(["eval", str(HELLO), "--model", "fake-model", *args, "--workers", "0",
                 "--out", str(out)])  # fmt: skip


def keys(out: Path) -> list[int]:
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return sorted(row["repeat"] for row in rows)


def test_a_grid_stops_before_the_runs_its_cost_budget_cannot_afford_and_resumes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "o"
    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        fake.add("OK", *a_run(), *a_run(), *a_run(), *a_run())
        code = eval_("--base-url", fake.url, "--repeats", "4", "--price", PRICE,
                     "--budget-cost", "1.5", out=out)  # fmt: skip
        sent = len(fake.requests)
        err = capsys.readouterr().err
        # $0.60 spent by the first run; the second ($1.20 in all) fits, a third would not
        assert code == 0 and keys(out) == [0, 1]
        assert sent == 1 + 4, "a run the budget could not afford was started"
        left = json.loads((out / "not-started.json").read_text())
        assert left["budget_cost"] == 1.5 and left["spent"] == pytest.approx(1.2)
        assert [(r["task"], r["model"], r["repeat"]) for r in left["runs"]] == [
            ("hello", "fake-model", 2), ("hello", "fake-model", 3)]  # fmt: skip
        reason = left["runs"][0]["reason"]
        assert reason == ("the grid's cost budget ($1.5) cannot afford it: $1.2 spent, this run "
                          "estimated at $0.6 (the mean cost of 2 finished runs of fake-model)")
        assert "2 runs not started: hello · fake-model · repeat 2 first: the grid's cost" in err
        assert "not-started.json (a larger --budget-cost starts them)" in err

        # the same budget again starts nothing (it counts what the grid spent before) ...
        code = eval_("--base-url", fake.url, "--repeats", "4", "--price", PRICE,
                     "--budget-cost", "1.5", out=out)  # fmt: skip
        assert code == 0 and len(fake.requests) == sent + 1  # the endpoint's check alone
        assert keys(out) == [0, 1] and (out / "not-started.json").exists()
        # ... and a larger one starts the runs left
        code = eval_("--base-url", fake.url, "--repeats", "4", "--price", PRICE,
                     "--budget-cost", "2.5", out=out)  # fmt: skip
    assert code == 0 and keys(out) == [0, 1, 2, 3]
    assert not (out / "not-started.json").exists(), "the list outlived the runs it named"


def test_a_run_s_cost_budget_is_the_grid_s_estimate_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With max_cost the estimate is that bound (not the mean): a second run that would fit
    by its real cost ($0.60) is not started when its bound ($0.70) does not fit."""
    hello = [t for t in load_suite(HELLO)]
    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        fake.add(*a_run(), *a_run())
        experiment = Experiment(hello, [ModelSpec.endpoint("fake-model", fake.url)], repeats=2,
                                out=tmp_path / "o", prices={"fake-model": (2, 10)},
                                max_cost=0.7, budget_cost=1.25)  # fmt: skip
        results = experiment.run(workers=0, progress=False)
    assert [r["repeat"] for r in results.rows] == [0]
    (left,) = experiment.not_started
    assert left.key == ("hello", "fake-model", 1, "operator")
    assert "estimated at $0.7 (its cost budget, max_cost)" in left.reason


def test_a_grid_budget_needs_every_endpoint_model_s_price(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="needs the price of every endpoint model: 'gpt-x' has"):
        Experiment(HELLO, [ModelSpec.endpoint("gpt-x", "http://127.0.0.1:9/v1"),
                           ModelSpec.scripted("good", [WRITE])],
                   out=tmp_path / "o", budget_cost=1.0)  # fmt: skip
    # scripted replies cost nothing: a budget does not hold them back
    experiment = Experiment(HELLO, [ModelSpec.scripted("good", [WRITE, "Done."])], repeats=3,
                            out=tmp_path / "p", budget_cost=0.01)  # fmt: skip
    assert len(experiment.run(workers=0, progress=False).rows) == 3
    assert experiment.not_started == []


def test_on_a_pool_a_model_is_measured_alone_before_the_budget_lets_runs_overlap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two workers, nothing known of the model: its first run runs alone (its cost is the
    estimate), and the grid stops where the inline grid does, no run started past it."""
    hello = [t for t in load_suite(HELLO)]
    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        fake.add(*a_run(), *a_run(), *a_run(), *a_run())
        experiment = Experiment(hello, [ModelSpec.endpoint("fake-model", fake.url)], repeats=4,
                                out=tmp_path / "o", prices={"fake-model": (2, 10)},
                                budget_cost=1.5)  # fmt: skip
        results = experiment.run(workers=2, progress=False)
        sent = len(fake.requests)
    assert sorted(r["repeat"] for r in results.rows) == [0, 1] and sent == 4
    assert [item.key[2] for item in experiment.not_started] == [2, 3]
    assert all(r["passed"] for r in results.rows)
