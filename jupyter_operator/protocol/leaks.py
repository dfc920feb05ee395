"""Tool calls a model wrote in its own native format instead of an ``OPERATOR_CMD`` block.

Models are trained on their family's tool-call syntax, and it leaks into plain-text replies
(the formats are in seed 003's excerpts). Such a call is never run as it is: the loop answers
it with ``ERR_FOREIGN_TOOL_CALL`` and, where the intent is clear (a write with a path and
content, a read, a replacement of text, a listing, a delete), the ``OPERATOR_CMD`` block the
model meant, so its next turn can send that instead.

Pure: text in, calls and block text out. Recognised:

- OpenAI-style JSON pasted as text (``{"tool_calls": [...]}``, ``{"function_call": ...}``,
  ``{"name": ..., "arguments": ...}``), and Hermes/Qwen ``<tool_call>{json}</tool_call>``;
- OpenAI Harmony (``<|channel|>commentary to=functions.NAME ... <|message|>{json}<|call|>``);
- DeepSeek (``<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{json}<｜tool▁call▁end｜>``);
- Kimi K2 (``<|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{json}``);
- GLM (``<tool_call>NAME`` then ``<arg_key>``/``<arg_value>`` pairs);
- Anthropic (``<invoke name="NAME"><parameter name="p">v</parameter>``, and ``tool_use`` JSON);
- Gemini and Gemma 3 (``tool_code`` blocks of ``default_api.NAME(k=v)``), Gemma 4
  (``<|tool_call>call:NAME{k:<|"|>v<|"|>}<tool_call|>``).
"""

from __future__ import annotations

import ast
import base64
import json
import re
from dataclasses import dataclass, field
from typing import Any

from . import codes

CODE = codes.ERR_FOREIGN_TOOL_CALL


