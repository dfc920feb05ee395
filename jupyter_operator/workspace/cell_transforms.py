"""Pure transforms for the notebook cell actions (``nb.*``): notebook bytes in, bytes out.

A notebook is parsed as JSON (an nbformat 4 document with a ``cells`` list), changed as a
list of cells and written back with nbformat's own JSON writer (one-space indent, sorted keys,
sources split into lines: what JupyterLab writes), so a cell action changes the file as an
edit in JupyterLab would. The caller validates the result (``validate_notebook``) before
anything is shown to a person. Nothing here touches the disk.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass
from typing import Any

from ..protocol import OperatorError, codes

OUTPUT_TEXT_CHARS = 200  # characters of an output's text shown by nb.readCells


@dataclass
class Notebook:
    """A parsed notebook: the JSON document, and whether its cells carry ids (nbformat 4.5+)."""

    doc: dict[str, Any]
    final_newline: bool

    @property
    def cells(self) -> list[dict[str, Any]]:
        return self.doc["cells"]

    @property
    def has_ids(self) -> bool:
        return self.doc.get("nbformat_minor", 0) >= 5

    @property
    def version(self) -> str:
        return f"{self.doc['nbformat']}.{self.doc.get('nbformat_minor', 0)}"


def _not_a_notebook(path: str, why: str) -> OperatorError:
    return OperatorError(codes.ERR_NOT_A_NOTEBOOK, f"{path} {why}; nothing was done.")


def load_notebook(data: bytes, path: str) -> Notebook:
    """Parse ``data`` as an nbformat 4 notebook; ``ERR_NOT_A_NOTEBOOK`` otherwise."""
    try:
        doc = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError):
        raise _not_a_notebook(path, "is not notebook JSON") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("cells"), list):
        raise _not_a_notebook(path, "has no list of cells")
    if doc.get("nbformat") != 4 or not isinstance(doc.get("nbformat_minor", 0), int):
        raise _not_a_notebook(path, "is not an nbformat 4 notebook (convert it in Jupyter first)")
    if not all(isinstance(cell, dict) for cell in doc["cells"]):
        raise _not_a_notebook(path, "has a cell that is not a JSON object")
    return Notebook(doc, data.endswith(b"\n"))


def dump_notebook(nb: Notebook) -> bytes:
    """The notebook as nbformat writes it (no validation here: the caller validates).

    nbformat's own steps and JSON settings (``nbformat.v4.nbjson.writes``), minus its deep copy
    of the whole notebook: ``from_dict`` already builds new containers for them to change (a
    5 MB notebook plans about a third faster). A test checks the bytes equal nbformat's.
    """
    from nbformat import from_dict  # heavy (jsonschema): loaded on first use
    from nbformat.v4.nbjson import BytesEncoder
    from nbformat.v4.rwbase import split_lines, strip_transient

    try:
        doc = strip_transient(split_lines(from_dict(nb.doc)))
        text = json.dumps(doc, cls=BytesEncoder, indent=1, sort_keys=True,
                          separators=(",", ": "), ensure_ascii=False)  # fmt: skip
    except Exception:  # the writer trips over what the schema forbids (a cell without metadata)
        raise OperatorError(
            codes.ERR_INVALID_NOTEBOOK, "the notebook would not be valid after the change"
        ) from None
    return (text + "\n" if nb.final_newline else text).encode("utf-8")


def source_of(cell: dict[str, Any]) -> str:
    """A cell's source as one string (files store it as a list of lines or a string)."""
    source = cell.get("source", "")
    if isinstance(source, list):
        return "".join(part for part in source if isinstance(part, str))
    return source if isinstance(source, str) else ""


