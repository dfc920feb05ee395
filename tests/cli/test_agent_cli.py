"""jupyter-operator agent: the loop from a terminal, replayed or against the loopback endpoint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI
from replies import b64, block

from jupyter_operator.cli import main


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("JUPYTER_OPERATOR_TRANSCRIPT_DIR", str(tmp_path / "runs"))
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "JUPYTER_OPERATOR_MODEL"):
        monkeypatch.delenv(name, raising=False)
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


def script(tmp_path: Path) -> Path:
    path = tmp_path / "script.jsonl"
    replies = ["Writing.\n" + block("w1", "fs.write", path="a.txt", content_b64=b64("a")), "Done."]
    path.write_text("".join(json.dumps(r) + "\n" for r in replies))
    return path


@pytest.mark.parametrize(("approve", "written"), [("all", True), ("none", False)])
def test_replayed_task(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], approve: str, written: bool
) -> None:
    argv = ["agent", "--root", str(root), "--journal-dir", str(tmp_path / "journal"),
            "--replay", str(script(tmp_path)), "--approve", approve, "write a"]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "--- turn 1/10 ---" in out and "Writing." in out
    assert "[pending] fs.write a.txt (w1)" in out
    assert "The model finished after 2 turns" in out and "Transcript:" in out
    assert (root / "a.txt").exists() is written
    assert len(list((tmp_path / "runs").glob("*.jsonl"))) == 1


def test_against_an_endpoint_with_the_key_in_the_environment(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    with FakeOpenAI() as fake:
        fake.add(block("w1", "fs.write", path="a.txt", content_b64=b64("a")), "All done.")
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        argv = ["agent", "--root", str(root), "--journal-dir", str(tmp_path / "journal"),
                "--model", "fake-model", "--base-url", fake.url,
                "--approve", "all", "go"]  # fmt: skip
        assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "All done." in out and (root / "a.txt").read_text() == "a"
    assert fake.key not in out + err


def test_endpoint_fault_exits_1_with_its_sentence(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["agent", "--root", str(root), "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
            "--approve", "none", "go"]  # fmt: skip
    assert main(argv) == 1
    out, err = capsys.readouterr()
    assert "Could not connect to the endpoint 127.0.0.1:9" in err
    assert "Traceback" not in out + err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--replay", "/nonexistent.json"], "jupyter-operator: agent:"),
        (["--model", "gpt-x"], "No API key for api.openai.com"),
        (["--replay", "x", "--policy", "auto=bogus"], "unknown action or group"),
    ],
)
def test_usage_errors(
    root: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    assert main(["agent", "--root", str(root), *extra, "--approve", "none", "task"]) == 2
    assert message in capsys.readouterr().err
