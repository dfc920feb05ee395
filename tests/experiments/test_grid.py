"""The grid: replay models and the loopback endpoint, copies, resume, faults, pool and Dask."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.fake_openai import FakeOpenAI, Script
from support.replies import b64, block
from support.sandboxing import require_sandbox

from jupyter_operator.experiments import Experiment, ModelSpec, load_results, load_suite
from jupyter_operator.experiments.tasks import Task

SUITE = Path(__file__).resolve().parents[1] / "data" / "eval_suite"
WRITE = block("w1", "fs.write", path="hello.txt", content_b64=b64("hello\n"))
EDIT = block("e1", "fs.write", path="notes.txt", content_b64=b64("status: final\n"))
GOOD = ModelSpec.scripted("good", {"hello": [WRITE, "Done."], "edit": [EDIT, "Done."]})
LAZY = ModelSpec.scripted("lazy", ["I am done."])
FIELDS = {"task", "model", "repeat", "passed", "turns", "tokens", "wall_seconds", "stop_reason",
          "valid_rate", "error_codes", "transcript"}  # fmt: skip


def test_a_grid_of_replayed_models_writes_one_row_per_run(tmp_path: Path) -> None:
    experiment = Experiment(SUITE, [GOOD, LAZY], repeats=2, out=tmp_path / "out")
    results = experiment.run(workers=0, progress=False)
    rows = {(r["task"], r["model"], r["repeat"]): r for r in results.rows}
    assert len(rows) == 8 and all(set(r) >= FIELDS for r in rows.values())
    assert rows["hello", "good", 0]["passed"] and rows["hello", "good", 1]["passed"]
    assert not rows["hello", "lazy", 0]["passed"]
    assert "does not hold the line hello" in rows["hello", "lazy", 0]["check_output"]
    # the task's rules ask before writes: nobody watches, so the write is rejected, and the
    # model is told why
    edit = rows["edit", "good", 0]
    assert not edit["passed"] and edit["rejections"] == 1
    transcript = (tmp_path / "out" / edit["transcript"]).read_text()
    assert "nobody is watching this run" in transcript
    assert rows["hello", "good", 0]["turns"] == 2 and rows["hello", "good", 0]["tokens"] > 0
    assert rows["hello", "good", 0]["valid_rate"] == 1.0
    # the source task is never touched
    assert not (SUITE / "hello" / "files" / "hello.txt").exists()
    assert (SUITE / "edit" / "files" / "notes.txt").read_text() == "status: draft\n"
    table = results.by_model()
    assert table.loc["good", "pass_rate"] == 0.5 and table.loc["lazy", "pass_rate"] == 0.0
    assert results.pass_rates().loc["hello", "good"] == 1.0


def test_approve_all_approves_inside_the_copy(tmp_path: Path) -> None:
    experiment = Experiment(SUITE, [GOOD], out=tmp_path / "out", approve_all=True)
    rows = {r["task"]: r for r in experiment.run(workers=0, progress=False).rows}
    assert rows["edit"]["passed"] and rows["edit"]["approvals"] == 1


def test_each_run_has_its_own_copy(tmp_path: Path) -> None:
    """Two runs of the same task: the second does not see what the first wrote."""
    probe = block("p1", "fs.stat", path="hello.txt")
    model = ModelSpec.scripted("probe", {"hello": [probe, WRITE, "Done."]})
    experiment = Experiment([load_suite(SUITE)[1]], [model], repeats=2, out=tmp_path / "out")
    results = experiment.run(workers=0, progress=False)
    assert [r["passed"] for r in results.rows] == [True, True]
    for row in results.rows:
        text = (tmp_path / "out" / row["transcript"]).read_text()
        assert "ERR_NOT_FOUND" in text  # hello.txt did not exist when the run began


def test_a_run_cannot_reach_out_of_its_copy(tmp_path: Path) -> None:
    """A model that aims at the task's own folder (or anything outside its copy) is refused."""
    escape = [block(f"x{n}", "fs.write", path=path, content_b64=b64("pwned\n"))
              for n, path in enumerate(["../task/check.py", "../../escape.txt",
                                        str(SUITE / "hello" / "files" / "x.txt")])]  # fmt: skip
    model = ModelSpec.scripted("escape", {"hello": ["\n".join(escape), WRITE, "Done."]})
    (row,) = Experiment([load_suite(SUITE)[1]], [model], out=tmp_path / "out").run(
        workers=0, progress=False).rows  # fmt: skip
    assert row["passed"]  # the check was not rewritten, and the run went on
    assert sum(row["error_codes"].values()) == 3, row["error_codes"]
    assert set(row["error_codes"]) <= {"ERR_PATH_ESCAPE", "ERR_ABSOLUTE_PATH"}
    assert not (SUITE / "hello" / "files" / "x.txt").exists()
    assert "pwned" not in (SUITE / "hello" / "check.py").read_text()


