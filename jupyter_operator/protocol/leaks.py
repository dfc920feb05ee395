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


# Each format with an opening and a closing tag is cut into spans with ``str.find`` (one search
# per tag: linear), and only a span is matched with a pattern. A lazy ``(.*?)</close>`` over the
# whole text is quadratic when a reply holds thousands of opening tags and no closing one.
_GLM = re.compile(r"([A-Za-z_][\w.\-]*)\s*\n(.*)", re.S)
# The name is the longest run of name characters (the lookahead): no ambiguous split to
# backtrack over when the header does not match.
_HARMONY_HEAD = re.compile(r"([\w.\-]+)(?![\w.\-])[^<]*(?:<\|channel\|>[^<]*)?"
                           r"(?:<\|constrain\|>\w+)?", re.S)  # fmt: skip
_HARMONY_TO, _HARMONY_MESSAGE = "to=functions.", "<|message|>"
#: ``{"name": ...`` objects tried as pasted JSON calls (a real leak has a few; prose may
#: hold thousands, each a failed parse).
MAX_JSON_CANDIDATES = 64
_DEEPSEEK_OPEN, _DEEPSEEK_CLOSE = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>"
_DEEPSEEK = re.compile(r"(?:function<｜tool▁sep｜>)?([\w.\-]+)(?:<｜tool▁sep｜>|\n```json\n)(.*?)"
                       r"(?:\n```)?", re.S)  # fmt: skip
_KIMI = re.compile(r"\s*(?:functions\.)?([\w\-]+)(?::\d+)?\s*<\|tool_call_argument_begin\|>(.*)",
                   re.S)  # fmt: skip
_NAMED = re.compile(r"([^\"]+)\">(.*)", re.S)  # after <invoke name=" / <parameter name="
_GEMMA4 = re.compile(r"(\w+)\{(.*)\}", re.S)
_GEMMA4_KEY = re.compile(r"\s*,?\s*(\w+):")
_GEMMA4_QUOTE = '<|"|>'
_JSON_CALL = re.compile(r"\{\s*\"(?:tool_calls|function_call|name|type|functionCall)\"")


def _spans(text: str, opening: str, closing: str) -> list[str]:
    """What lies between each ``opening`` and the next ``closing`` (linear in the text)."""
    found, pos = [], 0
    while (start := text.find(opening, pos)) >= 0:
        end = text.find(closing, start + len(opening))
        if end < 0:
            break  # no closing tag after this one: none after any later opening either
        found.append(text[start + len(opening) : end])
        pos = end + len(closing)
    return found


def _tagged(text: str, name: str) -> list[str]:
    """``<name ...>...</name>`` and its ``antml:`` form, from after ``<name`` to the close."""
    return [span for prefix in ("", "antml:")
            for span in _spans(text, f"<{prefix}{name} name=\"", f"</{prefix}{name}>")]  # fmt: skip


def _pairs(text: str, key: str, value: str) -> dict[str, str]:
    """``<key>k</key> <value>v</value>`` pairs (GLM), each tag found with ``str.find``."""
    pairs: dict[str, str] = {}
    pos = 0
    while (start := text.find(f"<{key}>", pos)) >= 0:
        end = text.find(f"</{key}>", start)
        opened = text.find(f"<{value}>", end)
        closed = text.find(f"</{value}>", opened)
        if min(end, opened, closed) < 0:
            break
        if not text[end + len(key) + 3 : opened].strip():
            pairs[text[start + len(key) + 2 : end].strip()] = text[opened + len(value) + 2 : closed]
        pos = closed + len(value) + 3
    return pairs


def _harmony(text: str) -> list[LeakedCall]:
    """``to=functions.NAME ... <|message|>{json}<|call|>`` (or ``<|end|>``, or the text's end).

    Each ``<|message|>`` is read once, with the last header before it; the next terminator is
    found once and reused while later messages come before it: one pass, however many headers.
    """
    found: list[LeakedCall] = []
    pos, stop = 0, -1
    while (message := text.find(_HARMONY_MESSAGE, pos)) >= 0:
        body = message + len(_HARMONY_MESSAGE)
        start = text.rfind(_HARMONY_TO, pos, message)
        head = None
        if start >= 0:
            head = _HARMONY_HEAD.fullmatch(text, start + len(_HARMONY_TO), message)
        if head is None:
            pos = body
            continue
        if stop < body:
            ends = [i for i in (text.find("<|call|>", body), text.find("<|end|>", body)) if i >= 0]
            stop = min(ends, default=len(text))
        found.append(LeakedCall("harmony", head.group(1), _args(text[body:stop].strip())))
        pos = stop
    return found


