"""The strict command line runs the spec's actions only, unless told --extensions nb."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cell_notebooks import cells_of, standard
from support.replies import block

from jupyter_operator.cli import main
from jupyter_operator.protocol import interface_spec, parse_results


@pytest.fixture
def reply_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("JUPYTER_OPERATOR_JOURNAL_DIR", str(tmp_path / "journal"))
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "nb.ipynb").write_text(standard())
    path = tmp_path / "reply.txt"
    path.write_text(block("d1", "nb.deleteCell", notebook="nb.ipynb", cell_id="calc") + "\n")
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_without_the_flag_cell_actions_are_unknown(reply_file: Path, capsys) -> None:
    ws = reply_file.parent / "ws"
    status, out, _ = run(capsys, "run", "--root", str(ws), "--approve", "all", str(reply_file))
    [result] = parse_results(out)
    assert status == 0 and "(ERR_UNKNOWN_ACTION)" in result.summary
    assert len(cells_of(ws / "nb.ipynb")) == 3


def test_with_the_flag_they_run(reply_file: Path, capsys) -> None:
    ws = reply_file.parent / "ws"
    status, out, _ = run(capsys, "run", "--extensions", "nb", "--root", str(ws),
                         "--approve", "all", str(reply_file))  # fmt: skip
    [result] = parse_results(out)
    assert (status, result.ok, result.summary) == (0, True, "Deleted cell calc")
    assert [c[0] for c in cells_of(ws / "nb.ipynb")] == ["intro", "load"]


def test_spec_follows_the_flag(capsys) -> None:
    assert run(capsys, "spec")[1] == interface_spec()
    assert run(capsys, "spec", "--extensions", "nb")[1] == interface_spec(actions=("nb",))


def test_an_unknown_extension_is_a_usage_error(capsys) -> None:
    status, _, err = run(capsys, "spec", "--extensions", "cells")
    assert status == 2 and "unknown extension 'cells'" in err
