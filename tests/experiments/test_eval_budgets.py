"""Per-run budgets in a grid: from task.toml and the command line, stopped by tokens, cost and
time as the loopback endpoint reports usage; the row, the transcript and the check."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support.fake_openai import FakeOpenAI, Script
from support.replies import b64, block

from jupyter_operator.cli import main
from jupyter_operator.experiments import Experiment, ModelSpec, TaskError, load_task

HELLO = Path(__file__).resolve().parents[1] / "data" / "eval_suite" / "hello"
WRITE = block("w1", "fs.write", path="hello.txt", content_b64=b64("hello\n"))
OTHER = block("w2", "fs.write", path="other.txt", content_b64=b64("other\n"))


def task_with(tmp_path: Path, extra: str) -> Path:
    """The hello task, its task.toml given ``extra`` lines (and no ``timeout_s`` when they
    name ``max_seconds``)."""
    folder = tmp_path / "suite" / "hello"
    shutil.copytree(HELLO, folder)
    settings = (folder / "task.toml").read_text()
    if "max_seconds" in extra:
        settings = settings.replace("timeout_s = 60\n", "")
    (folder / "task.toml").write_text(settings + extra)
    return folder


def eval_(*args: str, out: Path) -> int:
    return main(["eval", *args, "--workers", "0", "--out", str(out)])


def only_row(out: Path) -> dict[str, object]:
    (line,) = (out / "results.jsonl").read_text().splitlines()
    return json.loads(line)


def stop_record(out: Path, row: dict[str, object]) -> dict[str, object]:
    records = [json.loads(line) for line in (out / str(row["transcript"])).read_text().splitlines()]
    (stop,) = [r for r in records if r["type"] == "stop"]
    return stop


def test_a_task_s_token_budget_stops_its_run_and_the_check_judges_the_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = task_with(tmp_path, "max_tokens = 400\n")
    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        fake.add("OK", Script(WRITE, usage=(300, 200)), Script(OTHER, usage=(300, 200)))
        code = eval_(str(folder), "--model", "fake-model", "--base-url", fake.url,
                     "--max-tokens", "1000", out=tmp_path / "o")  # fmt: skip
        sent = len(fake.requests)
    assert code == 0 and sent == 2, "a request was sent after the token budget was used up"
    row = only_row(tmp_path / "o")
    assert (row["stop_reason"], row["budget"]) == ("budget", "tokens")
    assert row["limits"] == {"max_seconds": 60, "max_tokens": 400}  # the task's lower one
    assert row["passed"] is True, "the work done before the budget ran out was not checked"
    assert stop_record(tmp_path / "o", row)["budget"] == "tokens"
    assert "FAILED" not in capsys.readouterr().err


def test_a_cost_budget_on_the_command_line_stops_the_run_at_its_price(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        fake.add("OK", *[Script(OTHER, usage=(100_000, 10_000))] * 3)  # $0.30 a reply
        code = eval_(str(HELLO), "--model", "fake-model", "--base-url", fake.url,
                     "--max-cost", "0.5", "--price", "fake-model=2,10",
                     out=tmp_path / "o")  # fmt: skip
        sent = len(fake.requests)
    out = capsys.readouterr()
    assert code == 0 and sent == 3, "a request was sent after the cost budget was used up"
    row = only_row(tmp_path / "o")
    assert (row["stop_reason"], row["budget"]) == ("budget", "cost")
    assert row["cost"] == pytest.approx(0.6) and row["limits"]["max_cost"] == 0.5
    assert row["passed"] is False and row["check_exit"] == 1  # checked as usual
    stop = stop_record(tmp_path / "o", row)
    assert stop["budget"] == "cost" and stop["cost"] == pytest.approx(0.6)
    assert "FAILED (budget: Stopped: the cost budget ($0.5) is used up" in out.err
    assert "0.6000" in out.out  # the table's cost column


def test_a_cost_budget_for_a_model_without_a_price_is_refused_before_anything_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        code = eval_(str(HELLO), "--model", "fake-model", "--base-url", fake.url,
                     "--max-cost", "0.5", "--price", "other-model=2", out=tmp_path / "o")
        sent = len(fake.requests)
    err = capsys.readouterr().err
    assert code == 2 and sent == 0
    assert "model 'fake-model': a cost budget" in err and "--price fake-model=IN" in err, err
    # a task's own cost budget needs the price just as much
    folder = task_with(tmp_path, "max_cost = 0.1\n")
    with pytest.raises(ValueError, match="model 'good': a cost budget"):
        Experiment(folder, [ModelSpec.scripted("good", [WRITE])], out=tmp_path / "p")


def test_a_time_budget_on_the_command_line_stops_the_run_while_the_model_replies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        fake.add("OK", Script("word " * 200, chunk=5, delay=0.02))  # some 4 s of reply
        code = eval_(str(HELLO), "--model", "fake-model", "--base-url", fake.url,
                     "--max-seconds", "0.5", out=tmp_path / "o")  # fmt: skip
    assert code == 0
    row = only_row(tmp_path / "o")
    assert (row["stop_reason"], row["budget"]) == ("budget", "seconds"), row["stop_message"]
    assert row["limits"]["max_seconds"] == 0.5 and row["agent_seconds"] < 3
    assert stop_record(tmp_path / "o", row)["budget"] == "seconds"


def test_a_task_s_budgets_are_checked_when_it_is_loaded(tmp_path: Path) -> None:
    for n, (extra, said) in enumerate([
        ("max_seconds = 30\ntimeout_s = 60\n", "field 'timeout_s': the older name"),
        ("max_cost = 0\n", "field 'max_cost': must be more than 0"),
        ("max_tokens = 1.5\n", "field 'max_tokens': must be int"),
        ("max_seconds = -1\n", "field 'max_seconds': must be between 0"),
    ]):  # fmt: skip
        folder = task_with(tmp_path / str(n), "") if "timeout_s" in extra else \
            task_with(tmp_path / str(n), extra)  # fmt: skip
        if "timeout_s" in extra:
            (folder / "task.toml").write_text((folder / "task.toml").read_text()
                                              + "max_seconds = 30\n")  # fmt: skip
        with pytest.raises(TaskError, match=said):
            load_task(folder)
    task = load_task(task_with(tmp_path / "ok", "max_seconds = 30\nmax_cost = 0.25\n"))
    assert (task.time_budget, task.max_cost, task.max_tokens) == (30, 0.25, None)
