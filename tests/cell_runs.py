"""Helpers for the tests of cell runs (``nb.runCell`` and friends), importable from every test
module: ``from cell_runs import cmd, details, saved_cell``."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from cell_notebooks import code, notebook

from jupyter_operator.protocol import parse_results


def cmd(id: str, action: str, **fields: str | None) -> str:
    """One ``OPERATOR_CMD`` block (``notebook`` is ``nb.ipynb`` when left out; None drops it)."""
    fields.setdefault("notebook", "nb.ipynb")
    lines = ["OPERATOR_CMD", "version: 1", f"id: {id}", f"action: {action}"]
    lines += [f"{key}: {value}" for key, value in fields.items() if value is not None]
    return "\n".join([*lines, "END_OPERATOR_CMD"]) + "\n"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def details(run, id: str) -> str:
    """The decoded details of one item's result, as the model reads them."""
    for result in parse_results(run.results_text):
        if result.id == id:
            return result.details or ""
    raise KeyError(id)


def saved_cell(path: Path, cell_id: str) -> dict:
    doc = json.loads(path.read_text())
    return next(cell for cell in doc["cells"] if cell.get("id") == cell_id)


def joined(value) -> str:
    """A notebook's multi-line string (nbformat writes it as a list of lines)."""
    return "".join(value) if isinstance(value, list) else value


# --- the fix-the-error loop: a notebook with a typo, and a model's three replies -----------
FIXED = "total = sum(values)\nprint('mean', total / len(values))"


def analysis(root: Path) -> Path:
    path = root / "analysis.ipynb"
    path.write_text(notebook(code("values = [3, 4, 5]", id="load"),
                             code("print('mean', totl / len(values))", id="mean")))  # fmt: skip
    return path


def fix_script(fake) -> None:
    fake.add(
        "Running the notebook.\n" + cmd("r1", "nb.runCell", notebook="analysis.ipynb",
                                        cell_id="load")
        + cmd("r2", "nb.runCell", notebook="analysis.ipynb", cell_id="mean"),
        "A typo: fixing it.\n" + cmd("e1", "nb.replaceCell", notebook="analysis.ipynb",
                                     cell_id="mean", content_b64=b64(FIXED))
        + cmd("r3", "nb.runCell", notebook="analysis.ipynb", cell_id="mean"),
        "The notebook runs without errors now.",
    )  # fmt: skip


def results_sent(fake, request: int) -> dict:
    """The results the model received in its ``request``-th call, by id."""
    last = fake.requests[request]["messages"][-1]["content"]
    return {result.id: result for result in parse_results(last)}


def insert_cell(op, ws: Path, source: str, index: int = 4) -> str:
    """Insert a code cell of ``source`` into ws/nb.ipynb through the engine; its new id."""
    op.run(cmd("i1", "nb.insertCell", index=str(index), content_b64=b64(source))).approve_all()
    return json.loads((ws / "nb.ipynb").read_text())["cells"][index]["id"]
