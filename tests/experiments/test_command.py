"""``jupyter-operator eval`` as a person meets it: what is checked before the first run, what
each failed run's line says, the exit status, the words, and the options it refuses."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from support.fake_openai import FakeOpenAI, Script
from support.replies import b64, block

from jupyter_operator.cli import main

SUITE = Path(__file__).resolve().parents[1] / "data" / "eval_suite"
HELLO = SUITE / "hello"
WRITE = block("w1", "fs.write", path="hello.txt", content_b64=b64("hello\n"))


def _eval(*args: str, out: Path) -> int:
    return main(["eval", *args, "--workers", "0", "--out", str(out)])


# -- before the first run -----------------------------------------------------------------------


def test_no_key_stops_the_grid_with_one_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    code = _eval(str(SUITE), "--model", "gpt-x", out=tmp_path / "o")
    err = capsys.readouterr().err
    assert code == 2, "a grid without a key ran"
    assert err.count("\n") == 1 and "No API key" in err and "OPENAI_API_KEY" in err, err
    assert "FAILED" not in err and not (tmp_path / "o" / "results.jsonl").exists()


@pytest.mark.parametrize(("key", "model", "said"), [
    ("sk-wrong-key-0123456789", "fake-model", "refused the API key (401)"),
    (None, "no-such-model", "does not know the model 'no-such-model' (404)"),
])  # fmt: skip
def test_the_endpoint_check_is_one_request_and_one_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    key: str | None, model: str, said: str,
) -> None:  # fmt: skip
    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", key or fake.key)
        code = _eval(str(SUITE), "--model", model, "--base-url", fake.url, out=tmp_path / "o")
        sent = len(fake.requests)
    err = capsys.readouterr().err
    assert code == 2 and sent == 1, (code, sent)
    assert said in err and f"model {model!r}" in err and err.count("\n") == 1, err
    assert (key or fake.key) not in err
    assert not (tmp_path / "o" / "results.jsonl").exists()


def test_an_endpoint_that_cannot_be_reached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-anything")
    code = _eval(str(HELLO), "--model", "m", "--base-url", f"http://127.0.0.1:{port}/v1",
                 out=tmp_path / "o")  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "Could not connect to the endpoint 127.0.0.1" in err, err


def test_a_scratch_setting_that_names_no_folder_stops_the_grid_with_one_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("JUPYTER_OPERATOR_EVAL_SCRATCH", str(tmp_path / "nowhere"))
    good = tmp_path / "good.json"
    good.write_text(json.dumps([WRITE, "Done."]))
    code = _eval(str(HELLO), "--replay", str(good), out=tmp_path / "o")
    err = capsys.readouterr().err
    assert code == 2, "a grid ran with its runs' folder named nowhere"
    assert err.count("\n") == 1 and "$JUPYTER_OPERATOR_EVAL_SCRATCH is" in err, err
    assert "nowhere" in err and not (tmp_path / "o" / "results.jsonl").exists()


def test_nothing_is_asked_when_nothing_is_left_to_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        fake.add("OK", WRITE, "Done.")
        args = (str(HELLO), "--model", "fake-model", "--base-url", fake.url)
        assert _eval(*args, out=tmp_path / "o") == 0
        sent = len(fake.requests)
        assert _eval(*args, out=tmp_path / "o") == 0
        assert len(fake.requests) == sent, "a finished grid sent a request"


# -- each run's line, the exit status -----------------------------------------------------------


def test_each_failed_run_says_why_on_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lazy = tmp_path / "lazy.json"
    lazy.write_text(json.dumps(["I am done."]))
    assert _eval(str(HELLO), "--replay", str(lazy), out=tmp_path / "o") == 0
    err = capsys.readouterr().err
    assert ("hello · lazy · repeat 0: FAILED (check exit 1: hello.txt does not hold the line "
            "hello)") in err, err  # fmt: skip


def test_every_run_errored_exits_non_zero_with_the_reason_on_each_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        fake.add("OK", *[Script(status=500)] * 6)  # the check passes, then every run fails
        code = _eval(str(HELLO), "--model", "fake-model", "--base-url", fake.url,
                     "--repeats", "2", out=tmp_path / "o")  # fmt: skip
    err = capsys.readouterr().err
    assert code == 1, "a grid in which every run errored exited 0"
    lines = [line for line in err.splitlines() if "FAILED" in line]
    assert len(lines) == 2 and all("FAILED (model_error: The endpoint 127.0.0.1" in line
                                   and "(HTTP 500)" in line for line in lines), err  # fmt: skip
    assert "every run ended in an error of the endpoint or the harness" in err


def test_a_checks_output_cannot_drive_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = tmp_path / "suite" / "noisy"
    (task / "files").mkdir(parents=True)
    (task / "task.toml").write_text(
        'prompt = "x"\ncheck = "printf \'ok\\\\033[2Kpassed\\\\342\\\\200\\\\256\'; exit 1"\n')
    lazy = tmp_path / "lazy.json"
    lazy.write_text(json.dumps(["I am done."]))
    assert _eval(str(task), "--replay", str(lazy), out=tmp_path / "o") == 0
    line = next(line for line in capsys.readouterr().err.splitlines() if "noisy" in line)
    assert "\x1b" not in line and "\r" not in line and "\u202e" not in line, repr(line)
    assert "<U+001B>[2K" in line and "<U+202E>" in line, line


# -- words and options --------------------------------------------------------------------------


def test_one_of_each_is_said_in_the_singular(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps([WRITE, "Done."]))
    assert _eval(str(HELLO), "--replay", str(good), out=tmp_path / "o") == 0
    err = capsys.readouterr().err
    assert "1 run (0 already in" in err and "1 task x 1 model x 1 repeat\n" in err, err
    assert "1/1 run ·" in err and "1 runs" not in err and "1 tasks" not in err
    from jupyter_operator.experiments import load_results

    assert repr(load_results(tmp_path / "o")) == "<Results 1 run, 1 passed>"


def test_a_suite_folder_and_a_shipped_suite_are_not_both_taken(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = _eval(str(SUITE), "--suite", "builtin", "--reference", out=tmp_path / "o")
    err = capsys.readouterr().err
    assert code == 2 and "not both" in err, "one of the two suites was silently ignored"
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(("option", "value"), [("--workers", "-1"), ("--repeats", "0"),
                                               ("--workers", "two")])  # fmt: skip
def test_counts_out_of_range_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, value: str
) -> None:
    code = main(["eval", str(HELLO), "--reference", option, value, "--out", str(tmp_path)])
    assert code == 2, f"{option} {value} was accepted"
    assert f"argument {option}" in capsys.readouterr().err


def test_help_shows_the_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    for shown in ("runs per task and model (default: 1)", "(default: eval-results)",
                  "(default: the CPUs, at most 8; 0: one by one in this process)",
                  "(default: $OPENAI_BASE_URL, else OpenAI)", "(default: off, refused)"):
        assert shown in text, shown


def test_runs_that_errored_are_done_again_once_the_endpoint_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run that ended as model_error did not really happen: the same command with
    --retry-errors does it again, and its new row replaces the old one."""
    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        fake.add("OK", *[Script(status=500)] * 3)
        args = (str(HELLO), "--model", "fake-model", "--base-url", fake.url)
        assert _eval(*args, out=tmp_path / "o") == 1
        fake.add("OK", WRITE, "Done.")
        capsys.readouterr()
        assert _eval(*args, "--retry-errors", out=tmp_path / "o") == 0
    err = capsys.readouterr().err
    assert "1 run (0 already in" in err, "a run that errored was taken as finished"
    from jupyter_operator.experiments import load_results

    (row,) = load_results(tmp_path / "o").rows
    assert row["passed"] and row["stop_reason"] == "done"