def test_the_endpoint_grid_resumes_without_a_request_for_finished_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        hello = [t for t in load_suite(SUITE) if t.name == "hello"]
        model = ModelSpec.endpoint("fake-model", fake.url)
        fake.add(WRITE, "Done.")
        first = Experiment(hello, [model], repeats=2, out=tmp_path / "out")
        first_pending = [s.key for s in first.pending()]
        # the first run is cut short after one run (as a crash or Ctrl-C would)
        monkeypatch.setattr(first, "specs", lambda: [first.__class__.specs(first)[0]])
        assert [r["passed"] for r in first.run(workers=0, progress=False).rows] == [True]
        sent = len(fake.requests)
        assert sent == 2 and fake.requests[0]["model"] == "fake-model"
        again = Experiment(hello, [model], repeats=2, out=tmp_path / "out")
        assert [s.key for s in again.pending()] == first_pending[1:]
        fake.add("Done.")
        rows = again.run(workers=0, progress=False).rows
        assert len(fake.requests) == sent + 1  # only the run that was missing
        assert [(r["repeat"], r["passed"]) for r in rows] == [(0, True), (1, False)]
        assert again.pending() == []
        assert fake.key not in (tmp_path / "out" / "results.jsonl").read_text()


def test_a_500_from_the_endpoint_is_a_model_error_and_the_grid_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        fake.add(*[Script(status=500)] * 3, WRITE, "Done.")
        hello = [t for t in load_suite(SUITE) if t.name == "hello"]
        experiment = Experiment(hello, [ModelSpec.endpoint("fake-model", fake.url)], repeats=2,
                                out=tmp_path / "out")  # fmt: skip
        rows = experiment.run(workers=0, progress=False).rows
    assert [r["stop_reason"] for r in rows] == ["model_error", "done"]
    assert [r["passed"] for r in rows] == [False, True]


def test_a_hanging_model_times_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        fake.add(Script("word " * 100, chunk=5, delay=0.2))
        base = load_suite(SUITE)[1]
        task = Task(**{**base.__dict__, "timeout_s": 1.0})
        experiment = Experiment([task], [ModelSpec.endpoint("fake-model", fake.url)],
                                out=tmp_path / "out")  # fmt: skip
        (row,) = experiment.run(workers=0, progress=False).rows
    assert (row["stop_reason"], row["budget"]) == ("budget", "seconds") and not row["passed"]
    assert row["agent_seconds"] < 10


def test_a_crashing_check_fails_its_run_only(tmp_path: Path) -> None:
    base = load_suite(SUITE)[1]
    crash = Task(**{**base.__dict__, "name": "crash", "check": 'python3 -c "raise SystemExit(7)"'})
    missing = Task(**{**base.__dict__, "name": "missing", "check": "no-such-program-here"})
    experiment = Experiment([crash, missing, base], [GOOD], out=tmp_path / "out")
    rows = {r["task"]: r for r in experiment.run(workers=0, progress=False).rows}
    assert rows["crash"]["check_exit"] == 7 and not rows["crash"]["passed"]
    assert rows["missing"]["check_exit"] == 127 and not rows["missing"]["passed"]
    assert rows["hello"]["passed"]


def test_the_check_runs_sandboxed_and_cannot_write_the_task(tmp_path: Path) -> None:
    require_sandbox()
    base = load_suite(SUITE)[1]
    sneaky = Task(**{**base.__dict__, "name": "sneaky",
                     "check": 'echo x > "$TASK_DIR/check.py"'})  # fmt: skip
    (row,) = Experiment([sneaky], [LAZY], out=tmp_path / "out").run(workers=0,
                                                                   progress=False).rows
    assert row["check_sandboxed"] is True and not row["passed"]
    assert "Read-only file system" in row["check_output"]


def test_two_local_workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import concurrent.futures as cf

    from jupyter_operator.experiments import grid

    pools: list[int | None] = []
    submitted: list[str] = []

    class Recorded(cf.ProcessPoolExecutor):
        def __init__(self, max_workers=None, **kwargs):
            pools.append(max_workers)
            super().__init__(max_workers, **kwargs)

        def submit(self, fn, /, *args, **kwargs):
            submitted.append(fn.__name__)
            return super().submit(fn, *args, **kwargs)

    monkeypatch.setattr(grid.cf, "ProcessPoolExecutor", Recorded)
    experiment = Experiment(SUITE, [GOOD, LAZY], repeats=2, out=tmp_path / "out")
    seen: list[int] = []
    results = experiment.run(workers=2, progress=lambda row, tally: seen.append(tally.done))
    assert seen == list(range(1, 9)) and len(results) == 8
    assert sum(r["passed"] for r in results.rows) == 2
    assert pools == [2] and submitted == ["run_one"] * 8  # every run went to the pool


