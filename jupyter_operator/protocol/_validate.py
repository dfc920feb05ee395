"""Turn one block's ``key: value`` fields into a typed command, or raise the first fault.

Order of checks (the conformance cases depend on it; it follows the reference
implementation, plus the checks it only made at execution time):

1. ``version``, ``id``, ``action`` present and non-empty, the id printable ASCII
   (``ERR_MISSING_REQUIRED_FIELDS``).
2. ``fs.*`` actions need a path, all others must not have one.
3. ``operator.error`` is reserved; ``version`` must be exactly the text ``1``.
4. The action is one of the spec's (``ERR_UNKNOWN_ACTION``, here at scan time).
5. The action's own checks (missing payload, query, comment style, marker id, anchor,
   occurrence, position, readSlice numbers), in the reference implementation's order.
6. Every base64 field present is canonical base64 of UTF-8 text, whatever the action.
7. The decoded payloads: the edits JSON is checked edit by edit.

Path syntax is not checked here: the workspace does it before any system call.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from . import codes
from ._base64 import b64_problem, decode_b64_text
from ._cells import CELL_ACTIONS, CELL_PARAMS, CELL_PAYLOADS, actions_of, check_cell_fields
from ._comments import StyleOverride, style_for_language, unknown_language
from ._edits import parse_edits
from ._errors import OperatorError, shown
from ._models import PARAMS_BUILDERS, _Params
from ._spec import READSLICE_MAX_LINES, RESERVED_ACTIONS

Fields = dict[str, str]
_B64_FIELDS = ("content_b64", "patch_b64", "edits_b64")
_DIGITS = re.compile(r"[0-9]+")
_SATURATE = 10**18  # larger numbers are clamped; int() refuses strings over 4300 digits


def _fail(code: str, message: str) -> OperatorError:
    return OperatorError(code, message)


def _positive_int(value: str) -> int | None:
    """A whole number >= 1 written in ASCII digits, else None (no signs, no fractions)."""
    if not _DIGITS.fullmatch(value):
        return None
    number = int(value) if len(value) <= 18 else _SATURATE
    return number if number >= 1 else None


def _first(f: Fields, *keys: str) -> tuple[str, str] | None:
    for key in keys:
        value = f.get(key)
        if value:
            return key, value
    return None


# --- per-action checks (step 5); each returns the parameter values known before payloads ---
def _no_params(f: Fields, path: str | None) -> dict[str, Any]:
    return {}


def _path_only(f: Fields, path: str | None) -> dict[str, Any]:
    return {"path": path}


def _comment_style(f: Fields, path: str | None) -> dict[str, Any]:
    language = f.get("language") or None
    if language is not None and style_for_language(language) is None:
        message = unknown_language(language, hint="omit language to list every style.")
        raise _fail(codes.ERR_UNKNOWN_LANGUAGE, message)
    return {"language": language}


def _query(f: Fields, path: str | None) -> dict[str, Any]:
    query = f.get("query") or f.get("q")
    if not query:
        raise _fail(codes.ERR_MISSING_QUERY, "missing query; use query: <text>.")
    return {"path": path, "query": query}


# Reference precedence: the first present key wins.
_READSLICE_ALIASES = (("start", ("start", "line", "from")), ("lines", ("lines", "count", "len")))


def _read_slice(f: Fields, path: str | None) -> dict[str, Any]:
    values: dict[str, Any] = {"path": path, "start": 1, "lines": 120}
    for name, aliases in _READSLICE_ALIASES:
        found = _first(f, *aliases)
        if found is None:
            continue
        number = _positive_int(found[1])
        if number is None:
            raise _fail(
                codes.ERR_INVALID_READSLICE_PARAMS,
                f"{found[0]} must be a whole number >= 1 (got '{_short(found[1])}').",
            )
        values[name] = number
    values["lines"] = min(values["lines"], READSLICE_MAX_LINES)
    return values


def _style(f: Fields) -> StyleOverride:
    prefix = f.get("comment_line_prefix") or None
    start = f.get("comment_block_start") or None
    end = f.get("comment_block_end") or None
    language = f.get("language") or None
    if (prefix and (start or end)) or (bool(start) != bool(end)):
        raise _fail(
            codes.ERR_INVALID_COMMENT_STYLE,
            "Use either comment_line_prefix or comment_block_start/comment_block_end.",
        )
    if language and not (prefix or start) and style_for_language(language) is None:
        raise _fail(codes.ERR_UNKNOWN_LANGUAGE, unknown_language(language))
    return StyleOverride(line_prefix=prefix, block_start=start, block_end=end, language=language)


def _marker_id(f: Fields) -> str:
    marker_id = f.get("marker_id")
    if not marker_id:
        raise _fail(codes.ERR_MISSING_MARKER_ID, "marker_id is required.")
    if any(ch in marker_id for ch in " \t"):
        raise _fail(codes.ERR_MISSING_MARKER_ID, "marker_id must be one word without spaces.")
    return marker_id


def _region(needs_content: bool) -> Callable[[Fields, str | None], dict[str, Any]]:
    def check(f: Fields, path: str | None) -> dict[str, Any]:
        values: dict[str, Any] = {"path": path, "style": _style(f), "marker_id": _marker_id(f)}
        if needs_content and not f.get("content_b64"):
            raise _fail(codes.ERR_MISSING_CONTENT_B64, "content_b64 is required.")
        return values

    return check


def _list_regions(f: Fields, path: str | None) -> dict[str, Any]:
    return {"path": path, "style": _style(f)}


def _insert_region(f: Fields, path: str | None) -> dict[str, Any]:
    values = _region(True)(f, path)
    anchor = f.get("anchor")
    if not anchor:
        raise _fail(codes.ERR_MISSING_ANCHOR, "anchor is required.")
    occurrence = 1
    if f.get("occurrence"):
        number = _positive_int(f["occurrence"])
        if number is None:
            raise _fail(
                codes.ERR_INVALID_ANCHOR_OCCURRENCE,
                f"occurrence must be a whole number >= 1 (got '{_short(f['occurrence'])}').",
            )
        occurrence = number
    position = f.get("position") or "after"
    if position not in ("before", "after"):
        raise _fail(codes.ERR_INVALID_INSERT_POSITION, "position must be 'before' or 'after'.")
    values.update(anchor=anchor, occurrence=occurrence, position=position)
    return values


def _write(f: Fields, path: str | None) -> dict[str, Any]:
    if "content_b64" not in f and "content" not in f:
        raise _fail(codes.ERR_MISSING_WRITE_CONTENT, "fs.write requires content or content_b64.")
    values: dict[str, Any] = {"path": path}
    if "content_b64" not in f:
        values["content"] = f["content"]  # single line, possibly empty (an empty file)
    return values


def _required_b64(key: str, code: str) -> Callable[[Fields, str | None], dict[str, Any]]:
    def check(f: Fields, path: str | None) -> dict[str, Any]:
        if not f.get(key):
            raise _fail(code, f"{key} is required.")
        return {"path": path}

    return check


# action -> (checks before payloads, {param name: base64 field it is decoded from})
_ACTIONS: dict[str, tuple[Callable[[Fields, str | None], dict[str, Any]], dict[str, str]]] = {
    "operator.getInterfaceSpec": (_no_params, {}),
    "operator.getCommentStyle": (_comment_style, {}),
    "fs.list": (_path_only, {}),
    "fs.read": (_path_only, {}),
    "fs.readSlice": (_read_slice, {}),
    "fs.search": (_query, {}),
    "fs.stat": (_path_only, {}),
    "fs.searchTree": (_query, {}),
    "fs.listRegions": (_list_regions, {}),
    "fs.readRegion": (_region(False), {}),
    "fs.insertRegion": (_insert_region, {"content": "content_b64"}),
    "fs.replaceRegion": (_region(True), {"content": "content_b64"}),
    "fs.deleteRegion": (_region(False), {}),
    "fs.write": (_write, {"content": "content_b64"}),
    "fs.patch": (_required_b64("patch_b64", codes.ERR_MISSING_PATCH_B64), {"patch": "patch_b64"}),
    "fs.applyEdits": (
        _required_b64("edits_b64", codes.ERR_MISSING_EDITS_B64),
        {"edits": "edits_b64"},
    ),
    "fs.delete": (_path_only, {}),
}


_short = shown


def validate_fields(
    f: Fields, extensions: tuple[str, ...] = ()
) -> tuple[str, str, str | None, _Params]:
    """Check one block's fields; return ``(id, action, path, params)``.

    ``extensions`` names the host extensions enabled (``("nb",)``: the notebook cell
    actions, whose ``path`` is their ``notebook`` field); any other action is
    ``ERR_UNKNOWN_ACTION`` as the spec says.

    Raises
    ------
    OperatorError
        The first fault, in the order described in this module's docstring.
    """
    return check_fields(f, actions_of(extensions))


def check_fields(
    f: Fields, host_actions: frozenset[str]
) -> tuple[str, str, str | None, _Params]:
    """``validate_fields`` with the host's extra actions already known (``actions_of``)."""
    # Steps 1-3, inline: a call per block is a good part of a small block's cost.
    version, command_id, action = f.get("version"), f.get("id"), f.get("action")
    if not (version and command_id and action):
        missing = [key for key in ("version", "id", "action") if not f.get(key)]
        raise _fail(codes.ERR_MISSING_REQUIRED_FIELDS, f"missing {', '.join(missing)}.")
    if not (command_id.isascii() and command_id.isprintable()):
        # The id is echoed in a result line; control characters would corrupt it.
        raise _fail(codes.ERR_MISSING_REQUIRED_FIELDS, "id must be printable ASCII text.")
    path = f.get("path") or None
    if action.startswith("fs."):
        if path is None:
            raise _fail(codes.ERR_ACTION_REQUIRES_PATH, "fs.* actions require path.")
    elif path is not None:
        kind = "operator.*" if action.startswith("operator.") else "non-fs"
        hint = " Name the notebook with notebook: <path>." if action in host_actions else ""
        raise _fail(codes.ERR_ACTION_FORBIDS_PATH, f"{kind} actions must not include path.{hint}")
    if action in RESERVED_ACTIONS:
        raise _fail(codes.ERR_RESERVED_ACTION, f"action reserved for UI: {action}.")
    if version != "1":
        raise _fail(codes.ERR_UNSUPPORTED_VERSION, "version must be exactly 1.")
    # Steps 4-5.
    entry = _ACTIONS.get(action)
    if host_actions and action in host_actions and action in CELL_ACTIONS:
        cell_check = lambda fields, _path: check_cell_fields(action, fields)  # noqa: E731
        entry = (cell_check, CELL_PAYLOADS[action])
    if entry is None:
        raise _fail(
            codes.ERR_UNKNOWN_ACTION,
            f"Unknown action: {_short(action)}. Use one of the spec's actions.",
        )
    check, payloads = entry
    values = {"path": path} if check is _path_only else check(f, path)
    if "content_b64" in f or "patch_b64" in f or "edits_b64" in f:  # most blocks have none
        decoded: dict[str, str] = {}
        for key in _B64_FIELDS:
            if key in f:
                text = decode_b64_text(f[key])
                if text is None:
                    problem = b64_problem(f[key])
                    raise _fail(codes.ERR_INVALID_BASE64, f"field={key} {problem}.")
                decoded[key] = text
        for name, key in payloads.items():
            if key in decoded:
                values[name] = parse_edits(decoded[key]) if name == "edits" else decoded[key]
    if host_actions and action in CELL_ACTIONS:  # only reached with the extension enabled
        return command_id, action, values["path"], CELL_PARAMS[action](**values)
    return command_id, action, path, PARAMS_BUILDERS[action](values)
