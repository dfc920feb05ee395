"""Cell runs from the command line: `run --extensions nb`, and `agent` fixing an error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cell_runs import FIXED, analysis, fix_script, joined, results_sent
from support.fake_openai import FakeOpenAI
from support.host_folders import keep_host_files_in

from jupyter_operator.cli import main
from jupyter_operator.protocol import parse_results


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    keep_host_files_in(tmp_path, monkeypatch)
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


def test_run_approves_and_runs_cells_and_prints_their_results(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = analysis(root)
    reply = tmp_path / "reply.txt"
    reply.write_text(
        "OPERATOR_CMD\nversion: 1\nid: r1\naction: nb.runCell\nnotebook: analysis.ipynb\n"
        "cell_id: load\nEND_OPERATOR_CMD\n"
        "OPERATOR_CMD\nversion: 1\nid: r2\naction: nb.runCell\nnotebook: analysis.ipynb\n"
        "cell_id: mean\nEND_OPERATOR_CMD\n"
    )
    argv = ["run", "--root", str(root), "--extensions", "nb", "--approve", "all", str(reply)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    first, second = parse_results(out)
    assert first.ok and first.summary.startswith("Ran cell 0 (id load) (In [1], ")
    assert second.code == "ERR_CELL_ERROR" and "NameError" in second.summary
    saved = json.loads(path.read_text())["cells"][1]["outputs"][0]
    assert saved["ename"] == "NameError"


def test_run_without_approval_runs_nothing(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = analysis(root)
    before = path.read_bytes()
    reply = tmp_path / "reply.txt"
    reply.write_text("OPERATOR_CMD\nversion: 1\nid: r1\naction: nb.runCell\n"
                     "notebook: analysis.ipynb\ncell_id: load\nEND_OPERATOR_CMD\n")  # fmt: skip
    assert main(["run", "--root", str(root), "--extensions", "nb", "--approve", "none",
                 str(reply)]) == 0  # fmt: skip
    (result,) = parse_results(capsys.readouterr().out)
    assert result.code == "ERR_REJECTED"
    assert path.read_bytes() == before


def test_the_agent_fixes_the_error_from_a_terminal(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    path = analysis(root)
    with FakeOpenAI() as fake:
        fix_script(fake)
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        argv = ["agent", "--root", str(root), "--model", "fake-model", "--base-url", fake.url,
                "--approve", "all", "Make analysis.ipynb run without errors"]  # fmt: skip
        assert main(argv) == 0
        assert results_sent(fake, 1)["r2"].code == "ERR_CELL_ERROR"
        assert results_sent(fake, 2)["r3"].ok
    out = capsys.readouterr().out
    assert "The model finished after 3 turns" in out
    assert joined(json.loads(path.read_text())["cells"][1]["source"]) == FIXED


def test_ask_offers_approve_and_run_for_a_cell_change(root: Path) -> None:
    import io

    from support.cell_runs import b64, cmd

    from jupyter_operator.engine import Operator
    from jupyter_operator.terminal import ask

    analysis(root)
    with Operator(root, extensions=("nb",)) as op:
        run = op.run(cmd("e1", "nb.replaceCell", notebook="analysis.ipynb", cell_id="mean",
                         content_b64=b64(FIXED)))  # fmt: skip
        tty = io.StringIO()
        ask(run, io.StringIO("r\n"), tty)
        assert "[y/N/a/q/e/r/reason]" in tty.getvalue()
        (result,) = parse_results(run.results_text)
        # "load" never ran: the fix is applied and runs, and the model reads why it failed.
        assert result.code == "ERR_CELL_ERROR"
        assert result.summary.startswith("Cell failed (ERR_CELL_ERROR): Replaced cell mean, "
                                         "then ran it: Ran cell 1 (id mean)")  # fmt: skip
        assert "NameError: name 'values' is not defined" in (result.details or "")


def test_the_terminal_shows_a_translated_call_before_asking(root: Path) -> None:
    import io

    from jupyter_operator.engine import Operator
    from jupyter_operator.terminal import ask

    leaked = ('<tool_call>{"name": "write_file", "arguments": {"path": "t.txt", '
              '"content": "x\\n"}}</tool_call>')  # fmt: skip
    with Operator(root) as op:
        run = op.run(leaked)
        tty = io.StringIO()
        ask(run, io.StringIO("y\n"), tty)
    shown = tty.getvalue()
    assert "own tool-call format (Hermes/Qwen <tool_call> JSON: write_file)" in shown
    assert "    action: fs.write\n    path: t.txt\n" in shown
    assert (root / "t.txt").read_text() == "x\n"
