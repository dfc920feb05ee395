"""Errored runs: a resumed grid keeps them; ``--retry-errors`` runs again only the runs the
endpoint or the harness ended (never a failed check), and waits as long as a rate-limiting
endpoint asks (bounded) before trying such a run again."""

from __future__ import annotations

import itertools
from pathlib import Path

import httpx
import pytest
from support.fake_openai import FakeOpenAI, Script
from support.replies import b64, block

from jupyter_operator.agent.openai_chat import retry_after
from jupyter_operator.cli import main
from jupyter_operator.experiments import Experiment, ModelSpec, load_results, load_suite
from jupyter_operator.experiments.grid import RATE_LIMIT_RETRIES, rate_limit_wait
from jupyter_operator.experiments.results import ResultsFile

SUITE = Path(__file__).resolve().parents[1] / "data" / "eval_suite"
HELLO = SUITE / "hello"
WRITE = block("w1", "fs.write", path="hello.txt", content_b64=b64("hello\n"))
LAZY = ModelSpec.scripted("lazy", ["I am done."])


def _eval(*args: str, out: Path) -> int:
    return main(["eval", *args, "--workers", "0", "--out", str(out)])


def _lines(out: Path) -> int:
    return len((out / "results.jsonl").read_text().splitlines())


def test_errored_runs_are_kept_on_resume_and_run_again_with_retry_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        fake.add("OK", *[Script(status=500)] * 3)  # the check's request, then a failing run
        args = (str(HELLO), "--model", "fake-model", "--base-url", fake.url)
        assert _eval(*args, out=tmp_path / "o") == 1
        sent = len(fake.requests)
        capsys.readouterr()
        assert _eval(*args, out=tmp_path / "o") == 0  # resumed: the errored row is kept
        err = capsys.readouterr().err
        assert len(fake.requests) == sent, "a resume without --retry-errors ran an errored run"
        assert ("1 run ended in an error (model_error: 1); kept and counted as failed "
                "(--retry-errors runs them again)") in err, err
        assert "1 run (1 already in" in err
        fake.add("OK", WRITE, "Done.")
        assert _eval(*args, "--retry-errors", out=tmp_path / "o") == 0
        err = capsys.readouterr().err
    assert "1 run (0 already in" in err and "run again (--retry-errors)" in err, err
    (row,) = load_results(tmp_path / "o").rows
    assert row["passed"] and row["stop_reason"] == "done"


def test_retry_errors_never_reruns_a_failed_check(tmp_path: Path) -> None:
    hello = [t for t in load_suite(SUITE) if t.name == "hello"]
    Experiment(hello, [LAZY], repeats=3, out=tmp_path / "out").run(workers=0, progress=False)
    results = ResultsFile(tmp_path / "out")
    rows = sorted(results.rows(), key=lambda r: r["repeat"])
    assert [r["passed"] for r in rows] == [False] * 3  # failed checks
    # repeat 1 hung past its budget, repeat 2 ended by the agent's own time budget (the
    # model's slowness: a result, not an error)
    results.add({**rows[1], "stop_reason": "timeout", "started_at": rows[1]["started_at"] + 1})
    results.add({**rows[2], "stop_reason": "time_budget",
                 "started_at": rows[2]["started_at"] + 1})  # fmt: skip
    again = Experiment(hello, [LAZY], repeats=3, out=tmp_path / "out", retry_errors=True)
    assert [s.key for s in again.pending()] == [("hello", "lazy", 1, "operator")], \
        "--retry-errors reran a failed check or a run the model ran out of time on"
    kept = Experiment(hello, [LAZY], repeats=3, out=tmp_path / "out")
    assert kept.pending() == [] and [r["repeat"] for r in kept.errored()] == [1]