# --- addressing ---------------------------------------------------------------------------------
def source_sha256(source: str) -> str:
    """The digest a run's card and its guard compare a cell's source by (UTF-8, sha256)."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def locate(nb: Notebook, cell_id: str | None, index: int | None) -> int:
    """The index of the addressed cell.

    ``cell_id`` is the address when the notebook has ids (``index`` is then a check); in a
    notebook without ids the ``index`` is the address. Raises ``ERR_CELL_NOT_FOUND``,
    ``ERR_CELL_INDEX_MISMATCH`` or ``ERR_INVALID_CELL_PARAMS``.
    """
    count = len(nb.cells)
    if cell_id is None:
        if nb.has_ids:
            raise OperatorError(
                codes.ERR_INVALID_CELL_PARAMS,
                "cell_id is required: this notebook's cells have ids (see nb.readCells); "
                "index is only a check.",
            )
        if index is None or index >= count:
            message = f"no cell at index {index}; the notebook has {count} cells."
            raise OperatorError(codes.ERR_CELL_NOT_FOUND, message)
        return index
    if not nb.has_ids:
        raise OperatorError(
            codes.ERR_CELL_NOT_FOUND,
            f"this notebook (nbformat {nb.version}) has no cell ids; address the cell by index.",
        )
    found = [i for i, cell in enumerate(nb.cells) if cell.get("id") == cell_id]
    if not found:
        raise OperatorError(
            codes.ERR_CELL_NOT_FOUND,
            f"no cell has id {cell_id}; read the cells again with nb.readCells.",
        )
    if index is not None and index != found[0]:
        raise OperatorError(
            codes.ERR_CELL_INDEX_MISMATCH,
            f"cell {cell_id} is at index {found[0]}, not {index}; nothing was done.",
        )
    return found[0]


def describe_cell(nb: Notebook, position: int) -> str:
    """``cell 3 (id abc)``, or ``cell 3`` in a notebook without ids."""
    cell_id = nb.cells[position].get("id")
    return f"cell {position} (id {cell_id})" if isinstance(cell_id, str) else f"cell {position}"


# --- the changes ------------------------------------------------------------------------------
def _new_id(nb: Notebook) -> str:
    taken = {cell.get("id") for cell in nb.cells}
    while (cell_id := secrets.token_hex(4)) in taken:  # 8 hex digits, as JupyterLab's are unique
        pass
    return cell_id


def _shape(cell: dict[str, Any], cell_type: str) -> dict[str, Any]:
    """``cell`` with the fields ``cell_type`` needs (outputs only on code cells)."""
    cell["cell_type"] = cell_type
    if cell_type == "code":
        cell.setdefault("execution_count", None)
        cell.setdefault("outputs", [])
        cell.pop("attachments", None)
    else:
        cell.pop("execution_count", None)
        cell.pop("outputs", None)
    return cell


def insert_cell(nb: Notebook, index: int, cell_type: str, source: str) -> int:
    """Insert a new cell at ``index`` (0..count); returns its index."""
    count = len(nb.cells)
    if index > count:
        raise OperatorError(
            codes.ERR_INVALID_CELL_PARAMS,
            f"index {index} is past the end; the notebook has {count} cells "
            f"(index {count} appends).",
        )
    cell: dict[str, Any] = {"metadata": {}, "source": source}
    if nb.has_ids:
        cell["id"] = _new_id(nb)
    nb.cells.insert(index, _shape(cell, cell_type))
    return index


def replace_cell(nb: Notebook, position: int, source: str, cell_type: str | None) -> bool:
    """Give the cell at ``position`` a new source (and type: outputs go with the code type).

    Returns False when the cell already had exactly this source and type (nothing changed).
    """
    cell = nb.cells[position]
    retype = cell_type is not None and cell_type != cell.get("cell_type")
    if not retype and source_of(cell) == source and isinstance(cell.get("source"), (str, list)):
        return False
    cell["source"] = source
    if retype:
        _shape(cell, cell_type)
    return True


def delete_cell(nb: Notebook, position: int) -> None:
    """Remove the cell at ``position``."""
    del nb.cells[position]


def move_cell(nb: Notebook, position: int, to_index: int) -> bool:
    """Move the cell at ``position`` so that it ends at ``to_index``; False if it is there."""
    last = len(nb.cells) - 1
    if to_index > last:
        raise OperatorError(
            codes.ERR_INVALID_CELL_PARAMS,
            f"to_index {to_index} is past the end; the last index is {last}.",
        )
    nb.cells.insert(to_index, nb.cells.pop(position))
    return position != to_index


# --- nb.readCells -------------------------------------------------------------------------------
def _clip(text: str) -> dict[str, Any]:
    if len(text) <= OUTPUT_TEXT_CHARS:
        return {"text": text}
    return {"text": text[:OUTPUT_TEXT_CHARS], "text_cut": len(text) - OUTPUT_TEXT_CHARS}


def _output_summary(output: Any) -> dict[str, Any]:
    if not isinstance(output, dict):
        return {"type": "unknown"}
    kind = output.get("output_type")
    summary: dict[str, Any] = {"type": kind if isinstance(kind, str) else "unknown"}
    if kind == "stream":
        summary["name"] = output.get("name")
        summary.update(_clip(source_of({"source": output.get("text", "")})))
    elif kind in ("execute_result", "display_data"):
        data = output.get("data") if isinstance(output.get("data"), dict) else {}
        summary["mime"] = sorted(k for k in data if isinstance(k, str))
        if "text/plain" in data:
            summary.update(_clip(source_of({"source": data["text/plain"]})))
    elif kind == "error":
        summary["ename"] = output.get("ename")
        summary.update(_clip(str(output.get("evalue", ""))))
    return summary


def cell_view(nb: Notebook, path: str, start_index: int, count: int) -> dict[str, Any]:
    """The JSON nb.readCells returns: cells ``start_index`` .. ``start_index + count - 1``."""
    shown = []
    for index in range(start_index, min(len(nb.cells), start_index + count)):
        cell = nb.cells[index]
        entry: dict[str, Any] = {
            "index": index,
            "id": cell.get("id") if isinstance(cell.get("id"), str) else None,
            "type": cell.get("cell_type"),
            "source": source_of(cell),
        }
        if cell.get("cell_type") == "code":
            entry["execution_count"] = cell.get("execution_count")
            outputs = cell.get("outputs") if isinstance(cell.get("outputs"), list) else []
            entry["outputs"] = [_output_summary(output) for output in outputs]
        shown.append(entry)
    return {
        "notebook": path,
        "nbformat": nb.version,
        "cell_count": len(nb.cells),
        "start_index": start_index,
        "cells": shown,
    }


def view_text(view: dict[str, Any]) -> str:
    """The readCells JSON as one line of text (model text stays data: it is JSON-escaped)."""
    return json.dumps(view, ensure_ascii=False, separators=(",", ":"))
