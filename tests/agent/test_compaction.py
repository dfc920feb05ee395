"""Long runs keep going: a 60-turn run reading large files fits a small window throughout."""

from __future__ import annotations

import asyncio
from pathlib import Path

from support.replies import block

from jupyter_operator.agent import Agent, ReplayModel
from jupyter_operator.agent.compaction import compact, estimate, window_for
from jupyter_operator.protocol import parse_results

WINDOW = 30_000
TASK = "Read every part file and report the number of lines of each."


class Recording(ReplayModel):
    """A scripted model that keeps the size and the messages of every call."""

    def __init__(self, script) -> None:
        super().__init__(script)
        self.calls: list[list[dict[str, str]]] = []

    def stream(self, messages):
        self.calls.append([dict(m) for m in messages])
        return super().stream(messages)


def test_a_60_turn_run_reading_large_files_finishes_inside_its_window(workspace: Path) -> None:
    for n in range(60):
        (workspace / f"part{n}.txt").write_text("".join(f"line {i} of part {n}\n"
                                                        for i in range(1500)))  # fmt: skip

    def reply(last: str, turn: int) -> str | None:
        if turn <= 60:
            return f"Part {turn - 1}.\n" + block(f"r{turn}", "fs.read", path=f"part{turn - 1}.txt")
        return "Every part has 1500 lines. Done." if turn == 61 else None

    model = Recording(reply)
    agent = Agent(model, root=workspace, max_turns=70, context_window=WINDOW)
    result = asyncio.run(agent.run(TASK))
    assert result.reason == "done" and result.turns == 61, result
    sizes = [estimate(call) for call in model.calls]
    assert max(sizes) < WINDOW, max(sizes)
    for call in model.calls:
        assert call[0]["role"] == "system" and "OPERATOR_CMD" in call[0]["content"]
        assert call[1] == {"role": "user", "content": TASK}  # the task is always there
    # The latest results are always whole: the file the model just read is in its last message.
    last = model.calls[59][-1]["content"]
    (latest,) = parse_results(last)
    assert latest.id == "r59" and "line 1499 of part 58" in (latest.details or "")
    compactions = [r for r in agent.transcript if r["type"] == "compaction"]
    assert compactions and all(c["after_tokens"] < c["before_tokens"] for c in compactions)
    assert any(c["turns_summarised"] for c in compactions)


def test_old_details_become_notes_first() -> None:
    read = block("r1", "fs.read", path="big.txt")
    results = ("OPERATOR_RESULT\nid: r1\nok: true\nsummary: Read file\ndetails_b64: "
               + __import__("base64").b64encode(b"x\n" * 20_000).decode() + "\nEND_OPERATOR_RESULT")
    messages = [{"role": "system", "content": "spec"}, {"role": "user", "content": "task"},
                {"role": "assistant", "content": read}, {"role": "user", "content": results},
                {"role": "assistant", "content": "more"}, {"role": "user", "content": "last"}]
    done = compact(messages, 20_000)
    assert done is not None and done["details_chars_removed"] > 0
    (noted,) = parse_results(messages[3]["content"])
    assert noted.details.startswith("(details of big.txt removed")
    assert "20000 lines" not in noted.details and "lines, sha256 " in noted.details
    assert messages[1]["content"] == "task" and messages[-1]["content"] == "last"


def test_windows_by_family() -> None:
    assert window_for("gpt-4o-mini") == 128_000
    assert window_for("qwen2.5-coder:7b") == 32_000
    assert window_for("something-new") == 32_000
