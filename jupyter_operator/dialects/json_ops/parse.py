"""Reading JSON operations out of a reply: pure, bounded, and never raising on bad input.

A reply holds one operation object, a list of them, or ``{"operations": [...]}``, either as the
whole text or inside fenced ```` ```json ```` blocks (several blocks are read in order). Every
problem becomes an :class:`InvalidOperation` that is answered by an error event; a problem with
the reply as a whole (not JSON, too large, too many operations) is a single one of type
``"error"`` and nothing in the reply runs.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import unicodedata
from collections.abc import Iterator
from typing import Any

from ...protocol import codes
from .operations import (
    TYPES,
    CreateFile,
    DeleteFile,
    EditFile,
    InvalidOperation,
    Message,
    Operation,
    ReadFile,
    Shell,
)

MAX_TEXT_CHARS = 20_000_000  # a larger reply is refused before it is parsed
MAX_OPERATIONS = 200  # per reply; a larger batch is refused as a whole (approval fatigue)
MAX_CONTENT_BYTES = 16 * 1024 * 1024  # the largest file content createFile / editFile carry
MAX_PATH_CHARS = 255  # the seed's rule
MAX_EDITS = 100
MAX_COMMAND_CHARS = 10_000
MAX_TIMEOUT_MS = 600_000
MAX_ENV_VARS = 50

_FENCE = re.compile(r"^[ \t]*```[ \t]*(json)?[ \t]*\n(.*?)^[ \t]*```[ \t]*$", re.M | re.S | re.I)
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
_ID = re.compile(r"[A-Za-z0-9_.:-]{1,128}")

FIELDS: dict[str, dict[str, bool]] = {  # type -> field -> required
    "message": {"content": True},
    "createFile": {"path": True, "content": True, "overwrite": False, "encoding": False},
    "readFile": {"path": True, "encoding": False},
    "editFile": {"path": True, "edits": True},
    "deleteFile": {"path": True},
    "shell": {"command": True, "cwd": False, "timeout": False, "env": False},
}


class _Bad(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Bad(codes.ERR_INVALID_JSON, f"the key {_show(key)} appears twice in one object")
        out[key] = value
    return out


def _refuse_constant(name: str) -> Any:
    raise _Bad(codes.ERR_INVALID_JSON, f"{name} is not valid JSON")


def _show(value: object, limit: int = 40) -> str:
    """A short, printable rendering of a model's value for an error message."""
    text = json.dumps(value, ensure_ascii=True) if isinstance(value, str) else type(value).__name__
    return text if len(text) <= limit else text[: limit - 4] + '..."'


def _loads(text: str) -> Any:
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise _Bad(
            codes.ERR_INVALID_JSON,
            f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
        ) from None
    except RecursionError:
        raise _Bad(codes.ERR_INVALID_JSON, "the JSON is nested too deeply") from None
    except ValueError as exc:  # a huge integer literal
        raise _Bad(codes.ERR_INVALID_JSON, f"not valid JSON: {str(exc)[:80]}") from None


def _documents(text: str) -> Iterator[str]:
    stripped = text.strip()
    if stripped.startswith(("{", "[")):
        yield stripped
        return
    found = False
    for match in _FENCE.finditer(text):
        body = match.group(2).strip()
        if match.group(1) or body.startswith(("{", "[")):
            found = True
            yield body
    if not found:
        raise _Bad(
            codes.ERR_INVALID_JSON,
            "no JSON operations found: send an object, a list, "
            '{"operations": [...]}, or a fenced json block',
        )


def _raw_operations(text: str) -> list[Any]:
    if len(text) > MAX_TEXT_CHARS:
        raise _Bad(
            codes.ERR_BLOCK_TOO_LARGE,
            f"the reply has {len(text):,} characters; at most {MAX_TEXT_CHARS:,} are read",
        )
    raw: list[Any] = []
    for doc in _documents(text):
        value = _loads(doc)
        if isinstance(value, dict) and "operations" in value and "type" not in value:
            if set(value) != {"operations"}:
                extra = sorted(set(value) - {"operations"})[0]
                raise _Bad(
                    codes.ERR_INVALID_OPERATION,
                    f'unexpected key {_show(extra)} next to "operations"',
                )
            value = value["operations"]
            if not isinstance(value, list):
                raise _Bad(codes.ERR_INVALID_OPERATION, '"operations" must be a list')
        raw.extend(value if isinstance(value, list) else [value])
        if len(raw) > MAX_OPERATIONS:
            break
    if len(raw) > MAX_OPERATIONS:
        raise _Bad(
            codes.ERR_TOO_MANY_OPERATIONS,
            f"more than {MAX_OPERATIONS} operations in one reply; send smaller batches",
        )
    return raw


