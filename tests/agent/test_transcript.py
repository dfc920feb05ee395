"""Transcripts: one JSONL file per run, and load_runs to compare runs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from replies import b64, block

from jupyter_operator.agent import Agent, ReplayModel, load_runs
from jupyter_operator.agent.transcript import default_directory


def scripted_run(root: Path, folder: Path, reject: bool) -> Path:
    replies = [
        block("r1", "fs.read", path="notes.txt") + "\n" + block("bad", "fs.bogus", path="x"),
        block("w1", "fs.write", path="x.txt", content_b64=b64("x")),
        "done",
    ]

    def decide(run):  # type: ignore[no-untyped-def]
        if reject:
            run.reject_all(reason="not now")
        else:
            run.approve_all()

    agent = Agent(
        ReplayModel(replies, name="m-reject" if reject else "m-approve"),
        root=root,
        decide=decide,
        transcripts=folder,
    )
    asyncio.run(agent.run("make x"))
    assert agent.transcript_path is not None
    return agent.transcript_path


def test_records_and_comparison(workspace: Path, tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    first = scripted_run(workspace, folder, reject=False)
    (workspace / "x.txt").unlink()
    second = scripted_run(workspace, folder, reject=True)
    kinds = {json.loads(line)["type"] for line in first.read_text().splitlines()}
    assert {"start", "message", "command", "decision", "result", "turn", "stop"} <= kinds
    rows = load_runs(folder, as_frame=False)
    by_model = {row["model"]: row for row in rows}
    approve, reject = by_model["m-approve"], by_model["m-reject"]
    assert approve["task"] == "make x" and approve["turns"] == 3
    assert approve["commands"] == 3 and approve["valid_rate"] == pytest.approx(0.667, abs=0.001)
    assert approve["error_codes"] == {"ERR_UNKNOWN_ACTION": 1}
    assert (approve["approvals"], approve["rejections"]) == (1, 0)
    assert (reject["approvals"], reject["rejections"]) == (0, 1)
    assert approve["stop_reason"] == "done" and approve["tokens"] > 0
    assert approve["wall_seconds"] is not None
    assert [r["source"] for r in load_runs([first, second], as_frame=False)] == [
        first.name,
        second.name,
    ]


def test_a_dataframe_when_pandas_is_installed(workspace: Path, tmp_path: Path) -> None:
    pd = pytest.importorskip(
        "pandas", reason="pandas is optional; load_runs returns dicts without it"
    )
    scripted_run(workspace, tmp_path / "runs", reject=True)
    frame = load_runs(tmp_path / "runs")
    assert isinstance(frame, pd.DataFrame) and list(frame["rejections"]) == [1]


def test_default_folder_is_beside_the_journal_outside_the_workspace(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("JUPYTER_OPERATOR_TRANSCRIPT_DIR")
    monkeypatch.setenv("JUPYTER_OPERATOR_JOURNAL_DIR", str(tmp_path / "data" / "journal"))
    assert default_directory() == tmp_path / "data" / "runs"


def test_a_torn_last_line_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text('{"type": "start", "task": "t", "model": "m"}\n{"type": "sto')
    (row,) = load_runs(path, as_frame=False)
    assert row["task"] == "t" and row["stop_reason"] is None


def test_transcripts_are_private_to_their_owner(workspace: Path, tmp_path: Path) -> None:
    path = scripted_run(workspace, tmp_path / "private", reject=True)
    assert path.stat().st_mode & 0o077 == 0
    assert (tmp_path / "private").stat().st_mode & 0o077 == 0
