"""The MCP server's tools: one per action of the engine, each rendered as a command of a dialect.

A tool call is never carried out here. It is rendered as the one ``OPERATOR_CMD`` block (or, for
``shell``, the one JSON operation) a model could have written in a reply, and that text is planned
by the same entry as a reply's text (``SessionService.scan``): the scanner validates every field,
and rules, protected paths, the jail, budgets, the sandbox and the journal apply as they do to a
reply. So an MCP call can do nothing a reply's block could not.

Input schemas come from the parameter models the scanner builds (``protocol._models``,
``protocol._cells``, ``protocol._runs``) through pydantic's schema of those dataclasses, so a
field added to an action shows up in its tool. The wire names differ in three places: ``content``,
``patch`` and ``edits`` travel as ``content_b64``, ``patch_b64`` and ``edits_b64``, and an ``nb.*``
action names its notebook by ``notebook`` (a ``path`` field is only for ``fs.*``).
"""

from __future__ import annotations

import base64
import copy
import functools
import json
from dataclasses import dataclass, field, fields
from typing import Any

from ..protocol import codes

#: The code of arguments that do not fit a tool's schema (answered before anything is planned).
BAD_ARGUMENTS = "ERR_INVALID_ARGUMENTS"
#: Argument fields that travel base64-encoded (their text may span lines).
B64_FIELDS = {"content": "content_b64", "patch": "patch_b64"}


class ToolArgumentError(ValueError):
    """Arguments that cannot become a command; nothing was planned. ``code`` names the fault."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


@dataclass(frozen=True)
class ToolSpec:
    """One MCP tool: its engine action (or ``shell``), what a model reads and its hints."""

    name: str
    action: str
    description: str
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False
    #: Argument fields of the action's model the tool leaves out (comment-style overrides).
    hidden: tuple[str, ...] = field(default=())


_ASKS = (" A person approves or rejects it in JupyterLab (or a rule decides); while nobody has "
         "decided the call answers that the change is pending under an id: collect the "
         "outcome with operator_wait.")  # fmt: skip
_PATHS = "Paths are relative to the workspace root ('/' separators); nothing outside it is reached."

TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "list_directory",
        "fs.list",
        "List a folder of the workspace, one entry a line ('.' is the root). " + _PATHS,
        read_only=True,
        idempotent=True,
    ),
    ToolSpec(
        "read_file",
        "fs.read",
        "Read a whole text file. Large files are refused: use read_lines. " + _PATHS,
        read_only=True,
        idempotent=True,
    ),
    ToolSpec(
        "read_lines",
        "fs.readSlice",
        "Read numbered lines of a text file: 'lines' lines from line 'start' (1-based).",
        read_only=True,
        idempotent=True,
    ),
    ToolSpec(
        "search_file",
        "fs.search",
        "Find the lines of one file that contain 'query' (plain text), with line numbers.",
        read_only=True,
        idempotent=True,
    ),
    ToolSpec(
        "search_files",
        "fs.searchTree",
        "Find 'query' (plain text) in every text file under a folder: 'path:line: text'.",
        read_only=True,
        idempotent=True,
    ),
    ToolSpec(
        "write_file",
        "fs.write",
        "Create a file or replace its whole content with 'content' (text)." + _ASKS,
        destructive=True,
        idempotent=True,
    ),
    ToolSpec(
        "edit_file",
        "fs.applyEdits",
        "Change parts of a text file: 'edits' apply in order (insertAfter/insertBefore an "
        "anchor, replaceFirst/replaceAll a found text, replaceRange of lines "
        "startLine..endLine); the first that fails aborts them all." + _ASKS,
        destructive=True,
    ),
    ToolSpec(
        "patch_file",
        "fs.patch",
        "Apply a unified diff for one file (exact context)." + _ASKS,
        destructive=True,
    ),
    ToolSpec(
        "delete_file",
        "fs.delete",
        "Delete a file (it goes to the undo trash)." + _ASKS,
        destructive=True,
        idempotent=True,
    ),
    ToolSpec(
        "read_cells",
        "nb.readCells",
        "Read the cells of a notebook (.ipynb): ids, types, sources and outputs, from "
        "'start_index' (0-based), 'count' cells.",
        read_only=True,
        idempotent=True,
    ),
    ToolSpec(
        "insert_cell",
        "nb.insertCell",
        "Insert a cell into a notebook at 'index' (0-based)." + _ASKS,
    ),
    ToolSpec(
        "replace_cell",
        "nb.replaceCell",
        "Replace the source of one notebook cell, addressed by 'cell_id' (from read_cells; "
        "'index' checks it)." + _ASKS,
        destructive=True,
        idempotent=True,
    ),
    ToolSpec(
        "delete_cell",
        "nb.deleteCell",
        "Delete one notebook cell, addressed by 'cell_id'." + _ASKS,
        destructive=True,
    ),
    ToolSpec(
        "move_cell", "nb.moveCell", "Move one notebook cell to 'to_index'." + _ASKS, idempotent=True
    ),
    ToolSpec(
        "run_cell",
        "nb.runCell",
        "Run one code cell in the notebook's kernel and answer its outputs." + _ASKS,
        destructive=True,
    ),
    ToolSpec(
        "restart_kernel",
        "nb.restartKernel",
        "Restart the notebook's kernel; its variables are lost." + _ASKS,
        destructive=True,
    ),
    ToolSpec(
        "shell",
        "shell",
        "Run one shell command in the workspace (sandboxed where the server can; no "
        "network unless its rules allow it) and answer its exit code and output." + _ASKS,
        destructive=True,
    ),
)
BY_NAME = {tool.name: tool for tool in TOOLS}

#: The shell operation's fields (``dialects.json_ops``: its model is a parsed operation with
#: the batch's bookkeeping, not arguments, so its schema is written here).
SHELL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "description": "The command line (run by a shell)."},
        "cwd": {"type": "string", "description": "Folder to run in, relative to the root."},
        "timeout": {"type": "integer", "minimum": 1, "description": "Milliseconds."},
    },
    "required": ["command"],
    "additionalProperties": False,
}


def _model(action: str) -> type:
    from ..protocol._cells import CELL_PARAMS
    from ..protocol._models import PARAMS_BY_ACTION

    return {**PARAMS_BY_ACTION, **CELL_PARAMS}[action]


@functools.cache
def _adapter(action: str) -> Any:
    """The pydantic adapter of an action's parameter model, built once: building one
    (its core schema) costs more than the rest of a call."""
    from pydantic import TypeAdapter

    return TypeAdapter(_model(action))


def input_schema(tool: ToolSpec) -> dict[str, Any]:
    """The JSON schema of the tool's arguments, from the action's parameter model."""
    return copy.deepcopy(_schema(tool))


@functools.cache
def _schema(tool: ToolSpec) -> dict[str, Any]:
    """:func:`input_schema`, made once per tool and shared (read it, do not change it)."""
    if tool.action == "shell":
        return SHELL_SCHEMA
    schema = _adapter(tool.action).json_schema()
    schema.pop("title", None)
    schema["description"] = tool.description
    props = schema.get("properties", {})
    for name in tool.hidden:
        props.pop(name, None)
    if tool.action.startswith("nb."):
        props["path"]["description"] = "The notebook (.ipynb), relative to the workspace root."
    if tool.action == "fs.applyEdits":
        # The wire form of an edit (what edits_b64 holds): op required, camelCase line numbers.
        for edit in schema.get("$defs", {}).values():
            edit["required"] = ["op", *edit.get("required", [])]
            for snake, camel in (("start_line", "startLine"), ("end_line", "endLine")):
                if snake in edit["properties"]:
                    edit["properties"][camel] = edit["properties"].pop(snake)
                    edit["required"] = [camel if r == snake else r for r in edit["required"]]
    schema["additionalProperties"] = False
    return schema


def _line(name: str, value: Any) -> str:
    """One field's value as block text: a single line, or ToolArgumentError."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ToolArgumentError(BAD_ARGUMENTS, f"{name} must be a string or a number")
    text = value if isinstance(value, str) else (f"{value:g}" if isinstance(value, float)
                                                  else str(value))  # fmt: skip
    if "\n" in text or "\r" in text:
        # A line break would end the field and start another: the block's shape is ours.
        raise ToolArgumentError(
            codes.ERR_CONTENT_HAS_NEWLINES, f"{name} must be one line (no line breaks)"
        )
    return text


