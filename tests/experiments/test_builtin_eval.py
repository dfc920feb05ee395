"""``jupyter-operator eval --suite builtin`` against the loopback OpenAI-compatible endpoint:
an endpoint that answers with each task's reference solution passes every task, in its own copy,
and the results and transcripts are written."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

import pytest
from support.fake_openai import FakeOpenAI

from jupyter_operator.cli import main
from jupyter_operator.experiments import load_suite
from jupyter_operator.experiments.tasks import BUILTIN


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


def write_reply(path: str, text: str) -> str:
    """One turn that writes ``path`` (base64 content), as a model's reply."""
    content = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return "\n".join(["OPERATOR_CMD", "version: 1", "id: write-1", "action: fs.write",
                      f"path: {path}", f"content_b64: {content}", "END_OPERATOR_CMD"])  # fmt: skip


#: Replies that end their process with status 0 instead of doing the task, and what the
#: results row's check_output then says.
CHEATS = {
    "01-new-module": (write_reply("textstats.py", "import os\nos._exit(0)\n"),
                      "FAIL: textstats.py did not return: its process ended with status 0"),
    "22-fix-failing-test": (write_reply("slug.py", "import sys\nsys.exit(0)\n"),
                            "FAIL: slug.slugify raised SystemExit(0) (slug.py line 2): the code "
                            "exits instead of returning"),
}  # fmt: skip


def test_eval_fails_replies_that_exit_early_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = tmp_path / "suite"
    for name in CHEATS:
        shutil.copytree(BUILTIN / name, suite / name)
    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        fake.add("OK")  # the one request that checks the key, the endpoint and the model
        for reply, _ in CHEATS.values():  # one worker, tasks in name order
            fake.add(reply, "Done.")
        code = main(["eval", str(suite), "--model", "fake-model", "--base-url", fake.url,
                     "--workers", "0", "--out", str(tmp_path / "out")])  # fmt: skip
    assert code == 0
    rows = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text()
            .splitlines()]  # fmt: skip
    assert {r["task"]: (r["passed"], r["check_exit"]) for r in rows} == {
        name: (False, 1) for name in CHEATS
    }
    for row in rows:
        assert row["check_output"].startswith(CHEATS[row["task"]][1]), row["check_output"]
