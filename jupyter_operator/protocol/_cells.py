"""Notebook cell actions (``nb.*``): a host extension of the Operator protocol, pure.

The spec lets a host add actions; a model learns about them from the spec's appendix, which
lists them only when the host enables them (``Operator(..., extensions=("nb",))``). Without
the extension an ``nb.*`` command is ``ERR_UNKNOWN_ACTION``, exactly as any unknown action.

Rule 10 of the spec forbids a ``path`` field on actions that do not start with ``fs.``, so the
notebook is named by ``notebook:``. A cell is addressed by its ``cell_id``; ``index`` (0-based,
as nbformat and JupyterLab count) is a check, or the address in a notebook without cell ids
(nbformat 4.4 and older). This module checks the fields; the notebook itself is read and
changed by ``workspace.cells`` and planned by the engine like any other change.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from . import codes
from ._errors import OperatorError, shown
from ._runs import RUN_ACTIONS, RUN_ACTIONS_TEXT, RUN_CODE_DOCS, RUN_PARAMS, check_run_fields

#: Host extensions a host may enable, by name.
EXTENSIONS: tuple[str, ...] = ("nb",)

CELL_READ_ACTIONS: frozenset[str] = frozenset({"nb.readCells"})
CELL_WRITE_ACTIONS: frozenset[str] = frozenset(
    {"nb.insertCell", "nb.replaceCell", "nb.deleteCell", "nb.moveCell"}
)
CELL_CHANGE_ACTIONS: frozenset[str] = CELL_READ_ACTIONS | CELL_WRITE_ACTIONS
#: Every action of the ``nb`` extension: reads, changes and runs (``_runs``).
CELL_ACTIONS: frozenset[str] = CELL_CHANGE_ACTIONS | RUN_ACTIONS
CELL_TYPES: tuple[str, ...] = ("code", "markdown", "raw")

READ_CELLS_DEFAULT = 50  # cells nb.readCells shows when count is not given
READ_CELLS_MAX = 200  # larger counts are clamped, as fs.readSlice clamps lines

# nbformat 4.5's pattern for a cell id.
_CELL_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_DIGITS = re.compile(r"[0-9]{1,18}")

_frozen = dataclass(frozen=True, slots=True, kw_only=True)


def check_extensions(names: Iterable[str]) -> tuple[str, ...]:
    """The extension names, checked; ValueError names an unknown one."""
    found = tuple(dict.fromkeys(names))
    unknown = [name for name in found if name not in EXTENSIONS]
    if unknown:
        raise ValueError(f"unknown extension {unknown[0]!r} (known: {', '.join(EXTENSIONS)})")
    return found


def actions_of(extensions: Iterable[str]) -> frozenset[str]:
    """The actions the named extensions add."""
    return CELL_ACTIONS if "nb" in extensions else frozenset()


# --- parameter models (``path`` holds the notebook field, so rules and history see it) -------
@_frozen
class ReadCells:
    """``nb.readCells``: ``count`` cells from ``start_index`` (clamped to 1..200)."""

    action: ClassVar[str] = "nb.readCells"
    path: str
    start_index: int = 0
    count: int = READ_CELLS_DEFAULT


@_frozen
class InsertCell:
    """``nb.insertCell``: a new cell that will be at ``index`` (0..number of cells)."""

    action: ClassVar[str] = "nb.insertCell"
    path: str
    index: int
    cell_type: Literal["code", "markdown", "raw"] = "code"
    content: str


@_frozen
class ReplaceCell:
    """``nb.replaceCell``: new source (and optionally a new type) for one cell."""

    action: ClassVar[str] = "nb.replaceCell"
    path: str
    cell_id: str | None = None
    index: int | None = None
    content: str
    cell_type: Literal["code", "markdown", "raw"] | None = None


@_frozen
class DeleteCell:
    """``nb.deleteCell``."""

    action: ClassVar[str] = "nb.deleteCell"
    path: str
    cell_id: str | None = None
    index: int | None = None


@_frozen
class MoveCell:
    """``nb.moveCell``: the cell ends at ``to_index`` (0-based, in the notebook after the move)."""

    action: ClassVar[str] = "nb.moveCell"
    path: str
    cell_id: str | None = None
    index: int | None = None
    to_index: int


CellParams = ReadCells | InsertCell | ReplaceCell | DeleteCell | MoveCell
CELL_PARAMS: dict[str, type] = {
    **{cls.action: cls for cls in (ReadCells, InsertCell, ReplaceCell, DeleteCell, MoveCell)},
    **RUN_PARAMS,
}
#: action -> {parameter: the base64 field it is decoded from}, only for the actions whose model
#: has that parameter: a ``content_b64`` sent to any other action is checked as base64 and then
#: ignored, like any field the action does not use (never passed to a model that lacks it).
CELL_PAYLOADS: dict[str, dict[str, str]] = {
    action: {"content": "content_b64"} if "content" in model.__dataclass_fields__ else {}
    for action, model in CELL_PARAMS.items()
}


# --- field checks ------------------------------------------------------------------------------
Fields = dict[str, str]


def _fail(message: str) -> OperatorError:
    return OperatorError(codes.ERR_INVALID_CELL_PARAMS, message)


def _whole(f: Fields, key: str, *, least: int = 0) -> int | None:
    """A whole number >= ``least`` in ASCII digits, or None when the field is absent."""
    value = f.get(key)
    if value is None or value == "":
        return None
    if not _DIGITS.fullmatch(value) or int(value) < least:
        raise _fail(f"{key} must be a whole number >= {least} (got '{shown(value)}').")
    return int(value)


def _cell_type(f: Fields, *, default: str | None) -> str | None:
    value = f.get("cell_type") or default
    if value is not None and value not in CELL_TYPES:
        raise _fail(f"cell_type must be code, markdown or raw (got '{shown(value)}').")
    return value


def _address(f: Fields) -> dict[str, Any]:
    cell_id = f.get("cell_id") or None
    if cell_id is not None and not _CELL_ID.fullmatch(cell_id):
        raise _fail(f"cell_id must be 1-64 of A-Z a-z 0-9 _ - (got '{shown(cell_id)}').")
    index = _whole(f, "index")
    if cell_id is None and index is None:
        raise _fail("cell_id is required (index alone only in a notebook without cell ids).")
    return {"cell_id": cell_id, "index": index}


def _content(f: Fields, action: str) -> dict[str, Any]:
    if "content_b64" not in f and "content" not in f:
        raise OperatorError(
            codes.ERR_MISSING_CONTENT_B64,
            f"{action} requires content_b64 (the cell's source), or content for one line.",
        )
    # content_b64 is decoded and checked with the spec's other base64 fields.
    return {} if "content_b64" in f else {"content": f["content"]}


def notebook_field(f: Fields) -> str:
    """The ``notebook`` field: the .ipynb path, relative to the workspace root."""
    notebook = f.get("notebook")
    if not notebook:
        raise _fail("notebook is required: the .ipynb path relative to the workspace root.")
    return notebook


def check_cell_fields(action: str, f: Fields) -> dict[str, Any]:
    """The parameter values of an ``nb.*`` command known before its base64 payload."""
    values: dict[str, Any] = {"path": notebook_field(f)}
    if action in RUN_ACTIONS:
        return check_run_fields(action, f, values["path"])
    if action == "nb.readCells":
        start = _whole(f, "start_index")
        count = _whole(f, "count", least=1)
        values["start_index"] = start or 0
        values["count"] = min(count or READ_CELLS_DEFAULT, READ_CELLS_MAX)
    elif action == "nb.insertCell":
        index = _whole(f, "index")
        if index is None:
            raise _fail("index is required: the position the new cell will have (0-based).")
        values.update(index=index, cell_type=_cell_type(f, default="code"))
        values.update(_content(f, action))
    elif action == "nb.replaceCell":
        values.update(_address(f), cell_type=_cell_type(f, default=None))
        values.update(_content(f, action))
    elif action == "nb.deleteCell":
        values.update(_address(f))
    else:  # nb.moveCell
        values.update(_address(f))
        to_index = _whole(f, "to_index")
        if to_index is None:
            raise _fail("to_index is required: the position the cell will have after the move.")
        values["to_index"] = to_index
    return values


# --- what the spec appendix says when the extension is enabled ----------------------------------
CELL_CODE_DOCS: dict[str, str] = {
    codes.ERR_INVALID_CELL_PARAMS: "an nb.* field is missing or malformed (notebook, cell_id, "
    "index, to_index, start_index, count, cell_type); the summary names it.",
    codes.ERR_NOT_A_NOTEBOOK: "the notebook field does not name a .ipynb file holding an "
    "nbformat 4 notebook; nothing was done.",
    codes.ERR_CELL_NOT_FOUND: "no cell has this cell_id (or, without ids, this index); read "
    "the cells again with nb.readCells.",
    codes.ERR_CELL_INDEX_MISMATCH: "the cell with this cell_id is not at the index given; the "
    "summary says where it is. Read the cells again before changing them.",
    **RUN_CODE_DOCS,
}

CELL_ACTIONS_TEXT = """\
NOTEBOOK CELL ACTIONS (nb.*; host extension)
These actions work on the cells of a Jupyter notebook (.ipynb). Like every non-fs action they
MUST NOT include a path field: name the notebook with notebook: <path of the .ipynb, relative
to the workspace root>. Cell indexes are 0-based. Address a cell by cell_id (from
nb.readCells); index is then an optional check that fails with ERR_CELL_INDEX_MISMATCH. In a
notebook whose cells have no ids (nbformat 4.4 and older) address cells by index. Each change
is shown to the person as a cell diff and needs their approval, like fs.write; cell sources
travel in content_b64 (base64 UTF-8), or content for a single line. Verify a change with
nb.readCells (rule 17's fs.readSlice shows the notebook's JSON, not its cells).

nb.readCells
Requires: notebook
Optional: start_index (default 0), count (default 50, max 200)
Result: details_b64 contains JSON {"notebook","nbformat","cell_count","start_index",
"cells":[{"index","id","type","source","execution_count","outputs":[...]}]}; outputs are
summarised (type, stream name, MIME types, the first 200 characters of text, error name).

nb.insertCell
Requires: notebook, index (where the new cell goes: 0 is first, the cell count appends),
content_b64 or content
Optional: cell_type: code|markdown|raw (default code)
Result summary names the new cell's index and id.

nb.replaceCell
Requires: notebook, cell_id, content_b64 or content
Optional: index (check), cell_type: code|markdown|raw (default: keep the type)
Behavior: replaces the cell's source; a code cell keeps its outputs unless its type changes.

nb.deleteCell
Requires: notebook, cell_id
Optional: index (check)

nb.moveCell
Requires: notebook, cell_id, to_index (the cell's index after the move)
Optional: index (check)
"""

#: The appendix text of the whole ``nb`` extension: cell reads and changes, then runs.
NB_ACTIONS_TEXT = CELL_ACTIONS_TEXT + "\n" + RUN_ACTIONS_TEXT
