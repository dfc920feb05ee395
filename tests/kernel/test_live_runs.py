"""Cells run from a kernel's magics go to the open notebook's front end; without one (nbclient,
a console) the run is ERR_KERNEL_UNAVAILABLE and nothing runs."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from support.cell_notebooks import code, notebook

from jupyter_operator.kernel.live_runs import CommRunner, own_notebook

REPO = Path(__file__).resolve().parents[2]


def test_the_own_notebook_is_named_relative_to_the_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "sub").mkdir()
    monkeypatch.setenv("JPY_SESSION_NAME", str(tmp_path / "sub" / "work.ipynb"))
    assert own_notebook(tmp_path) == "sub/work.ipynb"
    assert own_notebook(tmp_path / "elsewhere") is None
    monkeypatch.setenv("JPY_SESSION_NAME", "relative.ipynb")
    assert own_notebook(tmp_path) is None


def test_another_notebook_cannot_run_from_the_kernel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JPY_SESSION_NAME", str(tmp_path / "mine.ipynb"))
    runner = CommRunner(tmp_path)
    info = runner.kernel("other.ipynb", "python3")
    assert info.where == "none" and "only mine.ipynb" in info.reach
    assert runner.kernel("mine.ipynb", "python3").where == "live"
    assert "NOT sandboxed" in runner.kernel("mine.ipynb", "python3").reach


def test_under_nbclient_a_run_is_refused_and_nothing_runs(tmp_path: Path) -> None:
    """The notebook asks to run its own cell; nbclient has no front end to do it."""
    setup = "\n".join([
        "import asyncio, os, sys",
        f"sys.path.insert(0, {str(REPO)!r})",
        f"os.environ['JUPYTER_OPERATOR_JOURNAL_DIR'] = {str(tmp_path / 'journal')!r}",
        f"os.environ['JPY_SESSION_NAME'] = {str(tmp_path / 'self.ipynb')!r}",
        "%load_ext jupyter_operator",
    ])  # fmt: skip
    reply = "\n".join(["%%operator", "OPERATOR_CMD", "version: 1", "id: r1",
                       "action: nb.runCell", "notebook: self.ipynb", "cell_id: target",
                       "END_OPERATOR_CMD"])  # fmt: skip
    decide = "\n".join([
        "import jupyter_operator",
        "run = jupyter_operator.last_run()",
        "run.approve('r1')",
        "await asyncio.sleep(6.5)  # the front end had 5 s to answer",
        "print(run.items[0].status, '|', run.items[0].summary)",
    ])  # fmt: skip
    text = notebook(code(setup, id="setup"), code("ran = True", id="target"),
                    code(reply, id="reply"), code(decide, id="decide"))  # fmt: skip
    (tmp_path / "self.ipynb").write_text(text)
    nb = nbformat.reads(text, as_version=4)
    nb.cells = [nb.cells[0], nb.cells[2], nb.cells[3]]  # "target" is never run by a person
    NotebookClient(nb, timeout=60, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()  # fmt: skip
    printed = "".join(o.get("text", "") for o in nb.cells[2].outputs)
    assert printed.startswith("failed | Not run (ERR_KERNEL_UNAVAILABLE): no front end runs")
    saved = json.loads((tmp_path / "self.ipynb").read_text())
    assert saved["cells"][1]["outputs"] == []  # nothing ran


def test_a_change_to_the_kernels_own_notebook_is_applied_in_its_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The magics' route: the change goes through the comm as cell edits; the page's answer
    ends it and the file is not written beneath the open notebook. Without a front end
    (``gone``) the file is written as before."""
    from support.replies import block

    from jupyter_operator.engine import Operator
    from jupyter_operator.kernel import live_runs

    nb_path = tmp_path / "own.ipynb"
    nb_path.write_text(notebook(code("x = 1", id="a"), code("y = 2", id="b")))
    monkeypatch.setenv("JPY_SESSION_NAME", str(nb_path))
    sent: list[dict] = []
    answers = iter([{"state": "gone"}, {"state": "applied"}])

    def page(payload, done, answered=None):
        if "apply" in payload:  # (a disk write is followed by a "sync" of the open copy)
            sent.append(payload)
            answered(next(answers))

    monkeypatch.setattr(live_runs, "_ask_front_end", page)
    op = Operator(tmp_path, journal_dir=tmp_path.parent / f"{tmp_path.name}-journal",
                  extensions=("nb",), runner=CommRunner(tmp_path))  # fmt: skip
    op.pages = live_runs.OwnPage(tmp_path)

    run = op.run(block("c1", "nb.replaceCell", notebook="own.ipynb", cell_id="a",
                       content="x = 5"))  # fmt: skip
    run.approve("c1")  # no page answers: the file is the notebook
    assert run.item("c1").status == "applied" and "x = 5" in nb_path.read_text()
    before = nb_path.read_bytes()

    run = op.run(block("c2", "nb.replaceCell", notebook="own.ipynb", cell_id="b",
                       content="y = 3"))  # fmt: skip
    run.approve("c2")
    assert sent[1]["apply"]["ops"] == [{"op": "set", "id": "b", "fields": {"source": "y = 3"}}]
    assert run.item("c2").status == "applied" and nb_path.read_bytes() == before
    assert [e.route for e in op.history()] == ["disk", "page"]
