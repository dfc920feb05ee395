"""The ``fs.applyEdits`` payload: ``{"version":1,"edits":[...]}``, checked before anyone is asked.

The reference implementation checks nothing: a missing ``text`` writes the word "undefined",
an empty ``find`` interleaves text between every character. Here every edit must be exactly
one of the five shapes, with JSON types as the spec says, or the whole command is
``ERR_INVALID_EDITS_JSON`` naming the edit's 0-based index. Duplicate keys and NaN/Infinity
are refused too (Python's json accepts both silently).
"""

from __future__ import annotations

import json
from typing import Any

from . import codes
from ._errors import OperatorError, shown
from ._models import Edit, InsertAfter, InsertBefore, ReplaceAll, ReplaceFirst, ReplaceRange


class _JSONShapeError(ValueError):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise _JSONShapeError(f"duplicate key '{shown(key)}'")
        obj[key] = value
    return obj


def _no_constants(name: str) -> Any:
    raise _JSONShapeError(f"{name} is not allowed")


def _fail(message: str) -> OperatorError:
    return OperatorError(codes.ERR_INVALID_EDITS_JSON, message)


def _is_int(value: Any) -> bool:
    return type(value) is int  # bool is an int subclass; true/false are not numbers here


# op -> (model, required string keys that must be non-empty, required int keys, optional int keys)
_SHAPES: dict[str, tuple[type[Any], tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "insertAfter": (InsertAfter, ("anchor",), (), ("occurrence",)),
    "insertBefore": (InsertBefore, ("anchor",), (), ("occurrence",)),
    "replaceFirst": (ReplaceFirst, ("find",), (), ()),
    "replaceAll": (ReplaceAll, ("find",), (), ()),
    "replaceRange": (ReplaceRange, (), ("startLine", "endLine"), ()),
}
_SNAKE = {"startLine": "start_line", "endLine": "end_line"}


def _edit(index: int, raw: Any) -> Edit:
    where = f"edit {index}"
    if not isinstance(raw, dict):
        raise _fail(f"{where} is not a JSON object.")
    op = raw.get("op")
    shape = _SHAPES.get(op) if isinstance(op, str) else None
    if shape is None:
        known = ", ".join(_SHAPES)
        raise _fail(f"{where}: op must be one of {known}.")
    model, strings, ints, optional_ints = shape
    allowed = {"op", "text", *strings, *ints, *optional_ints}
    extra = sorted(k for k in raw if k not in allowed)
    if extra:
        raise _fail(f"{where} ({op}): unknown key '{shown(extra[0])}'.")
    values: dict[str, Any] = {"op": op}
    for key in strings:
        value = raw.get(key)
        if not isinstance(value, str) or not value:
            raise _fail(f"{where} ({op}): {key} must be a non-empty string.")
        values[key] = value
    text = raw.get("text")
    if not isinstance(text, str):
        raise _fail(f"{where} ({op}): text must be a string.")
    values["text"] = text
    for key in ints + optional_ints:
        if key not in raw and key in optional_ints:
            continue
        value = raw.get(key)
        if not _is_int(value) or value < 1:
            raise _fail(f"{where} ({op}): {key} must be an integer >= 1.")
        values[_SNAKE.get(key, key)] = value
    if op == "replaceRange" and values["end_line"] < values["start_line"]:
        raise _fail(f"{where} (replaceRange): endLine must be >= startLine.")
    return model(**values)  # type: ignore[no-any-return]


def parse_edits(payload: str) -> tuple[Edit, ...]:
    """Parse and check the decoded ``edits_b64`` JSON.

    Raises
    ------
    OperatorError
        ``ERR_INVALID_EDITS_JSON`` naming what is wrong and the index of the bad edit.
    """
    try:
        doc = json.loads(payload, object_pairs_hook=_pairs, parse_constant=_no_constants)
    except _JSONShapeError as exc:
        raise _fail(f"edits_b64 JSON: {exc}.") from None
    except ValueError:
        raise _fail("edits_b64 is not valid JSON.") from None
    except RecursionError:
        raise _fail("edits_b64 JSON is nested too deeply.") from None
    if not isinstance(doc, dict) or not _is_int(doc.get("version")) or doc["version"] != 1:
        raise _fail('edits_b64 payload must be {"version":1,"edits":[...]}.')
    edits = doc.get("edits")
    if not isinstance(edits, list):
        raise _fail('edits_b64 payload must be {"version":1,"edits":[...]}.')
    return tuple(_edit(i, raw) for i, raw in enumerate(edits))
