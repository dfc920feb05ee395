"""``OUT/results.jsonl``: one JSON line per finished run, and the transcripts beside it.

The parent process is the only writer: each row is appended and flushed to the system as its
run finishes, so a crash of the process or Ctrl-C loses only the runs in flight (a power cut
may lose the last rows too: a second run then does them again), and a second run of the same
grid skips every (task, model, repeat) already there.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

RESULTS = "results.jsonl"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or "_"


class ResultsFile:
    """The results of one output folder: rows read back, rows appended, transcripts saved."""

    def __init__(self, out: str | os.PathLike[str]) -> None:
        self.out = Path(out)
        self.path = self.out / RESULTS

    def rows(self) -> list[dict[str, Any]]:
        """Every row so far (a torn last line, from a crash, is skipped)."""
        if not self.path.exists():
            return []
        found = []
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(row, dict):
                found.append(row)
        return found

    def done(self) -> set[tuple[str, str, int]]:
        """The (task, model, repeat) of every finished run."""
        return {(r.get("task"), r.get("model"), r.get("repeat")) for r in self.rows()}

    def add(self, row: dict[str, Any]) -> dict[str, Any]:
        """Save ``row`` (its ``transcript_text`` goes to its own file, named in the row)."""
        self.out.mkdir(parents=True, exist_ok=True)
        row = dict(row)
        text = row.pop("transcript_text", "")
        if text:
            rel = Path("transcripts") / _slug(row["model"]) / (
                f"{_slug(row['task'])}-{int(row['repeat'])}.jsonl")  # fmt: skip
            target = self.out / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            row["transcript"] = rel.as_posix()
        else:
            row["transcript"] = None
        line = json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n"
        with self.path.open("a+b") as out:
            if out.tell() > 0:  # after a torn last line (a crash), start a line of our own
                out.seek(-1, os.SEEK_END)
                if out.read(1) != b"\n":
                    line = "\n" + line
            out.write(line.encode("utf-8"))
        return row
