"""Run transcripts (one JSONL file per run) and ``load_runs`` to compare runs.

A transcript is the record of an experiment: every message sent and received, every command
with its decision (and the person's reason), every result, timings, token usage, the model's
name and its endpoint's host. Never a credential: nothing in the loop ever holds the key.
The default folder is ``runs/`` in the undo journal's folder, and wherever the folder is (the
default, ``$JUPYTER_OPERATOR_TRANSCRIPT_DIR``, a host's setting) the run's workspace reserves it
by its real location, as it does the journal: a model can never list, read or rewrite a
transcript, not even when the workspace is the home folder that holds them.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ENV_DIRECTORY = "JUPYTER_OPERATOR_TRANSCRIPT_DIR"


def default_directory(journal_dir: str | os.PathLike[str] | None = None) -> Path:
    """``$JUPYTER_OPERATOR_TRANSCRIPT_DIR``, else ``runs/`` in the undo journal's folder
    (``journal_dir`` when the host gives one, else the default journal folder)."""
    configured = os.environ.get(ENV_DIRECTORY)
    if configured:
        return Path(configured)
    if journal_dir is not None:
        return Path(journal_dir) / "runs"
    from ..workspace.journal import default_directory as journal_directory

    return journal_directory() / "runs"


class Transcript:
    """The records of one run, kept in memory and appended to a JSONL file as they happen.

    ``directory=None`` keeps the records in memory only. Every record has ``type``, ``t``
    (seconds since the run started) and the fields of its type.
    """

    def __init__(
        self, directory: str | os.PathLike[str] | None, *, run_id: str | None = None
    ) -> None:
        self.run_id = run_id or time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]
        self.records: list[dict[str, Any]] = []
        self.path: Path | None = None
        self._started = time.monotonic()
        self._file: Any = None
        if directory is not None:
            folder = Path(directory)
            # Transcripts hold file contents the model read: readable by their owner only.
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            self.path = folder / f"{self.run_id}.jsonl"
            # Line-buffered: a run cut short (a crash, a killed kernel) keeps what happened.
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            self._file = open(fd, "a", encoding="utf-8", buffering=1)  # noqa: SIM115

    def add(self, record_type: str, /, **fields: Any) -> dict[str, Any]:
        """Append one record (JSON-ready values only)."""
        record = {"type": record_type, "t": round(time.monotonic() - self._started, 4), **fields}
        self.records.append(record)
        if self._file is not None:
            self._file.write(json.dumps(record, ensure_ascii=False) + "\n")
        return record

    def reopen(self) -> None:
        """Append to the same file again (a run that goes on after the person's answer)."""
        if self.path is not None and self._file is None:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
            self._file = open(fd, "a", encoding="utf-8", buffering=1)  # noqa: SIM115

    def close(self) -> None:
        """Close the file (the records stay available in memory)."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def __repr__(self) -> str:
        where = self.path.name if self.path else "memory"
        return f"<Transcript {self.run_id} records={len(self.records)} in {where}>"


def summarize(records: Iterable[dict[str, Any]], *, source: str | None = None) -> dict[str, Any]:
    """One row of comparison figures for the records of one run."""
    start: dict[str, Any] = {}
    stop: dict[str, Any] = {}
    commands = valid = approvals = rejections = denied = 0
    prompt = completion = turns = 0
    estimated = False  # some token counts were estimated (an offline model), not reported
    codes: Counter[str] = Counter()
    for record in records:
        kind = record.get("type")
        if kind == "start":
            start = record
        elif kind == "stop":
            stop = record
        elif kind == "turn":
            turns = max(turns, int(record.get("turn", 0)))
            usage = record.get("usage") or {}
            prompt += int(usage.get("prompt_tokens", 0))
            completion += int(usage.get("completion_tokens", 0))
            estimated = estimated or bool(usage.get("estimated"))
        elif kind == "command":
            commands += 1
            valid += record.get("status") != "error"
            if record.get("error_code"):
                codes[record["error_code"]] += 1
        elif kind == "decision":
            outcome = record.get("outcome")
            approvals += outcome == "applied"
            rejections += outcome == "rejected"
            denied += outcome == "denied"
    return {
        "run_id": start.get("run_id"),
        "source": source,
        "task": start.get("task"),
        "model": start.get("model"),
        "endpoint": start.get("endpoint"),
        "policy": start.get("policy"),
        "turns": turns,
        "commands": commands,
        "valid_rate": round(valid / commands, 3) if commands else None,
        "error_codes": dict(codes),
        "approvals": approvals,
        "rejections": rejections,
        "denied": denied,
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "tokens": prompt + completion,
        "tokens_estimated": estimated,
        "wall_seconds": stop.get("wall_seconds"),
        "stop_reason": stop.get("reason"),
    }


def read_records(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The records of one transcript file (a torn last line, from a crash, is skipped)."""
    records: list[dict[str, Any]] = []
    with Path(path).open(encoding="utf-8") as lines:
        for line in lines:
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return records


def load_runs(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    *,
    as_frame: bool | None = None,
) -> Any:
    """One record per run for the transcripts at ``paths`` (files or folders of ``*.jsonl``).

    Each record: run_id, task, model, endpoint, policy, turns, commands, valid_rate (share of
    commands that were valid), error_codes (code -> count), approvals, rejections, denied,
    prompt/completion/total tokens, tokens_estimated (True when an offline model's counts were
    estimated rather than reported), wall_seconds and stop_reason. Returns a pandas DataFrame
    when pandas is installed (``as_frame=None``) or asked for (``True``), else a list of dicts.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files: list[Path] = []
    for entry in paths:
        path = Path(entry)
        files.extend(sorted(path.glob("*.jsonl")) if path.is_dir() else [path])
    rows = [summarize(read_records(f), source=f.name) for f in files]
    if as_frame is False:
        return rows
    try:
        import pandas as pd
    except ImportError:
        if as_frame:
            raise
        return rows
    return pd.DataFrame(rows)
