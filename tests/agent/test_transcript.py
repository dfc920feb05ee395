"""Transcripts: one JSONL file per run, and load_runs to compare runs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from support.replies import b64, block

from jupyter_operator.agent import Agent, ReplayModel, load_runs
from jupyter_operator.agent.transcript import default_directory
from jupyter_operator.engine import Operator
from jupyter_operator.protocol import Result, parse_results


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


def test_default_folder_is_in_the_journal_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("JUPYTER_OPERATOR_TRANSCRIPT_DIR")
    monkeypatch.setenv("JUPYTER_OPERATOR_JOURNAL_DIR", str(tmp_path / "data" / "journal"))
    assert default_directory() == tmp_path / "data" / "journal" / "runs"
    # A host's journal folder (the command line's --journal-dir) takes the transcripts along.
    assert default_directory(tmp_path / "j") == tmp_path / "j" / "runs"
    agent = Agent(ReplayModel(["done"]), root=tmp_path, journal_dir=tmp_path / "j")
    asyncio.run(agent.run("t"))
    assert agent.transcript_path is not None
    assert agent.transcript_path.parent == tmp_path / "j" / "runs"


def snoop(agent: Agent, folder: str | None = None) -> list[Result]:
    """Run ``agent`` with a model that lists, reads, overwrites and deletes its own transcript
    (and searches the workspace for it); the results the model got."""
    results: list[Result] = []

    def model(last: str, turn: int) -> str | None:
        if turn > 1:
            results.extend(parse_results(last))
            return None
        path = agent.transcript_path
        assert path is not None
        rel = path.relative_to(agent.root).as_posix()
        return "\n".join([
            block("l1", "fs.list", path=folder or rel.rsplit("/", 1)[0]),
            block("r1", "fs.read", path=rel),
            block("s1", "fs.searchTree", path=".", query="task"),
            block("w1", "fs.write", path=rel, content_b64=b64("{}")),
            block("d1", "fs.delete", path=rel),
        ])  # fmt: skip

    agent.model = ReplayModel(model)
    agent.decide = lambda run: run.approve_all()
    asyncio.run(agent.run("look at earlier runs"))
    return results


def test_transcripts_in_a_home_workspace_are_out_of_the_models_reach(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    (home / "project").mkdir(parents=True)
    (home / "project" / "notes.txt").write_text("the task list\n")
    for name in ("JUPYTER_OPERATOR_JOURNAL_DIR", "JUPYTER_OPERATOR_TRANSCRIPT_DIR",
                 "JUPYTER_DATA_DIR", "XDG_DATA_HOME", "JUPYTER_PLATFORM_DIRS"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    agent = Agent(root=home)
    results = snoop(agent)
    transcript = agent.transcript_path
    assert transcript is not None and home in transcript.parents  # the default folder
    by_id = {r.id: r for r in results}
    for rid in ("l1", "r1", "w1", "d1"):
        assert not by_id[rid].ok and by_id[rid].code == "ERR_PROTECTED_PATH", by_id[rid]
    assert "project/notes.txt" in (by_id["s1"].details or "")  # the search ran ...
    assert "runs" not in (by_id["s1"].details or "")  # ... and never entered the transcripts
    assert json.loads(transcript.read_text().splitlines()[0])["type"] == "start"


def test_a_configured_folder_is_reserved_for_a_hosts_session_too(
    workspace: Path, tmp_path: Path
) -> None:
    folder = workspace / "my-runs"  # configured inside the workspace, of all places
    operator = Operator(workspace, journal_dir=tmp_path / "journal")
    agent = Agent(root=workspace, transcripts=folder, operator_factory=lambda: operator)
    results = snoop(agent, folder="my-runs")
    operator.close()
    assert [(r.id, r.ok) for r in results if r.id != "s1"] == [
        ("l1", False), ("r1", False), ("w1", False), ("d1", False),
    ]  # fmt: skip
    assert all(r.code == "ERR_PROTECTED_PATH" for r in results if r.id != "s1")
    assert len(list(folder.glob("*.jsonl"))) == 1


def test_the_workspace_root_cannot_be_the_transcripts_folder(workspace: Path) -> None:
    with pytest.raises(ValueError, match="transcripts folder"):
        Agent(root=workspace, transcripts=workspace / ".")


def test_a_torn_last_line_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text('{"type": "start", "task": "t", "model": "m"}\n{"type": "sto')
    (row,) = load_runs(path, as_frame=False)
    assert row["task"] == "t" and row["stop_reason"] is None


def test_transcripts_are_private_to_their_owner(workspace: Path, tmp_path: Path) -> None:
    path = scripted_run(workspace, tmp_path / "private", reject=True)
    assert path.stat().st_mode & 0o077 == 0
    assert (tmp_path / "private").stat().st_mode & 0o077 == 0


def test_a_scripted_model_s_tokens_are_estimates_and_are_not_priced(
    workspace: Path, tmp_path: Path
) -> None:
    from jupyter_operator.experiments.analysis import Results, cost

    [row] = load_runs(scripted_run(workspace, tmp_path / "runs", reject=False), as_frame=False)
    assert row["tokens"] > 0 and row.get("tokens_estimated") is True, "estimates are not labelled"
    prices = {"m-approve": 2.0}
    assert cost(row, prices) is None, "a cost was computed from estimated token counts"
    reported = dict(row, tokens_estimated=False, prompt_tokens=1_000_000, completion_tokens=0)
    assert cost(reported, prices) == 2.0
    assert Results([row], prices).rows[0]["cost"] is None


def test_a_card_record_leaves_out_a_cell_run_s_large_outputs() -> None:
    """A plot's image in a cell run's outputs is not copied into every transcript's card: it
    is left out and counted, and the item's own outcome keeps it."""
    from types import SimpleNamespace

    from jupyter_operator.agent.transcript_records import CARD_OUTPUTS_CHARS, cards

    image = {"output_type": "display_data", "data": {"image/png": "A" * CARD_OUTPUTS_CHARS}}
    small = {"output_type": "stream", "name": "stdout", "text": "4.0\n"}
    views = [{"id": str(n), "action": "nb.runCell", "details": None, "diff": None,
              "execution": {"outcome": {"status": "ok", "outputs": outputs}}}
             for n, outputs in enumerate([[small, image], [small]])]  # fmt: skip
    # to_dict makes a new dict each time (what it holds may be shared, as an outcome's list)
    run = SimpleNamespace(items=[SimpleNamespace(to_dict=lambda v=v: dict(v)) for v in views])
    big, kept = cards(run)  # type: ignore[arg-type]
    assert big["execution"]["outcome"]["outputs"] == []
    assert big["execution"]["outcome"]["outputs_omitted"] > CARD_OUTPUTS_CHARS
    assert views[0]["execution"]["outcome"]["outputs"] == [small, image]
    assert kept["execution"]["outcome"]["outputs"] == [small]
