"""Deciding on a terminal (``--approve ask``) and without one: prompts, a / q, escapes shown."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from support.replies import b64, block

from jupyter_operator.cli import visible_text
from jupyter_operator.protocol import parse_results

PROMPT = b"? [y/N/a/q/"  # "e/" follows for a change whose new content is text


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


def writes(*names: str) -> str:
    return "\n".join(
        block(f"w{n}", "fs.write", path=name, content_b64=b64(f"{name}\n"))
        for n, name in enumerate(names, 1)
    )


def on_terminal(args: list[str], reply: str, answers: list[bytes], tmp_path: Path,
                env: dict[str, str]) -> tuple[str, bytes, int]:  # fmt: skip
    """Run ``jupyter-operator run --approve ask`` on a pseudo-terminal; answer each prompt."""
    return converse(args, reply, [(PROMPT, answer) for answer in answers], tmp_path, env)


def test_without_a_terminal_rejections_are_said_on_stderr(root: Path, env: dict[str, str]) -> None:
    # A new session has no controlling terminal: nobody can be asked.
    proc = subprocess.run(
        [sys.executable, "-m", "jupyter_operator", "run", "--root", str(root)],
        input=writes("a.txt", "b.txt"), capture_output=True, text=True, env=env, timeout=60,
        start_new_session=True,
    )  # fmt: skip
    assert proc.returncode == 0
    assert proc.stdout.count("Rejected (ERR_REJECTED)") == 2
    assert "no terminal to ask, so 2 changes were rejected" in proc.stderr
    assert "--approve all" in proc.stderr and len(proc.stderr.splitlines()) == 1
    assert list(root.iterdir()) == []
    # Asked for explicitly, a dry run stays quiet.
    quiet = subprocess.run(
        [sys.executable, "-m", "jupyter_operator", "run", "--root", str(root), "--approve", "none"],
        input=writes("a.txt"), capture_output=True, text=True, env=env, timeout=60,
        start_new_session=True,
    )  # fmt: skip
    assert quiet.stderr == ""


def test_prompt_shows_the_default_and_a_approves_the_rest(
    root: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    results, screen, code = on_terminal(
        ["--root", str(root)], writes("a.txt", "b.txt", "c.txt"), [b"\n", b"a\n"], tmp_path, env
    )
    assert code == 0
    assert b"Apply w1? [y/N/a/q/e/reason]" in screen
    assert screen.count(PROMPT) == 2  # "a" answered for w2 and w3
    assert "id: w1\nok: false" in results  # Enter means no
    assert "id: w2\nok: true" in results and "id: w3\nok: true" in results
    assert sorted(p.name for p in root.iterdir()) == ["b.txt", "c.txt"]


def test_q_rejects_the_rest(root: Path, tmp_path: Path, env: dict[str, str]) -> None:
    results, screen, code = on_terminal(
        ["--root", str(root)], writes("a.txt", "b.txt", "c.txt"), [b"y\n", b"q\n"], tmp_path, env
    )
    assert code == 0 and screen.count(PROMPT) == 2
    assert "id: w1\nok: true" in results
    assert results.count("Rejected (ERR_REJECTED): nothing was changed.\n") == 2
    assert sorted(p.name for p in root.iterdir()) == ["a.txt"]


def test_escape_sequences_in_a_diff_are_shown_not_obeyed(
    root: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    hostile = (
        "harmless\n"
        "rm -rf ~ \x1b[1A\x1b[2K\n"  # move up and erase: would hide this added line
        "\x1b]0;owned\x07\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\\n"  # title, link
        "c1 csi \x9b2J and a\rlone cr\n"
    )
    reply = block("w1", "fs.write", path="x.sh", content_b64=b64(hostile))
    _results, screen, code = on_terminal(["--root", str(root)], reply, [b"n\n"], tmp_path, env)
    assert code == 0
    for raw in (b"\x1b[1A", b"\x1b[2K", b"\x1b]0;", b"\x1b]8;", b"\x07", b"\xc2\x9b", b"a\rlone"):
        assert raw not in screen, raw
    text = screen.decode("utf-8", "replace")
    assert "<U+001B>[1A<U+001B>[2K" in text and "<U+001B>]0;owned<U+0007>" in text
    assert "<U+009B>2J" in text and "a<U+000D>lone cr" in text


def test_visible_text_keeps_tabs_and_crlf_lines_readable() -> None:
    assert visible_text("a\tb\r\nc\n") == "a\tb\nc\n"
    assert visible_text("rlo\u202eevil\u200b") == "rlo<U+202E>evil<U+200B>"


def converse(args: list[str], reply: str, steps: list[tuple[bytes, bytes]], tmp_path: Path,
             env: dict[str, str]) -> tuple[str, bytes, int]:  # fmt: skip
    """Like ``on_terminal``, but each answer waits for its own prompt (``(prompt, answer)``)."""
    reply_file = tmp_path / "reply.txt"
    reply_file.write_text(reply, encoding="utf-8")
    out_file = tmp_path / "results.txt"
    master, slave = pty.openpty()
    with out_file.open("w") as results:
        proc = subprocess.Popen(
            [sys.executable, "-m", "jupyter_operator", "run", *args, "--approve", "ask",
             str(reply_file)],
            stdin=slave, stdout=results, stderr=slave, env=env,
        )  # fmt: skip
        os.close(slave)
        screen, seen = b"", {}
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    screen += os.read(master, 65536)
                except OSError:
                    break
            if steps and screen.count(steps[0][0]) > seen.get(steps[0][0], 0):
                prompt, answer = steps.pop(0)
                seen[prompt] = seen.get(prompt, 0) + 1
                os.write(master, answer)
        proc.wait(timeout=30)
        os.close(master)
    return out_file.read_text(), screen, proc.returncode


EDIT_PROMPT = b"Apply your edit? [y/N]"


def test_e_edits_the_change_in_the_editor_and_applies_the_edit(
    root: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    (root / "notes.txt").write_text("one\n")
    reply = block("w1", "fs.write", path="notes.txt", content_b64=b64("one\nalpha\n"))
    env["EDITOR"] = "sed -i s/alpha/omega/"  # an editor that changes one word and saves
    env.pop("VISUAL", None)
    results, screen, code = converse(
        ["--root", str(root)], reply, [(PROMPT, b"e\n"), (EDIT_PROMPT, b"y\n")], tmp_path, env
    )
    assert code == 0, screen
    text = screen.decode("utf-8", "replace")
    assert "your edit of notes.txt: +1 -1 lines" in text and "+omega" in text
    assert (root / "notes.txt").read_text() == "one\nomega\n"
    assert "id: w1\nok: true" in results and "the person edited the change" in results
    [result] = parse_results(results)
    assert "-alpha\n+omega" in (result.details or "")  # the model learns what the person changed
    assert not list(Path(tempfile.gettempdir()).glob("jupyter-operator-edit-*"))


def test_an_edit_dropped_or_unchanged_asks_again(
    root: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    reply = writes("a.txt", "b.txt")
    env["EDITOR"] = "sed -i s/a/X/"
    env.pop("VISUAL", None)
    steps = [(PROMPT, b"e\n"), (EDIT_PROMPT, b"n\n"), (PROMPT, b"y\n"), (PROMPT, b"n\n")]
    results, screen, code = converse(["--root", str(root)], reply, steps, tmp_path, env)
    assert code == 0 and b"your edit is dropped" in screen
    assert (root / "a.txt").read_text() == "a.txt\n"  # the proposal as the model wrote it
    assert "id: w2\nok: false" in results and not (root / "b.txt").exists()
    env["EDITOR"] = "true"  # saves nothing
    (root / "a.txt").unlink()
    results, screen, code = converse(
        ["--root", str(root)], writes("a.txt"), [(PROMPT, b"e\n"), (PROMPT, b"n\n")], tmp_path, env
    )
    assert code == 0 and b"no change made to the proposal" in screen
    assert "ok: false" in results and not (root / "a.txt").exists()


def test_a_delete_offers_no_edit(root: Path, tmp_path: Path, env: dict[str, str]) -> None:
    (root / "old.txt").write_text("old\n")
    reply = block("d1", "fs.delete", path="old.txt")
    results, screen, code = converse(
        ["--root", str(root)], reply, [(PROMPT, b"E\n"), (PROMPT, b"n\n")], tmp_path, env
    )
    assert code == 0
    assert b"Apply d1? [y/N/a/q/reason]" in screen and b"cannot be edited" in screen  # any case
    assert (root / "old.txt").exists() and "ok: false" in results
