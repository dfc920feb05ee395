"""What a grid trusts: an endpoint model runs only inside the sandbox (unless the person says
--unsandboxed), and only the harness writes results (every row signed; a forged or changed
line is refused and its run done again)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from support.fake_openai import FakeOpenAI
from support.replies import b64, block

from jupyter_operator.cli import main
from jupyter_operator.experiments import (
    Experiment,
    ModelSpec,
    RunSpec,
    SandboxUnavailable,
    load_results,
    load_suite,
    run_one,
)
from jupyter_operator.experiments.results import KEY_NAME, ResultsKeyError, load_key
from jupyter_operator.experiments.tasks import Task

SUITE = Path(__file__).resolve().parents[1] / "data" / "eval_suite"
WRITE = block("w1", "fs.write", path="hello.txt", content_b64=b64("hello\n"))


def _no_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    import jupyter_operator.shell as shell

    monkeypatch.setattr(shell, "sandbox_available", lambda: False)


def _hello() -> list[Task]:
    return [t for t in load_suite(SUITE) if t.name == "hello"]


# -- the sandbox --------------------------------------------------------------------------------


def test_eval_refuses_an_endpoint_model_without_the_sandbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _no_sandbox(monkeypatch)
    out = tmp_path / "out"
    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        code = main(["eval", str(SUITE), "--model", "fake-model", "--base-url", fake.url,
                     "--workers", "0", "--out", str(out)])  # fmt: skip
        sent = len(fake.requests)
    err = capsys.readouterr().err
    assert code == 2, "an endpoint model ran without the sandbox"
    assert "bubblewrap" in err and "--unsandboxed" in err
    assert sent == 0 and not (out / "results.jsonl").exists()  # nothing ran, nothing asked


def test_unsandboxed_is_the_persons_explicit_choice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _no_sandbox(monkeypatch)
    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        fake.add("OK", WRITE, "Done.")  # the endpoint's check, then the run
        code = main(["eval", str(SUITE / "hello"), "--model", "fake-model", "--base-url",
                     fake.url, "--workers", "0", "--unsandboxed", "--out", str(tmp_path / "o")])
    assert code == 0, capsys.readouterr().err
    (row,) = load_results(tmp_path / "o").rows
    assert row["passed"], "--unsandboxed did not let the run go on"


def test_a_worker_without_the_sandbox_refuses_the_run_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The check is made where the run would run (a Dask worker may lack bubblewrap), before
    the model is asked anything; a scripted model (your own replies) still runs."""
    _no_sandbox(monkeypatch)
    (task,) = _hello()
    endpoint = ModelSpec.endpoint("fake-model", "http://127.0.0.1:9/v1")
    with pytest.raises(SandboxUnavailable, match="bubblewrap"):
        run_one(RunSpec(task, endpoint, 0))
    with pytest.raises(SandboxUnavailable):
        Experiment([task], [endpoint], out="unused").run(workers=0, progress=False)
    scripted = run_one(RunSpec(task, ModelSpec.scripted("mine", [WRITE, "Done."]), 0))
    assert scripted["passed"]
    assert run_one(RunSpec(task, endpoint, 0, unsandboxed=True))["stop_reason"] == "model_error"


# -- signed results -----------------------------------------------------------------------------


def _grid(tmp_path: Path, repeats: int = 2) -> Experiment:
    return Experiment(_hello(), [ModelSpec.scripted("good", [WRITE, "Done."])],
                      repeats=repeats, out=tmp_path / "out")  # fmt: skip


def test_a_forged_row_is_refused_and_its_run_done_again(tmp_path: Path) -> None:
    """A line the harness did not write (a model's code appending to results.jsonl) is not a
    finished run: it is refused with its line number, and the run it claims is done."""
    first = _grid(tmp_path, repeats=1)
    (real,) = first.run(workers=0, progress=False).rows
    results = tmp_path / "out" / "results.jsonl"
    forged = {**real, "repeat": 1, "passed": True}
    with results.open("a") as file:
        file.write(json.dumps(forged) + "\n")  # no signature
        file.write(json.dumps({**forged, "mac": "0" * 64}) + "\n")  # a made-up one
    again = _grid(tmp_path)
    assert [s.key for s in again.pending()] == [("hello", "good", 1, "operator")], \
        "a forged row was counted as a finished run"
    assert [(r.line, r.reason) for r in again.refused()] == [
        (2, "not signed by this harness"),
        (3, "its signature does not verify (the line was changed, or written by something "
            "else)")]  # fmt: skip
    with pytest.warns(UserWarning, match="2 lines refused"):
        rows = again.run(workers=0, progress=False).rows
    assert [(r["repeat"], r["passed"]) for r in rows] == [(0, True), (1, True)]
    assert len(load_results(tmp_path / "out").rows) == 2


def test_a_changed_row_is_refused(tmp_path: Path) -> None:
    grid = Experiment(_hello(), [ModelSpec.scripted("lazy", ["I am done."])],
                      out=tmp_path / "out")  # fmt: skip
    (row,) = grid.run(workers=0, progress=False).rows
    assert not row["passed"]
    results = tmp_path / "out" / "results.jsonl"
    results.write_text(results.read_text().replace('"passed": false', '"passed": true'))
    assert load_results(tmp_path / "out").rows == [], "a row changed after it was written counts"
    assert [r.line for r in grid.refused()] == [1]
    assert load_results(tmp_path / "out", verify=False).rows[0]["passed"] is True


