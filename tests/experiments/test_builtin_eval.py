"""``jupyter-operator eval --suite builtin`` against the loopback OpenAI-compatible endpoint:
an endpoint that answers with each task's reference solution passes every task, in its own copy,
and the results and transcripts are written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI

from jupyter_operator.cli import main
from jupyter_operator.experiments import load_suite


def test_eval_builtin_against_a_loopback_endpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks = load_suite("builtin")
    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        fake.add("OK")  # the one request that checks the key, the endpoint and the model
        for task in tasks:  # one worker, in order: each task gets its reference's replies
            fake.add(*task.reference)
        code = main(["eval", "--suite", "builtin", "--model", "fake-model", "--base-url",
                     fake.url, "--workers", "0", "--out", str(tmp_path / "out")])  # fmt: skip
        requests = len(fake.requests)
    assert code == 0
    rows = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text()
            .splitlines()]  # fmt: skip
    failed = {r["task"]: (r["stop_reason"], r["check_output"]) for r in rows if not r["passed"]}
    assert failed == {}
    assert len(rows) == len(tasks) and requests == 1 + sum(len(t.reference) for t in tasks)
    assert all(r["tokens"] > 0 and r["transcript"] for r in rows)
    assert f"fake-model\t{len(tasks)}\t{len(tasks)}\t100.0%" in capsys.readouterr().out
    assert fake.key not in (tmp_path / "out" / "results.jsonl").read_text()
