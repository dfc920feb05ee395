"""Large results folders for the viewer's scale test and bench: signed rows and transcripts
shaped like a real grid's (a system prompt, turns with a reply, a command, its decision, its
card with a diff or a read's lines, the results sent back), made in seconds instead of running
1,000 agents. ``from support.results_folders import results_folder``."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

from jupyter_operator.experiments.results import ResultsFile

SYSTEM = ("You are working in one workspace folder through the OPERATOR_CMD blocks specified "
          "below. " * 40 + "\n") * 8  # fmt: skip


def _diff(turn: int, lines: int) -> str:
    body = [f"-old line {n} of turn {turn}\n+new line {n} of turn {turn}\n" for n in range(lines)]
    head = f"--- a/src/module_{turn}.py\n+++ b/src/module_{turn}.py\n"
    return head + f"@@ -1,{lines} +1,{lines} @@\n" + "".join(body)


def transcript(rng: random.Random, task: str, turns: int) -> str:
    """One run's JSONL transcript."""
    records: list[dict] = [
        {"type": "start", "t": 0, "task": f"Do the task {task}.", "model": "m", "endpoint": "x",
         "policy": "1: auto all", "max_turns": 8},
        {"type": "message", "t": 0, "turn": 0, "role": "system", "content": SYSTEM},
        {"type": "message", "t": 0, "turn": 1, "role": "user", "content": f"Do the task {task}."},
    ]  # fmt: skip
    for turn in range(1, turns + 1):
        write = turn % 2 == 1
        action, path = ("fs.write", f"src/module_{turn}.py") if write else ("fs.read", "data.csv")
        reply = (f"Turn {turn}: I will {'change' if write else 'read'} {path}.\n"
                 + "Reasoning. " * 40
                 + f"\nOPERATOR_CMD\nversion: 1\nid: c{turn}\naction: {action}\npath: {path}\n"
                 "content_b64: aGVsbG8K\nEND_OPERATOR_CMD")  # fmt: skip
        usage = {"prompt_tokens": 3000 + 500 * turn, "completion_tokens": rng.randint(50, 400)}
        card = {"index": 0, "id": f"c{turn}", "action": action, "path": path, "line": 2,
                "kind": "mutation" if write else "read", "status": "applied" if write else "done",
                "needs_approval": False, "summary": "+30 -30 lines" if write else "80 lines",
                "change": "modify" if write else None, "diff": _diff(turn, 30) if write else None,
                "cells": None, "added": 30 if write else 0, "removed": 30 if write else 0,
                "ok": True, "details": None if write else "".join(
                    f"{n},{rng.random():.6f}\n" for n in range(80)),
                "error_code": None, "decided_by": "rule" if write else None,
                "rule": "rule 1: auto all" if write else None,
                "rule_note": "auto-approved by rule 1: auto all" if write else None,
                "edited": False, "editable": False, "execution": None, "can_run": False,
                "foreign": None}  # fmt: skip
        records += [
            {"type": "message", "t": turn, "turn": turn, "role": "assistant", "content": reply,
             "finish_reason": "stop", "usage": usage, "model_seconds": 1.5},
            {"type": "turn", "t": turn, "turn": turn, "usage": usage},
            {"type": "command", "t": turn, "turn": turn, "id": f"c{turn}", "action": action,
             "path": path, "kind": card["kind"], "status": "pending", "error_code": None},
            {"type": "result", "t": turn, "turn": turn, "id": f"c{turn}", "ok": True,
             "summary": card["summary"], "error_code": None},
            {"type": "card", "t": turn, "turn": turn, "card": card},
            {"type": "message", "t": turn, "turn": turn + 1, "role": "user",
             "content": f"OPERATOR_RESULT\nid: c{turn}\nok: true\nsummary: {card['summary']}\n"
                        "END_OPERATOR_RESULT"},
        ]  # fmt: skip
    records.append({"type": "stop", "t": turns, "reason": "done", "message": "finished",
                    "turns": turns, "wall_seconds": 3.0 * turns})  # fmt: skip
    return "".join(json.dumps(r) + "\n" for r in records)


def results_folder(out: Path, *, tasks: int = 20, models: int = 5, repeats: int = 10,
                   key_file: str | os.PathLike[str] | None = None,
                   seed: int = 0) -> Path:  # fmt: skip
    """``tasks x models x repeats`` signed rows (1,000 by default) and their transcripts."""
    rng = random.Random(seed)
    results = ResultsFile(out, key_file=key_file)
    for t in range(tasks):
        for m in range(models):
            skill = (m + 1) / (models + 1)
            for repeat in range(repeats):
                turns = rng.randint(1, 6)
                passed = rng.random() < skill
                error = not passed and rng.random() < 0.1
                prompt, completion = 3000 * turns, 200 * turns
                results.add({
                    "task": f"task-{t:02d}", "model": f"model-{m}", "repeat": repeat,
                    "passed": passed, "turns": turns, "tokens": prompt + completion,
                    "prompt_tokens": prompt, "completion_tokens": completion,
                    "tokens_estimated": False, "wall_seconds": round(rng.uniform(2, 60), 2),
                    "stop_reason": "model_error" if error else "done",
                    "stop_message": "The endpoint failed (HTTP 500)." if error else "finished",
                    "valid_rate": 1.0, "error_codes": {}, "commands": turns, "approvals": turns,
                    "rejections": 0, "denied": 0, "check_exit": 0 if passed else 1,
                    "check_output": "" if passed else "AssertionError: expected 3, got 2\n",
                    "started_at": 1_700_000_000 + t * 1000 + m * 100 + repeat,
                    "transcript_text": transcript(rng, f"task-{t:02d}", turns),
                })  # fmt: skip
    return out