@dataclass(frozen=True)
class LeakedCall:
    """One call in a model's native format: the family, the name and its arguments."""

    family: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _args(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        value = _json(value)
    return value if isinstance(value, dict) else {}


def _from_json_object(obj: Any, family: str) -> list[LeakedCall]:
    """OpenAI, Hermes, Anthropic ``tool_use`` and Gemini ``functionCall`` shapes."""
    if isinstance(obj, list):
        return [call for entry in obj for call in _from_json_object(entry, family)]
    if not isinstance(obj, dict):
        return []
    for key in ("tool_calls", "content"):
        if isinstance(obj.get(key), list):
            return _from_json_object(obj[key], family)
    if isinstance(obj.get("function_call"), dict):
        return _from_json_object(obj["function_call"], family)
    if isinstance(obj.get("function"), dict):
        return _from_json_object(obj["function"], family)
    if isinstance(obj.get("functionCall"), dict):
        inner = obj["functionCall"]
        return [LeakedCall("gemini", str(inner.get("name", "")), _args(inner.get("args")))]
    if obj.get("type") == "tool_use" and isinstance(obj.get("name"), str):
        return [LeakedCall("anthropic", obj["name"], _args(obj.get("input")))]
    name = obj.get("name")
    if isinstance(name, str) and name:
        arguments = obj.get("arguments", obj.get("parameters", obj.get("args")))
        return [LeakedCall(family, name, _args(arguments))]
    return []


_HERMES = re.compile(r"<tool_call>\s*(\{.*?\})\s*</tool_call>", re.S)
_GLM = re.compile(r"<tool_call>([A-Za-z_][\w.\-]*)\s*\n(.*?)</tool_call>", re.S)
_GLM_PAIR = re.compile(r"<arg_key>(.*?)</arg_key>\s*<arg_value>(.*?)</arg_value>", re.S)
_HARMONY = re.compile(
    r"to=functions\.([\w.\-]+)[^<]*(?:<\|channel\|>[^<]*)?(?:<\|constrain\|>\w+)?"
    r"<\|message\|>(.*?)(?:<\|call\|>|<\|end\|>|$)", re.S
)  # fmt: skip
_DEEPSEEK = re.compile(r"<｜tool▁call▁begin｜>(?:function<｜tool▁sep｜>)?([\w.\-]+)"
                       r"(?:<｜tool▁sep｜>|\n```json\n)(.*?)(?:\n```)?<｜tool▁call▁end｜>", re.S)
_KIMI = re.compile(r"<\|tool_call_begin\|>\s*(?:functions\.)?([\w\-]+)(?::\d+)?\s*"
                   r"<\|tool_call_argument_begin\|>(.*?)<\|tool_call_end\|>", re.S)
_INVOKE = re.compile(r"<(?:antml:)?invoke name=\"([^\"]+)\">(.*?)</(?:antml:)?invoke>", re.S)
_PARAM = re.compile(r"<(?:antml:)?parameter name=\"([^\"]+)\">(.*?)</(?:antml:)?parameter>", re.S)
_TOOL_CODE = re.compile(r"```tool_code\s*\n(.*?)```", re.S)
_GEMMA4 = re.compile(r"<\|tool_call>call:(\w+)\{(.*?)\}<tool_call\|>", re.S)
_GEMMA4_ARG = re.compile(r'(\w+):(?:<\|"\|>(.*?)<\|"\|>|([^,}]*))', re.S)
_JSON_CALL = re.compile(r"\{\s*\"(?:tool_calls|function_call|name|type|functionCall)\"")


def _python_calls(code: str) -> list[LeakedCall]:
    """``print(default_api.f(a=1))``, ``f(a=1)``, ``x = f(a=1)``: Python call expressions."""
    try:
        tree = ast.parse(code.strip())
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in ("print", ""):
            continue
        arguments: dict[str, Any] = {}
        for keyword in node.keywords:
            try:
                arguments[str(keyword.arg)] = ast.literal_eval(keyword.value)
            except ValueError:
                arguments[str(keyword.arg)] = ast.unparse(keyword.value)
        found.append(LeakedCall("gemini", name, arguments))
    return found


def _cast(value: str) -> Any:
    """A value written as text: a JSON number, boolean, null, list or object, else the text
    as it is (strings are written without quotes)."""
    parsed = _json(value.strip())
    return parsed if parsed is not None and not isinstance(parsed, str) else value


def find_leaks(text: str) -> list[LeakedCall]:
    """Every tool call in a native format found in ``text``, in the order of the formats."""
    found: list[LeakedCall] = []
    for match in _HERMES.finditer(text):
        found += _from_json_object(_json(match.group(1)), "hermes")
    for match in _GLM.finditer(text):
        pairs = {k.strip(): _cast(v) for k, v in _GLM_PAIR.findall(match.group(2))}
        found.append(LeakedCall("glm", match.group(1), pairs))
    for match in _HARMONY.finditer(text):
        found.append(LeakedCall("harmony", match.group(1), _args(match.group(2).strip())))
    for match in _DEEPSEEK.finditer(text):
        found.append(LeakedCall("deepseek", match.group(1), _args(match.group(2).strip())))
    for match in _KIMI.finditer(text):
        found.append(LeakedCall("kimi", match.group(1), _args(match.group(2).strip())))
    for match in _INVOKE.finditer(text):
        params = {k: _cast(v) for k, v in _PARAM.findall(match.group(2))}
        found.append(LeakedCall("anthropic", match.group(1), params))
    for match in _GEMMA4.finditer(text):
        pairs = _GEMMA4_ARG.findall(match.group(2))
        found.append(LeakedCall("gemma", match.group(1),
                                {k: a if a else _cast(b.strip()) for k, a, b in pairs}))
    for match in _TOOL_CODE.finditer(text):
        found += _python_calls(match.group(1))
    if not found:
        found += _json_calls(text)
    return [call for call in found if call.name]


def _json_calls(text: str) -> list[LeakedCall]:
    """OpenAI-style JSON pasted as text (in a fence or bare)."""
    decoder = json.JSONDecoder()
    found: list[LeakedCall] = []
    end = 0
    for match in _JSON_CALL.finditer(text):
        if match.start() < end:
            continue  # inside an object already read (its nested "function": {"name": ...})
        try:
            obj, end = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        anthropic = isinstance(obj, dict) and obj.get("type") == "tool_use"
        found += _from_json_object(obj, "anthropic" if anthropic else "openai")
    return found


# --- what the model meant, as an OPERATOR_CMD block -----------------------------------------
_WRITE = {"write_file", "create_file", "write", "save_file", "writefile", "create", "file_write",
          "fs.write", "put_file"}  # fmt: skip
_READ = {"read_file", "read", "open_file", "cat", "view", "get_file", "readfile", "file_read",
         "fs.read"}  # fmt: skip
_EDIT = {"edit_file", "str_replace", "replace", "replace_in_file", "str_replace_editor",
         "apply_edit", "edit", "modify_file"}  # fmt: skip
_LIST = {"list_files", "list_dir", "ls", "list_directory", "listdir", "fs.list"}
_DELETE = {"delete_file", "remove_file", "rm", "delete", "fs.delete"}

_PATH_KEYS = ("path", "file_path", "filepath", "filename", "file", "target_file", "dir",
              "directory")  # fmt: skip
_CONTENT_KEYS = ("content", "contents", "text", "data", "file_text", "body")
_OLD_KEYS = ("old", "old_str", "old_string", "search", "find", "old_text")
_NEW_KEYS = ("new", "new_str", "new_string", "replace", "replacement", "new_text")


def _first(arguments: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = arguments.get(key)
        if isinstance(value, str):
            return value
    return None


def _b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def _block(id: str, action: str, **fields: str) -> str:
    lines = ["OPERATOR_CMD", "version: 1", f"id: {id}", f"action: {action}"]
    lines += [f"{key}: {value}" for key, value in fields.items()]
    return "\n".join([*lines, "END_OPERATOR_CMD"])


def translate(call: LeakedCall, id: str) -> str | None:
    """The ``OPERATOR_CMD`` block ``call`` meant, or None when its intent is not clear."""
    name = call.name.lower().rsplit(".", 1)[-1] if call.name.lower() not in _WRITE | _READ else (
        call.name.lower())  # fmt: skip
    args = call.arguments
    path = _first(args, _PATH_KEYS)
    if path is None or "\n" in path:
        if name in _LIST:
            return _block(id, "fs.list", path=".")
        return None
    if name in _WRITE:
        content = _first(args, _CONTENT_KEYS)
        if content is None:
            return None
        return _block(id, "fs.write", path=path, content_b64=_b64(content))
    if name in _READ:
        return _block(id, "fs.read", path=path)
    if name in _LIST:
        return _block(id, "fs.list", path=path)
    if name in _DELETE:
        return _block(id, "fs.delete", path=path)
    if name in _EDIT:
        old, new = _first(args, _OLD_KEYS), _first(args, _NEW_KEYS)
        if old is None or new is None:
            return None
        edits = {"version": 1, "edits": [{"op": "replaceFirst", "find": old, "text": new}]}
        return _block(id, "fs.applyEdits", path=path, edits_b64=_b64(json.dumps(edits)))
    return None


FAMILY_NAMES = {
    "openai": "OpenAI-style tool_calls JSON", "hermes": "Hermes/Qwen <tool_call> JSON",
    "harmony": "OpenAI Harmony to=functions", "deepseek": "DeepSeek tool-call tokens",
    "kimi": "Kimi K2 tool-call tokens", "glm": "GLM <tool_call> with <arg_key>",
    "anthropic": "Anthropic <invoke>/tool_use", "gemini": "Gemini tool_code",
    "gemma": "Gemma 4 <|tool_call>",
}  # fmt: skip
