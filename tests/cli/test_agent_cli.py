"""jupyter-operator agent: the loop from a terminal, replayed or against the loopback endpoint."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from support.fake_openai import FakeOpenAI, Script
from support.host_folders import keep_host_files_in
from support.replies import b64, block

from jupyter_operator.cli import main


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    keep_host_files_in(tmp_path, monkeypatch)
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
    assert "[Waiting for you] fs.write a.txt (w1)" in out
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


def merged_output(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    """stdout and stderr into one buffer, in the order a terminal shows them."""
    screen = io.StringIO()
    monkeypatch.setattr(sys, "stdout", screen)
    monkeypatch.setattr(sys, "stderr", screen)
    return screen


@pytest.mark.parametrize(
    ("fault", "sentence"),
    [
        ("down", "Could not connect to the endpoint 127.0.0.1:9"),
        ("401", "refused the API key (401)"),
        ("404", "does not know the model 'other-model' (404)"),
        ("500", "failed (HTTP 500), still after retries"),
    ],
)
def test_an_endpoint_fault_is_said_once(
    root: Path, monkeypatch: pytest.MonkeyPatch, fault: str, sentence: str
) -> None:
    with FakeOpenAI(default=Script(status=500)) as fake:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong" if fault == "401" else fake.key)
        url = "http://127.0.0.1:9/v1" if fault == "down" else fake.url
        model = "other-model" if fault == "404" else "fake-model"
        screen = merged_output(monkeypatch)
        code = main(["agent", "--root", str(root), "--model", model, "--base-url", url,
                     "--approve", "none", "go"])  # fmt: skip
    text = screen.getvalue()
    assert code == 1
    assert text.count(sentence) == 1, text
    assert "Stopped after 1 turn (0 tokens)." in text and "turns," not in text


def test_a_cut_stream_puts_its_error_on_a_line_of_its_own(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAI() as fake:
        fake.add(Script("Here is the start of a reply that", chunk=8, cut_after=2))
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        screen = merged_output(monkeypatch)
        code = main(["agent", "--root", str(root), "--model", "fake-model", "--base-url",
                     fake.url, "--approve", "none", "go"])  # fmt: skip
    lines = screen.getvalue().splitlines()
    assert code == 1
    [partial] = [line for line in lines if "Here is" in line]
    assert partial == "Here is the star"  # the two chunks that came, alone on their line
    assert any(line.startswith("jupyter-operator: ") for line in lines)


class FakeTerminal:
    """/dev/tty for an in-process run: answers come from a list, questions are kept."""

    def __init__(self, *answers: str) -> None:
        self.answers = io.StringIO("".join(answers))
        self.screen = io.StringIO()

    def readline(self) -> str:
        return self.answers.readline()

    def write(self, text: str) -> int:
        return self.screen.write(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def close(self) -> None:
        pass


def test_a_rejection_shows_the_reason_typed(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    terminal = FakeTerminal("y\n", "too big,\x1b[2J keep it short\n")
    monkeypatch.setattr("jupyter_operator.cli._terminal", lambda: terminal)
    with FakeOpenAI() as fake:
        fake.add(
            block("w1", "fs.write", path="a.txt", content_b64=b64("a"))
            + "\n" + block("w2", "fs.write", path="b.txt", content_b64=b64("b")),
            "Fine.",
        )  # fmt: skip
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        assert main(["agent", "--root", str(root), "--model", "fake-model",
                     "--base-url", fake.url, "go"]) == 0  # fmt: skip
    screen = terminal.screen.getvalue()
    assert "w1 -> Applied: " in screen
    # The reason, flattened to one safe line (the escape never reaches the terminal).
    assert "w2 -> Rejected: nothing was changed. Reason: too big,?[2J keep it short" in screen
    assert "\x1b" not in screen
    assert (root / "a.txt").exists() and not (root / "b.txt").exists()


def test_the_transcript_follows_journal_dir_and_stays_out_of_reach(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    monkeypatch.delenv("JUPYTER_OPERATOR_TRANSCRIPT_DIR")
    monkeypatch.setenv("HOME", str(tmp_path))  # never the real data folder
    monkeypatch.delenv("JUPYTER_DATA_DIR", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    journal = root / "journal"  # inside the workspace: the jail still keeps it out of reach
    replay = tmp_path / "snoop.json"
    replay.write_text(json.dumps([block("l1", "fs.list", path="journal/runs"), "Done."]))
    argv = ["agent", "--root", str(root), "--journal-dir", str(journal), "--replay", str(replay),
            "--approve", "none", "look"]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    [transcript] = list((journal / "runs").glob("*.jsonl"))
    assert f"Transcript: {transcript}" in out
    assert "[Failed] fs.list journal/runs (l1)" in out and "undo journal" in out


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [("bad.json", '["fine", {bad', "line 1, column 11"),
     ("bad.jsonl", '"fine"\n\n{bad\n', "line 3, column 2")],
)  # fmt: skip
def test_a_replay_file_that_is_not_json_is_named(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str,
    where: str,
) -> None:  # fmt: skip
    (tmp_path / name).write_text(text)
    argv = ["agent", "--root", str(root), "--replay", str(tmp_path / name), "--approve", "none",
            "task"]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"jupyter-operator: agent: {name} is not valid JSON or JSONL: ")
    assert f"({where})" in err and len(err.splitlines()) == 1


def test_without_a_terminal_or_approve_each_rejection_is_said_and_the_exit_is_not_0(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """No one could be asked: the change is rejected with that reason (to the model and on
    stderr), and the exit status tells a script the task was not done as asked."""
    monkeypatch.setattr("jupyter_operator.cli._terminal", lambda: None)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    argv = ["agent", "--root", str(root), "--journal-dir", str(tmp_path / "journal"),
            "--replay", str(script(tmp_path)), "write a"]  # fmt: skip
    code = main(argv)
    err = capsys.readouterr().err
    assert not (root / "a.txt").exists()
    assert "jupyter-operator: w1 -> Rejected: " in err, "the rejection is not said on stderr"
    assert "no one could be asked" in err
    assert "no terminal to ask and no --approve, so 1 change was rejected" in err
    assert code == 1, "a run whose changes no one could decide exits 0"
    [transcript] = (tmp_path / "runs").glob("*.jsonl")
    assert "no one could be asked" in transcript.read_text(), "the model is not told why"


@pytest.mark.parametrize(("approve", "outcome"), [("all", "Applied"), ("none", "Rejected")])
def test_approve_all_or_none_says_each_outcome_on_stderr(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], approve: str, outcome: str
) -> None:
    argv = ["agent", "--root", str(root), "--journal-dir", str(tmp_path / "journal"),
            "--replay", str(script(tmp_path)), "--approve", approve, "write a"]  # fmt: skip
    assert main(argv) == 0
    err = capsys.readouterr().err
    said = f"jupyter-operator: w1 -> {outcome}: " in err
    assert said, f"the outcome of --approve {approve} is not said"
    assert "no one could be asked" not in err


@pytest.mark.parametrize(
    ("extra", "said", "not_said"),
    [
        ([], "No model named: pass --model NAME (or --replay FILE) or set "
             "$JUPYTER_OPERATOR_MODEL.", "model=..."),
        (["--model", "gpt-x"], "No API key for api.openai.com: set $OPENAI_API_KEY in the "
                               "environment.", "on the server"),
    ],
)  # fmt: skip
def test_a_missing_model_or_key_is_said_in_the_command_line_s_words(
    root: Path, capsys: pytest.CaptureFixture[str], extra: list[str], said: str, not_said: str
) -> None:
    assert main(["agent", "--root", str(root), *extra, "--approve", "none", "task"]) == 2
    err = capsys.readouterr().err
    assert said in err, "the sentence does not name the command line's own option"
    assert not_said not in err


def test_the_end_counts_every_reply_and_labels_estimated_tokens(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three replies in two turns (the first, cut off inside a block, was continued): the end
    line says both counts, and a scripted model's token count is said to be an estimate."""
    cut = "Writing.\nOPERATOR_CMD\nversion: 1\nid: w1\naction: fs.write\n"
    whole = block("w1", "fs.write", path="a.txt", content="a")
    path = tmp_path / "cut.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [cut, whole, "Done."]))
    argv = ["agent", "--root", str(root), "--journal-dir", str(tmp_path / "journal"),
            "--replay", str(path), "--approve", "all", "write a"]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert (root / "a.txt").read_text() == "a"
    assert ("The model finished after 2 turns (3 replies: 1 cut off inside a command block was "
            "continued), using an estimated ") in out, "the end line miscounts the replies"
    assert "turn. (" not in out and "turns, " not in out  # the turns are said once


