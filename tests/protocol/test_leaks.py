"""Tool calls in a model's own format (seed 003's families) are found and translated."""

from __future__ import annotations

import base64
import json

import pytest

from jupyter_operator.protocol import scan
from jupyter_operator.protocol.leaks import find_leaks, translate

WRITE_ARGS = {"path": "hello.txt", "content": "hi\n"}

LEAKS = {
    "hermes": '<tool_call>\n{"name": "write_file", "arguments": {"path": "hello.txt", '
              '"content": "hi\\n"}}\n</tool_call>',
    "openai": '{"tool_calls": [{"id": "call_1", "type": "function", "function": {"name": '
              '"write_file", "arguments": "{\\"path\\": \\"hello.txt\\", \\"content\\": '
              '\\"hi\\\\n\\"}"}}]}',
    "openai-function_call": '```json\n{"function_call": {"name": "write_file", "arguments": '
                            '{"path": "hello.txt", "content": "hi\\n"}}}\n```',
    "harmony": '<|start|>assistant<|channel|>commentary to=functions.write_file <|constrain|>json'
               '<|message|>{"path": "hello.txt", "content": "hi\\n"}<|call|>',
    "deepseek": '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write_file<｜tool▁sep｜>{"path": '
                '"hello.txt", "content": "hi\\n"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    "kimi": '<|tool_calls_section_begin|><|tool_call_begin|>functions.write_file:0'
            '<|tool_call_argument_begin|>{"path": "hello.txt", "content": "hi\\n"}'
            "<|tool_call_end|><|tool_calls_section_end|>",
    "glm": "<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>hello.txt</arg_value>\n"
           "<arg_key>content</arg_key>\n<arg_value>hi\n</arg_value>\n</tool_call>",
    "anthropic": '<function_calls>\n<invoke name="write_file">\n<parameter name="path">hello.txt'
                 '</parameter>\n<parameter name="content">hi\n</parameter>\n</invoke>\n'
                 "</function_calls>",
    "anthropic-json": '{"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": '
                      '{"path": "hello.txt", "content": "hi\\n"}}',
    "gemini": "```tool_code\nprint(default_api.write_file(path='hello.txt', content='hi\\n'))\n```",
    "gemma": '<|tool_call>call:write_file{path:<|"|>hello.txt<|"|>,content:<|"|>hi\n<|"|>}'
             "<tool_call|>",
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_each_family_is_found_and_translated_into_the_write_it_meant(name: str) -> None:
    text = "Sure, I'll create hello.txt now.\n" + LEAKS[name]
    (call,) = find_leaks(text)
    assert call.name == "write_file"
    assert call.arguments == WRITE_ARGS, call
    block = translate(call, "tool-call-1")
    assert block is not None
    (command,) = scan(block).items
    assert (command.action, command.path) == ("fs.write", "hello.txt")
    assert command.params.content == "hi\n"


def test_reads_edits_lists_and_deletes_are_translated() -> None:
    from jupyter_operator.protocol.leaks import LeakedCall

    read = translate(LeakedCall("hermes", "read_file", {"file_path": "a.py"}), "t1")
    assert "action: fs.read\npath: a.py" in (read or "")
    arguments = {"path": "a.py", "old_str": "x = 1", "new_str": "x = 2"}
    edit = translate(LeakedCall("anthropic", "str_replace", arguments), "t2")
    (command,) = scan(edit or "").items
    assert command.action == "fs.applyEdits"
    edits = json.loads(base64.b64decode(command.fields["edits_b64"]))
    assert edits["edits"] == [{"op": "replaceFirst", "find": "x = 1", "text": "x = 2"}]
    assert "action: fs.list" in (translate(LeakedCall("glm", "list_files", {}), "t3") or "")
    assert "action: fs.delete" in (translate(LeakedCall("kimi", "rm", {"path": "b"}), "t4") or "")
    assert translate(LeakedCall("openai", "get_weather", {"city": "Oslo"}), "t5") is None


def test_prose_and_operator_blocks_are_not_leaks() -> None:
    assert find_leaks("I will write the file with fs.write now.") == []
    assert find_leaks("OPERATOR_CMD\nversion: 1\nid: a\naction: fs.read\npath: x\n"
                      "END_OPERATOR_CMD") == []  # fmt: skip
    assert find_leaks('The JSON {"name": 1} is data, not a call.') == []


#: Hostile texts of about 1 MB: one pass reads each in milliseconds; a quadratic pattern (the
#: lazy ``(.*?)</close>`` these replaced) takes minutes on any of them, past the timeout.
HOSTILE = [
    "<tool_call>{ " * 75_000, "<tool_call>f\n" + "<arg_key>a" * 100_000 + "</tool_call>",
    '<invoke name="x"> ' * 50_000,
    '<invoke name="x">' + '<parameter name="p">' * 50_000 + "</invoke>",
    '{"name": x} ' * 75_000, '{"name": ' * 100_000, '{"name": [' * 50_000,
    "<|tool_call>call:x{ " * 50_000, "<|tool_call>call:x{" + 'a:<|"|>' * 100_000 + "}<tool_call|>",
    "<|tool_call_begin|>x<|tool_call_argument_begin|> " * 20_000,
    "<｜tool▁call▁begin｜>x<｜tool▁sep｜> " * 30_000,
    "to=functions.x " * 75_000 + "<b<|message|>{}",
    "to=functions." + "a" * 500_000 + "<b<|message|>",
    "<|message|>" * 90_000,
]  # fmt: skip


@pytest.mark.timeout(60)  # the failure this guards against is a hang (quadratic matching)
@pytest.mark.parametrize("text", HOSTILE, ids=[f"hostile-{n}" for n in range(len(HOSTILE))])
def test_hostile_replies_are_read_in_one_pass_and_never_raise(text: str) -> None:
    """Thousands of opening tags with no closing one, deep JSON: no hang, no RecursionError."""
    for call in find_leaks(text):
        assert call.name
