"""Writes replies.jsonl: how real models answer a one-file task, right and almost right.

Each entry: ``name``, ``kind`` (``fine``, ``leak:<family>``, ``stop:<class>``,
``near:<what>``), the ``reply`` text, the ``intended`` change (``{"path", "content"}`` or
``{"path", "find", "text"}``, null for none) and the ``expect``ed end (``applied``, or the stop
reason). Run ``python tests/data/model_replies/make_corpus.py`` to write it again.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
FILES = [("hello.txt", "hi\n"), ("notes/todo.md", "- buy milk\n- call Ann\n"),
         ("src/app.py", "print('ready')\n"), ("data/config.json", '{"debug": true}\n'),
         ("README.md", "# Demo\n\nA small demo.\n")]  # fmt: skip
PROSE = ["", "Sure, I'll create the file now.\n", "Here is the change.\n\n",
         "I'll write it for you:\n"]  # fmt: skip


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def block(id: str, path: str, content: str, **extra: str) -> str:
    lines = ["OPERATOR_CMD", "version: 1", f"id: {id}", "action: fs.write", f"path: {path}",
             f"content_b64: {b64(content)}", *(f"{k}: {v}" for k, v in extra.items()),
             "END_OPERATOR_CMD"]  # fmt: skip
    return "\n".join(lines)


def leaks(path: str, content: str) -> dict[str, str]:
    j = json.dumps
    args = {"path": path, "content": content}
    return {
        "openai": j({"tool_calls": [{"id": "call_1", "type": "function", "function": {
            "name": "write_file", "arguments": j(args)}}]}),
        "openai-function_call": "```json\n" + j({"function_call": {"name": "create_file",
                                                                   "arguments": args}}) + "\n```",
        "hermes": f"<tool_call>\n{j({'name': 'write_file', 'arguments': args})}\n</tool_call>",
        "harmony": ("<|start|>assistant<|channel|>commentary to=functions.write_file "
                    f"<|constrain|>json<|message|>{j(args)}<|call|>"),
        "deepseek": ("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write_file<｜tool▁sep｜>"
                     f"{j(args)}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"),
        "kimi": ("<|tool_calls_section_begin|><|tool_call_begin|>functions.write_file:0"
                 f"<|tool_call_argument_begin|>{j(args)}<|tool_call_end|>"
                 "<|tool_calls_section_end|>"),
        "glm": (f"<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>{path}</arg_value>\n"
                f"<arg_key>content</arg_key>\n<arg_value>{content}</arg_value>\n</tool_call>"),
        "anthropic": (f'<function_calls>\n<invoke name="write_file">\n<parameter name="path">'
                      f'{path}</parameter>\n<parameter name="content">{content}</parameter>\n'
                      "</invoke>\n</function_calls>"),
        "anthropic-json": j({"type": "tool_use", "id": "toolu_1", "name": "write_file",
                             "input": args}),
        "gemini": f"```tool_code\nprint(default_api.write_file(path={path!r}, "
                  f"content={content!r}))\n```",
        "gemma": (f'<|tool_call>call:write_file{{path:<|"|>{path}<|"|>,content:<|"|>{content}'
                  '<|"|>}<tool_call|>'),
    }  # fmt: skip


def entries() -> list[dict]:
    found = []

    def add(name: str, kind: str, reply: str, intended: dict | None, expect: str,
            finish: str = "stop") -> None:  # fmt: skip
        found.append({"name": name, "kind": kind, "reply": reply, "intended": intended,
                      "expect": expect, "finish": finish})  # fmt: skip

    for n, (path, content) in enumerate(FILES):
        want = {"path": path, "content": content}
        for p, prose in enumerate(PROSE):
            add(f"fine-{n}-{p}", "fine", prose + block(f"w{n}", path, content), want, "applied")
        add(f"fine-fenced-{n}", "fine", "```\n" + block(f"w{n}", path, content) + "\n```",
            want, "applied")  # fmt: skip
        for family, text in leaks(path, content).items():
            add(f"leak-{family}-{n}", f"leak:{family}", PROSE[n % 4] + text, want, "applied")
            add(f"leak-{family}-{n}-after", f"leak:{family}",
                text + "\n\nLet me know if you need anything else.", want, "applied")  # fmt: skip
        add(f"near-workspace-{n}", "near:workspace",
            block(f"w{n}", path, content, workspace="/home/me/project"), want, "applied")
        spaced = block(f"w{n}", path, content).replace(
            f"content_b64: {b64(content)}", f"content_b64: {b64(content)[:8]} {b64(content)[8:]}")
        add(f"near-b64-spaces-{n}", "near:b64-spaces", spaced, want, "applied")
        curly = block(f"w{n}", path, content).replace(f"path: {path}", f"path: \u201c{path}\u201d")
        add(f"near-curly-quotes-{n}", "near:curly-quotes", curly, want, "applied")
    promises = ["Sure, I'll create {p} now.", "Let me write {p} for you.",
                "I will now create the file {p}.", "Next, I'll add {p} with the content.",
                "OK! I'm going to write {p}.", "Now I'll update {p}."]  # fmt: skip
    for n, (path, content) in enumerate(FILES):
        want = {"path": path, "content": content}
        for k, text in enumerate(promises):
            add(f"stop-promise-{n}-{k}", "stop:promise", text.format(p=path), want, "applied")
        add(f"stop-empty-{n}", "stop:empty", "", want, "applied")
        add(f"stop-empty-ws-{n}", "stop:empty", "\n\n  \n", want, "applied")
        add(f"stop-cut-{n}", "stop:cut_off",
            f"I'll write {path}. Here is the plan: first I check the folder, then", want,
            "applied", finish="length")  # fmt: skip
    refusals = ["I'm sorry, but I can't help with that.", "I cannot assist with this request.",
                "I won't modify files on your machine.", "I am unable to do that."]
    questions = ["Which folder should the file go in?", "Do you want me to overwrite it?",
                 "Should the file end with a newline?", "What content should it have?"]
    for k, text in enumerate(refusals * 2):
        add(f"stop-refusal-{k}", "stop:refusal", text, None, "refusal")
    for k, text in enumerate(questions * 2):
        add(f"stop-question-{k}", "stop:question", "Before I start: " + text, None, "question")
    return found


if __name__ == "__main__":
    rows = entries()
    with open(HERE / "replies.jsonl", "w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(rows)} replies written")