def test_in_a_session_with_no_terminal_at_all_the_exit_says_no_one_was_asked(
    root: Path, tmp_path: Path
) -> None:
    """As a cron job or CI step runs it: a new session (no controlling terminal, so no
    /dev/tty), stdin not a terminal, no --approve."""
    import os
    import subprocess

    env = dict(os.environ, JUPYTER_OPERATOR_TRANSCRIPT_DIR=str(tmp_path / "runs"),
               JUPYTER_OPERATOR_JOURNAL_DIR=str(tmp_path / "journal"))  # fmt: skip
    proc = subprocess.run(
        [sys.executable, "-m", "jupyter_operator", "agent", "--root", str(root), "--replay",
         str(script(tmp_path)), "write a"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, timeout=120,
        start_new_session=True,
    )  # fmt: skip
    assert not (root / "a.txt").exists()
    assert "w1 -> Rejected: " in proc.stderr and "no one could be asked" in proc.stderr
    assert proc.returncode == 1, "a run whose changes no one could decide exits 0"


def test_models_lists_the_named_endpoints_and_agent_runs_through_one(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """The list the panel's Add model saves: ``models`` shows it (never a key), ``agent
    --endpoint NAME`` runs with its stored key."""
    from jupyter_operator.agent.endpoints import Endpoint, EndpointStore

    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "data"))
    assert main(["models"]) == 0
    assert "No named endpoints" in capsys.readouterr().out
    with FakeOpenAI(key="sk-stored-for-the-terminal-42") as fake:
        EndpointStore(use_keyring=False).add(Endpoint("loopback", fake.url, "fake-model"),
                                             fake.key)  # fmt: skip
        assert main(["models"]) == 0
        listed = capsys.readouterr().out
        assert listed.startswith("loopback\tfake-model at 127.0.0.1") and "key: stored" in listed
        fake.add(block("w1", "fs.write", path="a.txt", content_b64=b64("a")), "All done.")
        argv = ["agent", "--root", str(root), "--journal-dir", str(tmp_path / "journal"),
                "--endpoint", "loopback", "--approve", "all", "go"]  # fmt: skip
        assert main(argv) == 0
        out, err = capsys.readouterr()
        assert main([*argv[:-5], "--endpoint", "nope", "go"]) == 2
        assert "no such named endpoint (known: loopback)" in capsys.readouterr().err
    assert (root / "a.txt").read_text() == "a"
    assert fake.key not in out + err + listed
