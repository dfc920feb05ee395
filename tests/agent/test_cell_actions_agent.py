"""The agent runs the notebook cell actions and tells the model about them in its system prompt."""

from __future__ import annotations

import asyncio
from pathlib import Path

from support.cell_notebooks import cells_of, standard
from support.replies import block

from jupyter_operator.agent import Agent, ReplayModel
from jupyter_operator.protocol import parse_results


def _script(seen: list[str]):
    def script(last: str, turn: int) -> str | None:
        seen.append(last)
        if turn == 1:
            return block("r1", "nb.readCells", notebook="nb.ipynb", count="1") + "\n" + block(
                "i1", "nb.insertCell", notebook="nb.ipynb", index="3", content="print(y)"
            )
        return "Done."

    return script


def test_the_agent_enables_the_cell_actions(tmp_path: Path) -> None:
    (tmp_path / "nb.ipynb").write_text(standard())
    seen: list[str] = []
    agent = Agent(ReplayModel(_script(seen)), root=tmp_path, policy="auto=reads,writes")
    assert "NOTEBOOK CELL ACTIONS" in agent.default_system_prompt()
    assert "- ERR_CELL_NOT_FOUND: " in agent.default_system_prompt()
    result = asyncio.run(agent.run("add a cell"))
    assert result.reason == "done"
    read, insert = parse_results(seen[1])
    assert (read.ok, read.summary) == (True, "Read cells 0-0 of 3")
    assert insert.ok and insert.summary.startswith("Inserted code cell at index 3 (id ")
    assert cells_of(tmp_path / "nb.ipynb")[3][2] == "print(y)"


def test_an_agent_without_extensions_gets_the_bare_actions(tmp_path: Path) -> None:
    (tmp_path / "nb.ipynb").write_text(standard())
    seen: list[str] = []
    agent = Agent(ReplayModel(_script(seen)), root=tmp_path, extensions=())
    assert "nb.readCells" not in agent.default_system_prompt()
    assert "nb.insertCell" not in agent.default_system_prompt()
    asyncio.run(agent.run("add a cell"))
    assert all("ERR_UNKNOWN_ACTION" in r.summary for r in parse_results(seen[1]))