def test_a_429_with_retry_after_is_waited_for_then_the_run_succeeds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The endpoint answers 429 with Retry-After: 1 until the SDK's retries are spent: the run
    ends as a rate-limited model_error, the grid waits the second it asked, and the run done
    again passes."""
    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        fake.add("OK", *[Script(status=429, retry_after="1")] * 3, WRITE, "Done.")
        args = (str(HELLO), "--model", "fake-model", "--base-url", fake.url, "--retry-errors")
        assert _eval(*args, out=tmp_path / "o") == 0
        times = list(fake.times)
    err = capsys.readouterr().err
    assert len(times) == 6, times  # the check, three 429s, then the run's two turns
    assert times[4] - times[3] >= 0.95, "the grid did not wait as long as Retry-After asked"
    assert ("hello · fake-model · repeat 0: the endpoint is limiting requests (429); trying "
            f"again in 1 s, try 2 of {RATE_LIMIT_RETRIES + 1}") in err, err
    assert "[1/1] hello · fake-model · repeat 0: passed" in err
    assert _lines(tmp_path / "o") == 2  # the rate-limited try is kept, the newer row counts
    (row,) = load_results(tmp_path / "o").rows
    assert row["passed"] and row["stop_reason"] == "done"


def test_the_wait_is_bounded_and_the_tries_are_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Retry-After: 3600 is cut to the grid's longest wait; a run still limited after its
    last try ends as the rate-limited model_error it is."""
    hello = [t for t in load_suite(SUITE) if t.name == "hello"]
    said: list[str] = []
    with FakeOpenAI(default=Script(status=429, retry_after="3600")) as fake:
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        experiment = Experiment(hello, [ModelSpec.endpoint("fake-model", fake.url)],
                                out=tmp_path / "out", retry_errors=True,
                                max_wait_s=0.2)  # fmt: skip
        (row,) = experiment.run(workers=0, progress=False, notice=said.append).rows
        times = list(fake.times)
    assert len(times) == RATE_LIMIT_RETRIES + 1, "not one request per try"
    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    assert all(0.19 <= gap < 5 for gap in gaps), gaps
    assert len(said) == RATE_LIMIT_RETRIES
    assert "(it asked for 3600 s; the wait is at most 0.2 s)" in said[0], said
    assert row["stop_reason"] == "model_error" and row["error_kind"] == "rate_limit"
    assert row["retry_after_s"] == pytest.approx(3600)
    assert experiment.tally is not None and experiment.tally.done == 1
    assert _lines(tmp_path / "out") == RATE_LIMIT_RETRIES + 1


def test_the_wait_before_a_try() -> None:
    limited = {"stop_reason": "model_error", "error_kind": "rate_limit"}
    assert rate_limit_wait({**limited, "retry_after_s": 7.0}, 0, 60) == 7.0
    assert rate_limit_wait({**limited, "retry_after_s": 7200.0}, 0, 60) == 60
    assert rate_limit_wait({**limited, "retry_after_s": -5.0}, 0, 60) == 0.0
    assert [rate_limit_wait(limited, n, 60) for n in range(4)] == [1, 2, 4, 8]  # no header
    assert rate_limit_wait(limited, 10, 60) == 60
    assert rate_limit_wait({"stop_reason": "model_error", "error_kind": "server"}, 0, 60) is None
    assert rate_limit_wait({"stop_reason": "done", "passed": False}, 0, 60) is None


def test_retry_after_is_read_in_every_spelling() -> None:
    def said(**headers: str) -> float | None:
        return retry_after(httpx.Response(429, headers=headers))

    assert said(**{"Retry-After": "2"}) == 2.0
    assert said(**{"retry-after-ms": "1500", "Retry-After": "9"}) == 1.5
    assert said(**{"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # a past date
    assert said(**{"Retry-After": "Fri, 01 Jan 2100 00:00:00 GMT"}) > 1e9
    for nonsense in ("nan", "inf", "soon", ""):
        assert said(**{"Retry-After": nonsense}) is None, nonsense
    assert said() is None and retry_after(None) is None
