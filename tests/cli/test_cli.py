"""The command line: exit codes, spec, undo and history, and interactive approval on a terminal."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_process import cli
from support.replies import b64, block

from jupyter_operator.protocol import parse_results

REPLY = "\n".join([
    "Here is my plan.",
    block("r1", "fs.read", path="a.txt"),
    block("w1", "fs.write", path="a.txt", content_b64=b64("alpha\nBETA\n")),
    block("w2", "fs.write", path="b.txt", content="new file"),
])  # fmt: skip


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "a.txt").write_bytes(b"alpha\nbeta\n")
    return folder


def test_run_prints_only_results_and_applies(root: Path, env: dict[str, str]) -> None:
    proc = cli("run", "--root", str(root), "--approve", "all", env=env, stdin=REPLY)
    assert proc.returncode == 0
    assert proc.stdout.startswith("OPERATOR_RESULT\nid: r1\nok: true\nsummary: Read file\n")
    assert proc.stdout.splitlines().count("OPERATOR_RESULT") == 3 and proc.stderr == ""
    assert (root / "a.txt").read_bytes() == b"alpha\nBETA\n"
    assert (root / "b.txt").read_bytes() == b"new file"


def test_dry_run_rejects_every_change(root: Path, env: dict[str, str]) -> None:
    proc = cli("run", "--root", str(root), "--approve", "none", env=env, stdin=REPLY)
    assert proc.stdout.count("Rejected (ERR_REJECTED)") == 2
    assert (root / "a.txt").read_bytes() == b"alpha\nbeta\n" and not (root / "b.txt").exists()


def test_history_and_undo(root: Path, env: dict[str, str]) -> None:
    cli("run", "--root", str(root), "--approve", "all", env=env, stdin=REPLY)
    history = cli("history", "--root", str(root), env=env).stdout
    assert "j1" in history and "fs.write" in history and "[w2]" in history
    undone = cli("undo", "--root", str(root), env=env)
    assert undone.returncode == 0 and undone.stdout.startswith("Undid j2: fs.write b.txt")
    assert not (root / "b.txt").exists()
    cli("undo", "--root", str(root), "j1", env=env)
    assert (root / "a.txt").read_bytes() == b"alpha\nbeta\n"
    nothing = cli("undo", "--root", str(root), env=env)
    # A person reads a sentence, not the model's error format.
    assert nothing.returncode == 1
    assert nothing.stderr == "jupyter-operator: undo: nothing to undo in this workspace.\n"
    assert "(undone)" in cli("history", "--root", str(root), env=env).stdout


def test_redo_and_history_columns(root: Path, env: dict[str, str]) -> None:
    cli("run", "--root", str(root), "--approve", "all", env=env, stdin=REPLY)
    cli("undo", "--root", str(root), "j1", env=env)
    assert (root / "a.txt").read_bytes() == b"alpha\nbeta\n"
    redone = cli("redo", "--root", str(root), env=env)
    assert redone.returncode == 0 and redone.stdout.startswith("Redid j1: fs.write a.txt")
    assert (root / "a.txt").read_bytes() == b"alpha\nBETA\n"
    again = cli("redo", "--root", str(root), "j1", env=env)
    assert again.returncode == 1 and "j1 is not undone; there is nothing to redo" in again.stderr
    assert "ERR_" not in again.stderr and "OPERATOR_CMD" not in again.stderr
    lines = cli("history", "--root", str(root), env=env).stdout.splitlines()
    assert "by person" in lines[0] and "(redone)" in lines[0] and "session s-" in lines[0]
    journal = Path(env["JUPYTER_OPERATOR_JOURNAL_DIR"])
    [entries] = list(journal.glob("*/entries.jsonl"))
    entries.write_text("damaged\n" + entries.read_text())
    broken = cli("history", "--root", str(root), env=env)
    assert broken.returncode == 1
    assert "the undo journal of this workspace is damaged" in broken.stderr
    assert "ERR_" not in broken.stderr
    assert "Traceback" not in broken.stderr


def test_commands_cut_off_by_the_scan_window_are_said_to_the_person_and_the_model(
    root: Path, env: dict[str, str]
) -> None:
    """The person is warned on stderr how many commands did not run, and the model is told in
    the result blocks it reads; stdout keeps the command-line contract (result blocks only, one
    per command read, exit 0), so scripts and the conformance cases still read it."""
    early = "\n".join(block(f"e{n}", "fs.write", path=f"e{n}.txt", content="e") for n in range(2))
    late = block("r1", "fs.read", path="a.txt")
    reply = early + "\n" + "filler line\n" * 20_000 + late
    proc = cli("run", "--root", str(root), "--approve", "all", env=env, stdin=reply)
    assert proc.returncode == 0
    cut = len(reply) - 200_000
    assert proc.stderr.startswith(
        "jupyter-operator: WARNING: This reply is longer than the 200,000 characters that are "
        f"scanned: the first {cut:,} characters were not read, and they hold 2 OPERATOR_CMD "
        "markers whose commands did not run."
    )
    assert proc.stdout.startswith("OPERATOR_RESULT\nid: r1\nok: true")
    [told] = parse_results(proc.stdout)
    assert told.summary.startswith("Read file -- Note: only the last 200,000"), (
        "the model is not told that commands were left in the part of its reply not read"
    )
    assert "hold 2 OPERATOR_CMD markers that were not read" in told.summary
    assert not (root / "e0.txt").exists()
    # With no command read at all, the note is a result of its own (not an empty stdout).
    alone = cli("run", "--root", str(root), "--approve", "all", env=env,
                stdin=early + "\n" + "filler line\n" * 20_000)  # fmt: skip
    assert alone.returncode == 0 and "WARNING:" in alone.stderr
    [own] = parse_results(alone.stdout)
    assert (own.id, own.ok, own.code) == ("operator-error-1", False, "ERR_REPLY_TOO_LONG")
    assert own.summary.startswith("Invalid OPERATOR_CMD (ERR_REPLY_TOO_LONG): only the last")
    assert alone.stdout.startswith("OPERATOR_RESULT\n"), "stdout holds result blocks only"
    # Cut prose alone is only a note.
    prose = cli("run", "--root", str(root), "--approve", "all", env=env,
                stdin="filler line\n" * 20_000 + late)  # fmt: skip
    assert prose.returncode == 0 and prose.stdout.startswith("OPERATOR_RESULT\n")
    assert "no OPERATOR_CMD marker in them" in prose.stderr


def test_spec_prints_the_interface_spec(env: dict[str, str]) -> None:
    out = cli("spec", env=env).stdout
    assert out.startswith("Operator Interface Specification (version: 3)")
    assert "assistant's normal message stream" in out and "â€" not in out


@pytest.mark.parametrize(
    "args",
    [["run", "--approve", "maybe"], ["frobnicate"], [], ["run", "--policy", "auto=nonsense"]],
)
def test_usage_errors_exit_2(args: list[str], env: dict[str, str]) -> None:
    proc = cli(*args, env=env)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_missing_root_is_a_usage_error(tmp_path: Path, env: dict[str, str]) -> None:
    proc = cli("run", "--root", str(tmp_path / "nope"), "--approve", "all", env=env, stdin=REPLY)
    assert proc.returncode == 2 and "not a directory" in proc.stderr


def test_no_blocks_is_said_on_stderr(root: Path, env: dict[str, str]) -> None:
    proc = cli("run", "--root", str(root), "--approve", "all", env=env, stdin="Just prose.\n")
    assert proc.returncode == 0 and proc.stdout == ""
    # It says what it looked for.
    assert "No OPERATOR_CMD blocks found (looked for blocks of the Operator dialect" in proc.stderr


def test_ask_shows_each_diff_and_reads_the_answer(root: Path, tmp_path: Path,
                                                  env: dict[str, str]) -> None:  # fmt: skip
    reply_file = tmp_path / "reply.txt"
    reply_file.write_text(REPLY, encoding="utf-8")
    out_file = tmp_path / "results.txt"
    master, slave = pty.openpty()
    with out_file.open("w") as results:
        proc = subprocess.Popen(
            [sys.executable, "-m", "jupyter_operator", "run", "--root", str(root),
             "--approve", "ask", str(reply_file)],
            stdin=slave, stdout=results, stderr=slave, env=env,
        )  # fmt: skip
        os.close(slave)
        screen = b""
        answers = [b"y\n", b"not this one\n"]
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    screen += os.read(master, 4096)
                except OSError:
                    break
            if answers and screen.count(b"? [y/N/a/q/") > 2 - len(answers):
                os.write(master, answers.pop(0))
        proc.wait(timeout=30)
        os.close(master)
    text = screen.decode("utf-8", "replace")
    assert "fs.write a.txt" in text and "BETA" in text  # the diff was shown before asking
    assert proc.returncode == 0
    results_text = out_file.read_text()
    assert "id: w1\nok: true" in results_text
    assert "Rejected (ERR_REJECTED): nothing was changed. Reason: not this one" in results_text
    assert (root / "a.txt").read_bytes() == b"alpha\nBETA\n" and not (root / "b.txt").exists()
