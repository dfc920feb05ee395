"""Helpers for the tests of cell runs (``nb.runCell`` and friends), importable from every test
module: ``from support.cell_runs import cmd, details, saved_cell``."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from jupyter_operator.protocol import parse_results
from support.cell_notebooks import code, notebook


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


# --- every field of the spec on every action ---------------------------------------------------
def spec_fields() -> list[str]:
    """Every field name a block may carry, from the protocol's parameter models: each model
    field (``content``, ``cell_id``, ``timeout_s`` ...), the base64 field a payload travels in
    (``content_b64``, ``patch_b64``, ``edits_b64``) and ``notebook``, the ``nb.*`` path."""
    from dataclasses import fields

    from jupyter_operator.protocol._cells import CELL_PARAMS
    from jupyter_operator.protocol._models import PARAMS_BY_ACTION

    names = {"notebook", "content_b64", "patch_b64", "edits_b64",
             # the spellings a model field is read from (a comment style; readSlice's aliases)
             "comment_line_prefix", "comment_block_start", "comment_block_end", "q", "line",
             "from", "len"}  # fmt: skip
    for model in [*PARAMS_BY_ACTION.values(), *CELL_PARAMS.values()]:
        names.update(field.name for field in fields(model))
    return sorted(names)


def every_action() -> list[str]:
    """Every action of the spec and of the ``nb`` extension (the reserved one included)."""
    from jupyter_operator.protocol import ACTIONS, CELL_ACTIONS

    return sorted({*ACTIONS, *CELL_ACTIONS})


def field_value(name: str) -> str:
    """A plausible value for ``name``: canonical base64 for a ``_b64`` field (so the block gets
    past the base64 check to the action's own), a number for numbers, a name otherwise."""
    if name.endswith("_b64"):
        return b64('{"version": 1, "edits": []}' if name == "edits_b64" else "x = 1")
    if name in ("notebook", "path"):
        return "nb.ipynb"
    numbers = ("index", "to_index", "start_index", "count", "start", "lines", "occurrence",
               "timeout_s", "line", "from", "len")  # fmt: skip
    words = {"cell_type": "code", "position": "after", "language": "python"}
    return "1" if name in numbers else words.get(name, "x")


def assert_coded(items) -> None:
    """Every item is waiting for a decision or has a result that is ok or carries a code."""
    for item in items:
        if item.status in ("pending", "waiting"):
            continue
        assert item.result is not None, (item.id, item.status)
        assert item.result.ok or item.result.code, (item.id, item.result)


def every_field_reply() -> str:
    """One reply that gives every action every field: a block per action with all of them (no
    ``path`` on a non-``fs`` action, which stops the check before the action's own), and a
    block per action and field with only its path and that field."""
    blocks = []
    for n, action in enumerate(every_action()):
        where = "path" if action.startswith("fs.") else "notebook"
        names = [name for name in spec_fields() if name != "path" or where == "path"]
        blocks.append(cmd(f"all{n}", action, **{name: field_value(name) for name in names}))
        for m, name in enumerate(spec_fields()):
            fields = {"notebook": None, where: "nb.ipynb", name: field_value(name)}
            blocks.append(cmd(f"one{n}_{m}", action, **fields))
    return "".join(blocks)
