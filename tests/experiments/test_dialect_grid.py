"""Dialect as a grid axis: one results folder holds a task's runs in several dialects (each its
own row, transcript, fingerprint and place in resume, stale and budget bookkeeping); the
analysis gives pass rates per dialect and compares two, paired run by run; the viewer's data
has a cell per dialect."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support.fake_openai import FakeOpenAI
from support.replies import b64, block

from jupyter_operator.cli import main
from jupyter_operator.experiments import Experiment, ModelSpec, load_results, wilson
from jupyter_operator.experiments.analysis import Results
from jupyter_operator.experiments.grid import grid_dialects
from jupyter_operator.experiments.results import ResultsFile
from jupyter_operator.experiments.viewdata import grid, load_view

SUITE = Path(__file__).resolve().parents[1] / "data" / "eval_suite"
WRITE = block("w1", "fs.write", path="hello.txt", content_b64=b64("hello\n"))
#: The same change as JSON operations.
WRITE_JSON = json.dumps([{"type": "createFile", "path": "hello.txt", "content": "hello\n",
                          "overwrite": True}])  # fmt: skip
#: Writes OPERATOR_CMD blocks whatever the dialect: passes in operator only.
BLOCKS = ModelSpec.scripted("blocks", {"hello": [WRITE, "Done."]})
#: Writes JSON operations whatever the dialect: passes in json only.
JSONIC = ModelSpec.scripted("jsonic", {"hello": [WRITE_JSON, "Done."]})


def hello_suite(tmp_path: Path, pinned: str | None = None) -> Path:
    """A suite of the task ``hello`` and, with ``pinned``, ``hello-pinned``: the same task
    whose task.toml names that dialect."""
    suite = tmp_path / "suite"
    shutil.copytree(SUITE / "hello", suite / "hello")
    if pinned:
        shutil.copytree(SUITE / "hello", suite / "hello-pinned")
        toml = suite / "hello-pinned" / "task.toml"
        toml.write_text(toml.read_text() + f'dialect = "{pinned}"\n')
    return suite


def outcomes(rows: list[dict]) -> dict[tuple, bool]:
    return {(r["task"], r["model"], r["dialect"], r["repeat"]): r["passed"] for r in rows}


def test_grid_dialects_reads_one_several_or_all() -> None:
    assert grid_dialects(None) is None
    assert grid_dialects("json") == ("json",)
    assert grid_dialects("operator, json,operator") == ("operator", "json")
    assert grid_dialects("all") == ("operator", "json", "commands")
    assert grid_dialects(["commands", "auto"]) == ("commands", "auto")
    with pytest.raises(ValueError, match="unknown dialect 'yaml'"):
        grid_dialects("operator,yaml")
    with pytest.raises(ValueError, match="at least one dialect"):
        grid_dialects(",")


def test_one_folder_holds_every_dialect_each_run_its_own_row(tmp_path: Path) -> None:
    suite = hello_suite(tmp_path, pinned="commands")
    out = tmp_path / "out"
    experiment = Experiment(suite, [BLOCKS, JSONIC], repeats=2, out=out,
                            dialect="operator,json")  # fmt: skip
    # order: repeat, task, model, dialect; the pinned task runs in its own dialect only
    assert [spec.key for spec in experiment.specs()][:6] == [
        ("hello", "blocks", 0, "operator"), ("hello", "blocks", 0, "json"),
        ("hello", "jsonic", 0, "operator"), ("hello", "jsonic", 0, "json"),
        ("hello-pinned", "blocks", 0, "commands"), ("hello-pinned", "jsonic", 0, "commands")]
    assert len(experiment.specs()) == 12
    rows = experiment.run(workers=0, progress=False).rows
    assert len(rows) == 12, "a run in one dialect took the place of the same run in another"
    found = outcomes(rows)
    for repeat in (0, 1):
        assert found["hello", "blocks", "operator", repeat] is True
        assert found["hello", "blocks", "json", repeat] is False
        assert found["hello", "jsonic", "operator", repeat] is False
        assert found["hello", "jsonic", "json", repeat] is True
    # each run its own transcript, which names its dialect
    names = [r["transcript"] for r in rows]
    assert len(set(names)) == 12
    for row in rows:
        start = json.loads((out / row["transcript"]).read_text().splitlines()[0])
        assert start["dialect"] == row["dialect"]

    # resumed: every run of each dialect is done; a dialect added later runs alone
    again = Experiment(suite, [BLOCKS, JSONIC], repeats=2, out=out, dialect="operator,json")
    assert again.pending() == [] and again.stale() == []
    wider = Experiment(suite, [BLOCKS, JSONIC], repeats=2, out=out, dialect="all")
    assert {spec.key[3] for spec in wider.pending()} == {"commands"}
    assert [spec.key[0] for spec in wider.pending()] == ["hello"] * 4


def test_a_stale_run_is_named_and_rerun_in_its_own_dialect(tmp_path: Path) -> None:
    suite = hello_suite(tmp_path)
    out = tmp_path / "out"
    Experiment(suite, [BLOCKS], out=out, dialect="operator,json").run(workers=0, progress=False)
    changed = ModelSpec.scripted("blocks", {"hello": [WRITE, "Done, again."]})
    experiment = Experiment(suite, [changed], out=out, dialect="operator,json",
                            rerun_stale=True)  # fmt: skip
    stale = experiment.stale()
    assert [str(s) for s in stale] == ["hello · blocks · repeat 0 (model changed)",
                                       "hello · blocks · repeat 0 · json (model changed)"]
    assert [spec.key for spec in experiment.pending()] == [("hello", "blocks", 0, "operator"),
                                                           ("hello", "blocks", 0, "json")]
    with pytest.warns(UserWarning, match="2 rows stale, run again"):
        rows = experiment.run(workers=0, progress=False).rows
    assert len(rows) == 2 and experiment.stale() == []


def test_rows_written_before_rows_named_their_dialect_are_operator_runs(tmp_path: Path) -> None:
    out = tmp_path / "out"
    Experiment(hello_suite(tmp_path), [BLOCKS], out=out).run(workers=0, progress=False)
    results = ResultsFile(out)
    (row,) = results.rows()
    old = {k: v for k, v in row.items() if k != "dialect"}
    (out / "results.jsonl").unlink()
    results.add(old)
    assert "dialect" not in results.rows()[0]
    experiment = Experiment(hello_suite(tmp_path / "b"), [BLOCKS], out=out, dialect="operator")
    assert experiment.pending() == [], "an operator run written before dialects was run again"
    both = Experiment(hello_suite(tmp_path / "c"), [BLOCKS], out=out, dialect="operator,json")
    assert [spec.key[3] for spec in both.pending()] == ["json"]


def test_the_grid_budget_counts_each_dialect_s_run(tmp_path: Path) -> None:
    from jupyter_operator.experiments.spending import GridBudget

    budget = GridBudget(1.0, {})
    spec = Experiment(hello_suite(tmp_path), [BLOCKS], out=tmp_path / "out",
                      dialect="operator,json").specs()  # fmt: skip
    for one in spec:
        budget.started(one)
    assert set(budget.under_way) == {("hello", "blocks", 0, "operator"),
                                     ("hello", "blocks", 0, "json")}
    budget.add_finished([{"task": "hello", "model": "blocks", "repeat": 0, "dialect": "json"}])
    assert set(budget.under_way) == {("hello", "blocks", 0, "operator")}, \
        "a finished run in one dialect ended the bookkeeping of the other"


ROWS = [{"task": task, "model": "m", "repeat": repeat, "dialect": dialect, "passed": passed,
         "turns": 2, "tokens": 10, "stop_reason": "done"}
        for task in ("t1", "t2", "t3", "t4", "t5", "t6", "t7")
        for repeat in (0, 1)
        for dialect, passed in (("operator", True), ("json", task != "t1" or repeat == 1))]


def test_pass_rates_per_dialect_with_their_intervals() -> None:
    table = Results(ROWS).by_dialect()
    operator, json_ = table.loc[("m", "operator")], table.loc[("m", "json")]
    assert (operator["runs"], operator["passed"], operator["pass_rate"]) == (14, 14, 1.0)
    assert (json_["runs"], json_["passed"]) == (14, 13)
    assert (json_["pass_rate_low"], json_["pass_rate_high"]) == pytest.approx(wilson(13, 14))


def test_compare_dialects_pairs_runs_by_task_model_and_repeat() -> None:
    results = Results([*ROWS, {"task": "t8", "model": "m", "repeat": 0, "dialect": "json",
                               "passed": False}])  # fmt: skip
    comparison = results.compare_dialects("operator", "json")
    # t8 ran in json only: no pair, left out
    assert len(comparison.table) == 14
    assert comparison.table.loc[("t1", "m", 0), "flipped"] == "broke"
    assert comparison.table.loc[("t1", "m", 1), "flipped"] == ""
    assert comparison.difference.difference == pytest.approx(-1 / 14)
    assert comparison.difference.tasks == 14
    assert "over 14 paired runs" in comparison.statement
    assert not comparison.significant
    with pytest.raises(ValueError, match="no runs in the dialect 'commands'"):
        results.compare_dialects("operator", "commands")
    with pytest.raises(ValueError, match="two different dialects"):
        results.compare_dialects("json", "json")


def test_the_viewer_grid_has_a_cell_per_dialect() -> None:
    rows = [*ROWS, {"task": "t1", "model": "m", "repeat": 2, "passed": True}]  # an older row
    view = grid(rows)
    assert view["dialects"] == ["json", "operator"]
    cells = {(c["task"], c["model"], c["dialect"]): c for c in view["cells"]}
    assert len(cells) == 14
    assert (cells["t1", "m", "json"]["runs"], cells["t1", "m", "json"]["passed"]) == (2, 1)
    assert (cells["t1", "m", "operator"]["runs"], cells["t1", "m", "operator"]["passed"]) == (3, 3)
    assert {run["dialect"] for run in view["runs"]} == {"json", "operator"}


def test_eval_runs_every_dialect_into_one_folder_through_an_endpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = hello_suite(tmp_path)
    out = tmp_path / "out"
    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        fake.add("OK")  # the one request that checks the key, the endpoint and the model
        # one worker: the dialects of a run in order (operator, json, commands)
        fake.add(WRITE, "Done.")
        fake.add(WRITE_JSON, "Done.")
        fake.add("/write hello.txt <<END_OF_FILE\nhello\nEND_OF_FILE", "Done.")
        code = main(["eval", str(suite), "--model", "fake-model", "--base-url", fake.url,
                     "--workers", "0", "--out", str(out), "--dialect", "all"])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "3 runs (0 already in" in captured.err and "x 3 dialects x 1 repeat" in captured.err
    assert "hello · fake-model · repeat 0 · json: passed" in captured.err
    rows = load_results(out).rows
    assert sorted(r["dialect"] for r in rows) == ["commands", "json", "operator"]
    assert all(r["passed"] for r in rows), [(r["dialect"], r["check_output"]) for r in rows]
    # the table: a line per model and dialect
    assert "model\tdialect\truns" in captured.out
    assert "fake-model\tjson\t1\t1\t100.0%" in captured.out
    view = load_view(out)
    assert [c["dialect"] for c in view["cells"]] == ["commands", "json", "operator"]
    # a second call does nothing: every dialect's run is in the folder
    code = main(["eval", str(suite), "--model", "fake-model", "--base-url", "http://127.0.0.1:9",
                 "--workers", "0", "--out", str(out), "--dialect", "all"])
    assert code == 0 and "3 runs (3 already in" in capsys.readouterr().err


def test_eval_refuses_an_unknown_dialect(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    code = main(["eval", str(hello_suite(tmp_path)), "--reference", "--out",
                 str(tmp_path / "out"), "--dialect", "operator,yaml"])  # fmt: skip
    assert code == 2
    assert "unknown dialect 'yaml'" in capsys.readouterr().err
    assert not (tmp_path / "out" / "results.jsonl").exists()