def _checked(tool: ToolSpec, arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments, checked against the tool's schema (names, required, JSON types)."""
    schema = _schema(tool)
    props = schema.get("properties", {})
    unknown = sorted(set(arguments) - set(props))
    if unknown:
        raise ToolArgumentError(BAD_ARGUMENTS, f"unknown argument {unknown[0]!r}")
    missing = [name for name in schema.get("required", []) if arguments.get(name) is None]
    if missing:
        raise ToolArgumentError(BAD_ARGUMENTS, f"missing argument {missing[0]!r}")
    if tool.action == "fs.applyEdits":
        if not isinstance(arguments["edits"], list):
            raise ToolArgumentError(BAD_ARGUMENTS, "edits must be a list of edits")
        return arguments
    if tool.action == "shell":
        return arguments
    from pydantic import ValidationError

    given = {k: v for k, v in arguments.items() if v is not None}
    try:
        _adapter(tool.action).validate_python(given)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "arguments"
        raise ToolArgumentError(BAD_ARGUMENTS, f"{where}: {first['msg']}") from None
    return given


def render(name: str, arguments: dict[str, Any] | None, call_id: str) -> tuple[str, str]:
    """The call as reply text and its dialect: ``(text, "operator" | "json")``.

    Raises ToolArgumentError (nothing is planned) for an unknown tool or arguments that do not
    fit its schema, or a single-line field holding a line break.
    """
    tool = BY_NAME.get(name)
    if tool is None:
        raise ToolArgumentError("ERR_UNKNOWN_ACTION", f"no tool named {name!r}")
    given = _checked(tool, dict(arguments or {}))
    if tool.action == "shell":
        operation = {"type": "shell", "id": call_id, **given}
        return json.dumps(operation, ensure_ascii=False), "json"
    lines = ["OPERATOR_CMD", "version: 1", f"id: {call_id}", f"action: {tool.action}"]
    for key, value in given.items():
        if key == "path":
            lines.append(f"{'notebook' if tool.action.startswith('nb.') else 'path'}: "
                         f"{_line(key, value)}")  # fmt: skip
        elif key in B64_FIELDS:
            if not isinstance(value, str):
                raise ToolArgumentError(BAD_ARGUMENTS, f"{key} must be text")
            lines.append(f"{B64_FIELDS[key]}: {_b64(value)}")
        elif key == "edits":
            lines.append(f"edits_b64: {_b64(json.dumps({'version': 1, 'edits': value}))}")
        else:
            lines.append(f"{key}: {_line(key, value)}")
    lines.append("END_OPERATOR_CMD")
    return "\n".join(lines) + "\n", "operator"


def _b64(text: str) -> str:
    try:
        return base64.b64encode(text.encode("utf-8")).decode("ascii")
    except UnicodeEncodeError:  # a lone surrogate from a JSON escape: not text
        raise ToolArgumentError(BAD_ARGUMENTS, "the text holds an unpaired surrogate") from None


def field_names(action: str) -> list[str]:
    """The argument names of an action's model (for tests and docs)."""
    return [f.name for f in fields(_model(action))]