def _gemma_args(text: str) -> dict[str, Any]:
    """``k:<|"|>text<|"|>`` or ``k:value`` pairs of a Gemma 4 call, left to right."""
    args: dict[str, Any] = {}
    pos = 0
    while (match := _GEMMA4_KEY.match(text, pos)) is not None:
        pos = match.end()
        if text.startswith(_GEMMA4_QUOTE, pos):
            end = text.find(_GEMMA4_QUOTE, pos + len(_GEMMA4_QUOTE))
            if end < 0:
                break
            args[match.group(1)] = text[pos + len(_GEMMA4_QUOTE) : end]
            pos = end + len(_GEMMA4_QUOTE)
        else:
            end = min((i for i in (text.find(",", pos), text.find("}", pos)) if i >= 0),
                      default=len(text))  # fmt: skip
            args[match.group(1)] = _cast(text[pos:end].strip())
            pos = end
    return args


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
    """Every tool call in a native format found in ``text``, in the order of the formats.

    Linear in the text and never raises (a call nested too deep to read is left out).
    """
    try:
        return [call for call in _find(text) if call.name]
    except RecursionError:
        return []


def _find(text: str) -> list[LeakedCall]:
    # Every tagged format has a "<" or a backtick: prose without either (one-character searches)
    # skips a dozen searches of the whole text (0.3 ms per 100 KB).
    found = _tagged_calls(text) if "<" in text or "`" in text else []
    if not found:
        found += _json_calls(text)
    return found


def _tagged_calls(text: str) -> list[LeakedCall]:
    found: list[LeakedCall] = []
    for span in _spans(text, "<tool_call>", "</tool_call>"):
        inner = span.strip()
        if inner.startswith("{") and inner.endswith("}"):  # Hermes / Qwen: a JSON object
            found += _from_json_object(_json(inner), "hermes")
        elif (glm := _GLM.fullmatch(span)) is not None:
            pairs = {k: _cast(v) for k, v in _pairs(glm.group(2), "arg_key", "arg_value").items()}
            found.append(LeakedCall("glm", glm.group(1), pairs))
    found += _harmony(text)
    for span in _spans(text, _DEEPSEEK_OPEN, _DEEPSEEK_CLOSE):
        if (match := _DEEPSEEK.fullmatch(span)) is not None:
            found.append(LeakedCall("deepseek", match.group(1), _args(match.group(2).strip())))
    for span in _spans(text, "<|tool_call_begin|>", "<|tool_call_end|>"):
        if (match := _KIMI.fullmatch(span)) is not None:
            found.append(LeakedCall("kimi", match.group(1), _args(match.group(2).strip())))
    for span in _tagged(text, "invoke"):
        if (match := _NAMED.fullmatch(span)) is not None:
            params = [_NAMED.fullmatch(p) for p in _tagged(match.group(2), "parameter")]
            found.append(LeakedCall("anthropic", match.group(1),
                                    {m.group(1): _cast(m.group(2)) for m in params if m}))
    for span in _spans(text, "<|tool_call>call:", "<tool_call|>"):
        if (match := _GEMMA4.fullmatch(span)) is not None:
            found.append(LeakedCall("gemma", match.group(1), _gemma_args(match.group(2))))
    for span in _spans(text, "```tool_code", "```"):
        if span[:1] in ("\n", " ", "\t", "\r"):
            found += _python_calls(span)
    return found


def _json_calls(text: str) -> list[LeakedCall]:
    """OpenAI-style JSON pasted as text (in a fence or bare)."""
    decoder = json.JSONDecoder()
    found: list[LeakedCall] = []
    end = 0
    for tried, match in enumerate(_JSON_CALL.finditer(text)):
        if tried >= MAX_JSON_CANDIDATES:
            break
        if match.start() < end:
            continue  # inside an object already read (its nested "function": {"name": ...})
        try:
            obj, end = decoder.raw_decode(text, match.start())
        except (ValueError, RecursionError):
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
