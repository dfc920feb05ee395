"""The ``%%operator`` magic runs the notebook cell actions; ``%operator spec`` lists them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from support.cell_notebooks import cells_of, standard
from support.replies import block
from support.widget_front import Front

import jupyter_operator
from jupyter_operator.kernel.magics import last_view
from jupyter_operator.protocol import codes


def test_the_cell_magic_runs_cell_actions_with_a_card(ip: Any, workspace: Path) -> None:
    (workspace / "nb.ipynb").write_text(standard())
    text = "\n".join([
        block("r1", "nb.readCells", notebook="nb.ipynb"),
        block("m1", "nb.moveCell", notebook="nb.ipynb", cell_id="calc", to_index="0"),
    ])  # fmt: skip
    ip.run_cell_magic("operator", f"--root {workspace}", text)
    run = jupyter_operator.last_run()
    assert [(i.id, i.status, i.error_code) for i in run.items] == [
        ("r1", "done", None), ("m1", "pending", None)
    ]  # fmt: skip
    assert Front(last_view()).card("m1")["path"] == "nb.ipynb"
    run.approve("m1")
    assert [c[0] for c in cells_of(workspace / "nb.ipynb")] == ["calc", "intro", "load"]


def test_the_spec_the_magic_shows_lists_the_cell_actions(ip: Any, monkeypatch: Any) -> None:
    shown: list[Any] = []
    monkeypatch.setattr("IPython.display.display", lambda obj, **kw: shown.append(obj))
    ip.run_line_magic("operator", "spec")
    [box] = shown
    assert "NOTEBOOK CELL ACTIONS" in box.value and f"- {codes.ERR_CELL_NOT_FOUND}: " in box.value


def test_cell_actions_can_be_turned_off_and_on(
    ip: Any, workspace: Path, monkeypatch: Any, capsys: Any
) -> None:
    (workspace / "nb.ipynb").write_text(standard())
    before = (workspace / "nb.ipynb").read_bytes()
    ip.run_line_magic("operator", "cells off")
    assert "cell actions: off" in capsys.readouterr().out
    shown: list[Any] = []
    monkeypatch.setattr("IPython.display.display", lambda obj, **kw: shown.append(obj))
    ip.run_line_magic("operator", "spec")
    assert "NOTEBOOK CELL ACTIONS" not in shown[-1].value
    move = block("m1", "nb.moveCell", notebook="nb.ipynb", cell_id="calc", to_index="0")
    ip.run_cell_magic("operator", f"--root {workspace}", move)
    [item] = jupyter_operator.last_run().items
    assert (item.status, item.error_code) == ("error", codes.ERR_UNKNOWN_ACTION)
    assert (workspace / "nb.ipynb").read_bytes() == before
    ip.run_line_magic("operator", "cells on")  # the same root's operator follows the switch
    ip.run_cell_magic("operator", f"--root {workspace}", move.replace("m1", "m2"))
    [item] = jupyter_operator.last_run().items
    assert (item.id, item.status) == ("m2", "pending")
