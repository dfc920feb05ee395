"""``eval --approve ask`` as a person meets it before the first run: the server it needs."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from jupyter_operator.cli import main

HELLO = Path(__file__).resolve().parents[1] / "data" / "eval_suite" / "hello"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(("args", "said"), [
    (["--approve", "ask"], "--approve ask needs --server URL"),
    (["--server", "http://127.0.0.1:1/"], "--server and --token go with --approve ask"),
    (["--approve", "ask", "--server", "http://127.0.0.1:{port}/", "--token", "t"],
     "the Jupyter server at 127.0.0.1:{port} cannot be reached"),
])  # fmt: skip
def test_ask_needs_a_server_that_answers_before_any_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    port = _free_port()
    replies = tmp_path / "good.json"
    replies.write_text('["Done."]')
    code = main(["eval", str(HELLO), "--replay", str(replies), "--workers", "0", "--out",
                 str(tmp_path / "o"), *[a.format(port=port) for a in args]])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and said.format(port=port) in err, err
    assert not (tmp_path / "o" / "results.jsonl").exists()