def test_eval_names_refused_lines_and_reruns_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replay = tmp_path / "good.json"
    replay.write_text(json.dumps([WRITE, "Done."]))
    args = ["eval", str(SUITE / "hello"), "--replay", str(replay), "--workers", "0", "--out",
            str(tmp_path / "o")]  # fmt: skip
    assert main(args) == 0
    results = tmp_path / "o" / "results.jsonl"
    line = json.loads(results.read_text())
    results.write_text(json.dumps({**line, "wall_seconds": 0.001}) + "\n")
    capsys.readouterr()
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "results.jsonl line 1: refused, its signature does not verify" in err
    assert "its run is done again" in err and "[1/1]" in err


def test_the_key_is_the_persons_own_and_outside_the_results(
    tmp_path: Path, _own_data_folder: Path
) -> None:
    grid = _grid(tmp_path, repeats=1)
    grid.run(workers=0, progress=False)
    key = _own_data_folder / "jupyter_operator" / KEY_NAME
    assert stat.S_IMODE(os.lstat(key).st_mode) == 0o600
    assert stat.S_IMODE(os.lstat(key.parent).st_mode) == 0o700
    assert key.read_text().strip() not in (tmp_path / "out" / "results.jsonl").read_text()
    assert not any(KEY_NAME in p.name for p in (tmp_path / "out").rglob("*"))


def test_a_key_others_can_read_or_a_linked_key_is_refused(tmp_path: Path) -> None:
    key = tmp_path / "k" / KEY_NAME
    first = load_key(key)
    assert load_key(key) == first  # made once, then read back
    key.chmod(0o644)
    with pytest.raises(ResultsKeyError, match="readable by others"):
        load_key(key)
    link = tmp_path / "k" / "link.key"
    link.symlink_to(key)
    key.chmod(0o600)
    with pytest.raises(ResultsKeyError, match="a link is refused"):
        load_key(link)


def test_no_sandboxed_run_can_read_the_key(tmp_path: Path, _own_data_folder: Path) -> None:
    """The check runs what the model wrote: inside the sandbox it cannot see the key."""
    from jupyter_operator.shell import sandbox_available

    if not sandbox_available():
        pytest.skip("bubblewrap cannot run here (CI installs it)")
    key = load_key()  # made where the harness keeps it
    path = _own_data_folder / "jupyter_operator" / KEY_NAME
    (base,) = _hello()
    reader = Task(**{**base.__dict__, "name": "reader", "check": f"cat '{path}'"})
    grid = Experiment([reader], [ModelSpec.scripted("lazy", ["I am done."])],
                      out=tmp_path / "out")  # fmt: skip
    (row,) = grid.run(workers=0, progress=False).rows
    assert row["check_sandboxed"] is True and not row["passed"]
    assert key.decode() not in json.dumps(row)


def test_any_text_in_a_row_is_written_and_verifies(tmp_path: Path) -> None:
    """A row's text is a model's work in part: a lone surrogate, a newline or a non-ASCII
    character is written as JSON escapes, and the row reads back whole and verified."""
    from jupyter_operator.experiments.results import ResultsFile

    results = ResultsFile(tmp_path / "out")
    odd = "caf\u00e9 \ud800 \n{\"task\": \"x\"} \u202e"
    saved = results.add({"task": "t", "model": "m", "repeat": 0, "check_output": odd})
    assert results.rows() == [saved] and saved["check_output"] == odd
    assert results.refused() == [] and len(results.path.read_text().splitlines()) == 1


def test_a_harness_error_says_why_and_runs_no_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a key the run cannot start: its row says why, and no check judges files the
    model never touched."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    endpoint = ModelSpec.endpoint("gpt-x", "https://api.example.invalid/v1")
    (row,) = Experiment(_hello(), [endpoint], out=tmp_path / "out").run(
        workers=0, progress=False).rows  # fmt: skip
    assert row["stop_reason"] == "harness_error" and "No API key" in row["stop_message"]
    assert row["check_exit"] is None and row["check_output"].startswith("not run:"), \
        "the check ran for a run that never started"


def test_an_older_signed_row_copied_to_the_end_does_not_replace_a_newer_run(
    tmp_path: Path,
) -> None:
    """Rows of a run done again are taken by their signed start time: a valid older row (a
    pass) appended again after the newer one (a fail) is a replay, not the run's result."""
    from jupyter_operator.experiments.results import ResultsFile

    results = ResultsFile(tmp_path / "out", key_file=tmp_path / "key" / KEY_NAME)
    run = {"task": "hello", "model": "good", "repeat": 0}
    results.add({**run, "started_at": 100.0, "passed": True})
    results.add({**run, "started_at": 200.0, "passed": False})
    lines = results.path.read_text().splitlines()
    with results.path.open("a") as file:
        file.write(lines[0] + "\n")  # the older passing row, signature and all
    (row,) = ResultsFile(tmp_path / "out", key_file=tmp_path / "key" / KEY_NAME).rows()
    assert (row["started_at"], row["passed"]) == (200.0, False), "a replayed row won"
