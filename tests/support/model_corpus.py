"""Running the corpus of model replies (``tests/data/model_replies/replies.jsonl``) through the
agent loop, with a cooperative model for the turn after (shared by a test and ``bench/``).

Turn 1 is the corpus reply. When the loop answers it (a leaked call's translation, a corrective
prompt, an error that names the fix), turn 2 is what a model that follows the answer sends: the
translated block, or the intended command written right. Then "Done.". An entry counts as
handled when it ends as expected (the intended change applied, or the expected stop) after at
most one corrective turn.
"""

from __future__ import annotations

import asyncio
import base64
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

from jupyter_operator.agent import Agent, ReplayModel, reject_translations
from jupyter_operator.protocol import parse_results

CORPUS = Path(__file__).resolve().parents[1] / "data" / "model_replies" / "replies.jsonl"


def load() -> list[dict]:
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line]


def _intended_block(intended: dict) -> str:
    content = base64.b64encode(intended["content"].encode()).decode()
    return "\n".join(["OPERATOR_CMD", "version: 1", "id: fixed-1", "action: fs.write",
                      f"path: {intended['path']}", f"content_b64: {content}",
                      "END_OPERATOR_CMD"])  # fmt: skip


def _cooperative(entry: dict):
    def reply(last: str, turn: int) -> str | None:
        if turn == 1:
            return entry["reply"]
        if turn > 2 or entry["intended"] is None:
            return "Done."
        results = parse_results(last)
        translated = [r.details for r in results if r.code == "ERR_FOREIGN_TOOL_CALL" and r.details]
        if translated:
            return "Here it is as an OPERATOR_CMD block.\n" + "\n".join(translated)
        if results and all(r.ok for r in results):
            return "Done."
        return _intended_block(entry["intended"])  # the answer said what to fix: fixed

    return reply


class CorpusModel(ReplayModel):
    """The cooperative model; its first reply ends as the entry says (``length``: cut off)."""

    def __init__(self, entry: dict) -> None:
        super().__init__(_cooperative(entry))
        self._first_finish = entry.get("finish", "stop")

    def stream(self, messages):
        reply = super().stream(messages)
        if self.turn == 1:
            reply._finish = self._first_finish
        return reply


@dataclass
class Outcome:
    name: str
    kind: str
    handled: bool
    reason: str
    turns: int
    classified: str | None  # the loop's first stop class (None: never classified)


def approve_translations(run) -> None:
    """A person who approves every translated call (the cards' Approve)."""
    for item in list(run.pending):
        if item.foreign is not None:
            run.approve(item.id)


def run_entry(entry: dict, decide=reject_translations) -> Outcome:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "ws"
        root.mkdir()
        # By default nobody approves a translated call: the model is told the block it meant,
        # and sends it.
        agent = Agent(CorpusModel(entry), root=root, policy="auto=reads,writes",
                      max_turns=5, transcripts=False, journal_dir=Path(folder) / "journal",
                      decide=decide)  # fmt: skip
        result = asyncio.run(agent.run("Create the file."))
        intended = entry["intended"]
        if entry["expect"] == "applied":
            target = root / intended["path"]
            applied = target.is_file() and target.read_text() == intended["content"]
            corrective = result.turns - 2  # the reply, "Done.": anything more corrected it
            handled = applied and result.reason == "done" and corrective <= 1
        else:
            handled = result.reason == entry["expect"] and not any(root.rglob("*.*"))
        classes = [r["kind"] for r in agent.transcript if r["type"] == "stop_class"]
        return Outcome(entry["name"], entry["kind"], handled, result.reason, result.turns,
                       classes[0] if classes else None)


def run_all(decide=reject_translations) -> list[Outcome]:
    return [run_entry(entry, decide) for entry in load()]