def check_path(value: Any, field: str = "path", *, root_ok: bool = False) -> str:
    """The seed's path rules: relative, no ``..``, no NUL, at most 255 characters.

    The workspace jail checks the path again (links, protected names, control characters).
    """
    if not isinstance(value, str):
        raise _Bad(codes.ERR_INVALID_OPERATION, f'"{field}" must be a string')
    if "\x00" in value:
        raise _Bad(codes.ERR_PATH_ESCAPE, f'"{field}" contains a NUL byte')
    if len(value) > MAX_PATH_CHARS:
        raise _Bad(codes.ERR_PATH_ESCAPE, f'"{field}" is longer than {MAX_PATH_CHARS} characters')
    if value.startswith(("/", "\\")):
        raise _Bad(codes.ERR_PATH_ESCAPE, f'"{field}" must be relative (no leading /)')
    if ".." in value.replace("\\", "/").split("/"):
        raise _Bad(codes.ERR_PATH_ESCAPE, f'"{field}" must not contain ".." (parent traversal)')
    if not root_ok and value.strip("/.") == "":
        raise _Bad(codes.ERR_PATH_ESCAPE, f'"{field}" must name a file')
    return value


#: The longest refused path echoed back in an error event (the rest is cut, visibly).
ECHO_LIMIT = 300
_HOST_PATH = re.compile(r"[/\\~]|[A-Za-z]:")


def _echoable(value: Any) -> str | None:
    """The path to name in an error event, as the seed's events do: a valid path as is, a
    refused relative one (``../x``) as the model wrote it, with control and format characters
    shown as escapes and cut at :data:`ECHO_LIMIT` characters, so one event is one line and
    nothing can pass for a terminal or bidi control. An absolute, home or drive path is never
    echoed (results and transcripts never hold a host path)."""
    try:
        return check_path(value)
    except _Bad:
        pass
    if not isinstance(value, str) or not value or _HOST_PATH.match(value):
        return None  # an absolute, home or drive path names the host: never echoed
    shown = "".join(
        ch if ch.isprintable() and unicodedata.category(ch) not in ("Cf", "Co", "Cn")
        else f"\\u{ord(ch):04x}" for ch in value[:ECHO_LIMIT]
    )  # fmt: skip
    return shown + ("..." if len(value) > ECHO_LIMIT else "")


def _string(obj: dict[str, Any], key: str, *, nonempty: bool = False) -> str:
    value = obj[key]
    if not isinstance(value, str):
        raise _Bad(codes.ERR_INVALID_OPERATION, f'"{key}" must be a string, not {_show(value)}')
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise _Bad(codes.ERR_INVALID_OPERATION, f'"{key}" is not valid Unicode') from None
    if nonempty and not value:
        raise _Bad(codes.ERR_INVALID_OPERATION, f'"{key}" must not be empty')
    return value


def _encoding(obj: dict[str, Any]) -> str:
    value = obj.get("encoding", "utf-8")
    if value not in ("utf-8", "base64"):
        raise _Bad(codes.ERR_INVALID_OPERATION, '"encoding" must be "utf-8" or "base64"')
    return value


def _content(obj: dict[str, Any], encoding: str) -> bytes:
    text = _string(obj, "content")
    if len(text) > MAX_CONTENT_BYTES * 4 // 3 + 4:
        raise _Bad(codes.ERR_FILE_TOO_LARGE, f"content is larger than {MAX_CONTENT_BYTES} bytes")
    if encoding == "base64":
        try:
            data = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raise _Bad(codes.ERR_INVALID_BASE64, '"content" is not valid base64') from None
    else:
        data = text.encode("utf-8")
    if len(data) > MAX_CONTENT_BYTES:
        raise _Bad(codes.ERR_FILE_TOO_LARGE, f"content is larger than {MAX_CONTENT_BYTES} bytes")
    return data