def test_a_dask_local_cluster_with_two_workers(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed", reason="the experiments extra (CI has it)")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:  # fmt: skip
        experiment = Experiment(SUITE, [GOOD, LAZY], repeats=2, out=tmp_path / "out")
        with distributed.get_task_stream(client) as stream:
            results = experiment.run(dask=client, progress=False)
        workers = {w for w in client.run(lambda: __import__("os").getpid()).values()}
    assert len(results) == 8 and sum(r["passed"] for r in results.rows) == 2
    assert len(workers) == 2
    ran = [task["key"] for task in stream.data]  # every run was a task of the cluster
    assert len(ran) == 8 and all("run_one" in str(key) for key in ran)
    assert load_results(tmp_path / "out").rows == results.rows


def test_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from jupyter_operator.cli import main

    replay = tmp_path / "good.json"
    replay.write_text(json.dumps({"hello": [WRITE, "Done."]}))
    args = [str(SUITE), "--replay", str(replay), "--workers", "0", "--out", str(tmp_path / "o"),
            "--price", "good=2,4"]  # fmt: skip
    assert main(["eval", *args]) == 0
    captured = capsys.readouterr()
    assert "good\t2\t1\t50.0%" in captured.out and "cost_usd" in captured.out
    assert "[2/2]" in captured.err
    assert main(["eval", *args]) == 0  # resumed: nothing left to run
    assert "2 already in" in capsys.readouterr().err
    assert main(["eval", str(tmp_path), "--replay", str(replay)]) == 2
    assert "no task folders" in capsys.readouterr().err
    assert main(["eval", "--replay", str(replay)]) == 2


HERMES_WRITE = ('<tool_call>{"name": "write_file", "arguments": {"path": "notes.txt", '
                '"content": "status: final\\n"}}</tool_call>')  # fmt: skip


@pytest.mark.parametrize("approve_all", [True, False])
def test_a_translated_tool_call_is_never_applied_unattended(tmp_path: Path,
                                                            approve_all: bool) -> None:  # fmt: skip
    """A leaked tool call the engine translates is a guess at the model's intent: even with
    ``approve_all`` it is rejected, the file stays, and the model is told the block it meant."""
    edit = [t for t in load_suite(SUITE) if t.name == "edit"]
    model = ModelSpec.scripted("leaky", {"edit": [HERMES_WRITE, "Done."]})
    experiment = Experiment(edit, [model], out=tmp_path / "out", approve_all=approve_all)
    (row,) = experiment.run(workers=0, progress=False).rows
    assert not row["passed"], "a translated tool call was applied in an unattended run"
    assert row["approvals"] == 0 and row["rejections"] == 1
    transcript = (tmp_path / "out" / row["transcript"]).read_text()
    assert "ERR_FOREIGN_TOOL_CALL" in transcript


def test_resume_is_per_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A grid of two models cut short after the first model's run resumes the second model's
    run: a finished run of one model never counts as done for another."""
    hello = [t for t in load_suite(SUITE) if t.name == "hello"]
    first = Experiment(hello, [GOOD, LAZY], out=tmp_path / "out")
    monkeypatch.setattr(first, "specs", lambda: [Experiment.specs(first)[0]])
    assert [r["model"] for r in first.run(workers=0, progress=False).rows] == ["good"]
    again = Experiment(hello, [GOOD, LAZY], out=tmp_path / "out")
    assert [s.key for s in again.pending()] == [("hello", "lazy", 0, "operator")], \
        "the second model's run was taken as done because the first model finished it"
    rows = again.run(workers=0, progress=False).rows
    assert [(r["model"], r["passed"]) for r in rows] == [("good", True), ("lazy", False)]
    assert again.tally is not None and again.tally.skipped == 1


def test_a_torn_last_line_is_skipped_and_the_next_row_is_whole(tmp_path: Path) -> None:
    """A crash in the middle of writing a row leaves a torn last line: reading skips it (the
    run is done again), and the row appended after it is a line of its own."""
    hello = [t for t in load_suite(SUITE) if t.name == "hello"]
    first = Experiment(hello, [GOOD], repeats=2, out=tmp_path / "out")
    first.run(workers=0, progress=False)
    results = tmp_path / "out" / "results.jsonl"
    lines = results.read_text().splitlines(keepends=True)
    results.write_text(lines[0] + lines[1][: len(lines[1]) // 2])  # the second row, torn
    again = Experiment(hello, [GOOD], repeats=2, out=tmp_path / "out")
    assert [s.key for s in again.pending()] == [("hello", "good", 1, "operator")], \
        "the torn last line was not skipped (or counted as a finished run)"
    rows = again.run(workers=0, progress=False).rows
    assert [(r["repeat"], r["passed"]) for r in rows] == [(0, True), (1, True)]
    assert again.pending() == [], "the row written after the torn line was lost"
    assert len(load_results(tmp_path / "out").rows) == 2