def _edits(obj: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    edits = obj["edits"]
    if not isinstance(edits, list) or not edits:
        raise _Bad(codes.ERR_INVALID_OPERATION, '"edits" must be a non-empty list')
    if len(edits) > MAX_EDITS:
        raise _Bad(codes.ERR_INVALID_OPERATION, f'at most {MAX_EDITS} "edits" per operation')
    out = []
    total = 0
    for n, edit in enumerate(edits, 1):
        if not isinstance(edit, dict) or set(edit) != {"oldContent", "newContent"}:
            raise _Bad(
                codes.ERR_INVALID_OPERATION,
                f'edit {n} must be an object with exactly "oldContent" and "newContent"',
            )
        old, new = _string(edit, "oldContent", nonempty=True), _string(edit, "newContent")
        total += len(old) + len(new)
        if total > MAX_CONTENT_BYTES:
            raise _Bad(
                codes.ERR_FILE_TOO_LARGE, f"the edits are larger than {MAX_CONTENT_BYTES} bytes"
            )
        out.append((old, new))
    return tuple(out)


def _shell_fields(obj: dict[str, Any]) -> dict[str, Any]:
    command = _string(obj, "command", nonempty=True)
    if "\x00" in command or len(command) > MAX_COMMAND_CHARS:
        raise _Bad(
            codes.ERR_INVALID_OPERATION,
            f'"command" must have no NUL byte and at most {MAX_COMMAND_CHARS} characters',
        )
    cwd = check_path(obj["cwd"], "cwd", root_ok=True) if "cwd" in obj else None
    timeout = obj.get("timeout")
    if timeout is not None and (
        isinstance(timeout, bool)
        or not isinstance(timeout, int)
        or not 0 < timeout <= MAX_TIMEOUT_MS
    ):
        raise _Bad(
            codes.ERR_INVALID_OPERATION,
            f'"timeout" must be a whole number of milliseconds, 1 to {MAX_TIMEOUT_MS}',
        )
    env = obj.get("env", {})
    if not isinstance(env, dict) or len(env) > MAX_ENV_VARS:
        raise _Bad(
            codes.ERR_INVALID_OPERATION,
            f'"env" must be an object of at most {MAX_ENV_VARS} names and string values',
        )
    pairs = []
    for name, value in env.items():
        if not _ENV_NAME.fullmatch(name) or not isinstance(value, str) or "\x00" in value:
            raise _Bad(
                codes.ERR_INVALID_OPERATION,
                f"env {_show(name)} needs a plain name (letters, digits, _) and a string value",
            )
        pairs.append((name, _string(env, name)))
    return {"command": command, "cwd": cwd, "timeout_ms": timeout, "env": tuple(pairs)}


def _operation(index: int, raw: Any, type_counts: dict[str, int], ids: set[str]) -> Operation:
    if not isinstance(raw, dict):
        return InvalidOperation(
            index,
            "error",
            f"operation-{index + 1}",
            False,
            codes.ERR_INVALID_OPERATION,
            f"operation {index + 1} must be an object, not {_show(raw)}",
        )
    kind = raw.get("type")
    shown = kind if isinstance(kind, str) and _ID.fullmatch(kind) else "error"
    type_counts[shown] = type_counts.get(shown, 0) + 1
    given = raw.get("id")
    valid_id = isinstance(given, str) and _ID.fullmatch(given) is not None
    op_id = given if valid_id else f"{shown}-{type_counts[shown]}"
    path = _echoable(raw.get("path"))

    def bad(code: str, message: str) -> InvalidOperation:
        return InvalidOperation(
            index,
            shown,
            op_id,
            valid_id,
            code,
            message,
            path,
        )

    if "id" in raw and (not isinstance(given, str) or not _ID.fullmatch(given)):
        return bad(codes.ERR_INVALID_OPERATION, '"id" must be 1 to 128 letters, digits or _ . : -')
    if isinstance(given, str) and given in ids:
        return bad(codes.ERR_DUPLICATE_ID, f"the id {_show(given)} is used twice in this batch")
    if kind not in TYPES:
        what = f"unknown operation type {_show(kind)}" if "type" in raw else '"type" is missing'
        return bad(codes.ERR_UNKNOWN_OPERATION, f"{what}; expected one of {', '.join(TYPES)}")
    fields = FIELDS[kind]
    unknown = sorted(set(raw) - set(fields) - {"type", "id"})
    if unknown:
        return bad(codes.ERR_INVALID_OPERATION, f"{kind} has no field {_show(unknown[0])}")
    missing = [f for f, required in fields.items() if required and f not in raw]
    if missing:
        return bad(codes.ERR_INVALID_OPERATION, f'{kind} needs "{missing[0]}"')
    head = (index, kind, op_id, valid_id)
    try:
        if kind == "message":
            op: Operation = Message(*head, _string(raw, "content"))
        elif kind == "shell":
            op = Shell(*head, **_shell_fields(raw))
        else:
            target = check_path(raw["path"])
            if kind == "createFile":
                overwrite = raw.get("overwrite", False)
                if not isinstance(overwrite, bool):
                    raise _Bad(codes.ERR_INVALID_OPERATION, '"overwrite" must be true or false')
                enc = _encoding(raw)
                op = CreateFile(*head, target, _content(raw, enc), overwrite, enc)
            elif kind == "readFile":
                op = ReadFile(*head, target, _encoding(raw))
            elif kind == "editFile":
                op = EditFile(*head, target, _edits(raw))
            else:
                op = DeleteFile(*head, target)
    except _Bad as exc:
        return bad(exc.code, exc.message)
    if isinstance(given, str):
        ids.add(given)
    return op


def parse(text: str) -> list[Operation]:
    """The operations of a reply, in order; invalid ones are :class:`InvalidOperation`.

    Never raises for bad input. A problem with the reply as a whole gives a one-item list
    holding an ``InvalidOperation`` of type ``"error"``.
    """
    try:
        raw = _raw_operations(text)
    except _Bad as exc:
        return [InvalidOperation(0, "error", "error-1", False, exc.code, exc.message)]
    if not raw:
        return [
            InvalidOperation(
                0,
                "error",
                "error-1",
                False,
                codes.ERR_INVALID_OPERATION,
                "the reply holds no operations",
            )
        ]
    counts: dict[str, int] = {}
    ids: set[str] = set()
    return [_operation(i, item, counts, ids) for i, item in enumerate(raw)]
