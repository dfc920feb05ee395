"""The results viewer's data: a results folder as the grid of task x model cells and each run's
transcript as turns with the cards the person would have seen."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support.ipython_fixtures import recording_comms  # noqa: F401 (autouse: widgets built here are closed)
from support.replies import b64, block

from jupyter_operator.agent.transcript_records import CARD_DETAILS_LINES
from jupyter_operator.experiments import Experiment, ModelSpec, wilson
from jupyter_operator.experiments.results import RESULTS
from jupyter_operator.experiments.viewdata import grid, load_view, transcript_turns

SUITE = Path(__file__).resolve().parents[1] / "data" / "eval_suite"
WRITE = block("w1", "fs.write", path="hello.txt", content_b64=b64("hello\n"))
EDIT = block("e1", "fs.write", path="notes.txt", content_b64=b64("status: final\n"))
GOOD = ModelSpec.scripted("good", {"hello": ["I write it.\n" + WRITE, "Done."],
                                   "edit": [EDIT, "Done."]})  # fmt: skip
LAZY = ModelSpec.scripted("lazy", ["I am done."])


@pytest.fixture
def out(tmp_path: Path) -> Path:
    folder = tmp_path / "out"
    Experiment(SUITE, [GOOD, LAZY], repeats=2, out=folder).run(workers=0, progress=False)
    return folder


def _run(view: dict, task: str, model: str, repeat: int = 0) -> dict:
    (run,) = [r for r in view["runs"]
              if (r["task"], r["model"], r["repeat"]) == (task, model, repeat)]  # fmt: skip
    return run


def test_the_grid_has_a_cell_per_task_and_model_with_its_wilson_interval(out: Path) -> None:
    view = load_view(out)
    assert view["tasks"] == ["edit", "hello"] and view["models"] == ["good", "lazy"]
    assert len(view["runs"]) == 8 and view["refused"] == []
    cells = {(c["task"], c["model"]): c for c in view["cells"]}
    hello = cells["hello", "good"]
    assert (hello["runs"], hello["passed"], hello["rate"]) == (2, 2, 1.0)
    assert (hello["low"], hello["high"]) == wilson(2, 2)
    assert cells["hello", "lazy"]["rate"] == 0.0
    assert hello["tokens"] > 0 and hello["seconds"] > 0
    assert hello["cost"] is None  # unpriced
    assert sorted(view["runs"][i]["repeat"] for i in hello["run_ids"]) == [0, 1]
    failed = _run(view, "hello", "lazy")
    assert failed["outcome"] == "failed"
    assert "does not hold the line hello" in failed["check_output"]


def test_a_run_reads_as_turns_with_its_cards_decisions_and_results(out: Path) -> None:
    view = load_view(out)
    run = _run(view, "hello", "good")
    turns = run["view"]["turns"]
    assert run["missing"] is None and run["view"]["prompt"].startswith("Create hello.txt")
    assert [t["reply"] for t in turns] == ["I write it.\n" + WRITE, "Done."]
    (card,) = turns[0]["cards"]
    # the card as the widget drew it: the diff, who decided and by which rule
    assert card["action"] == "fs.write" and "+hello" in card["diff"]
    assert card["status"] == "applied" and card["decided_by"] == "rule"
    assert card["rule"] == "rule 1: auto all" and not card["needs_approval"]
    assert "entry_id" not in card  # nothing to undo in a saved view
    assert turns[0]["decisions"][0]["decided_by"] == "rule"
    # the results the model got back after the turn
    assert "OPERATOR_RESULT" in turns[0]["sent"][0] and "id: w1" in turns[0]["sent"][0]
    assert turns[0]["usage"]["prompt"] > 0 and turns[0]["usage"]["estimated"]
    assert run["view"]["stop"]["reason"] == "done"
    # each distinct system prompt is kept once (one per task here: its files and rules)
    assert len(view["systems"]) == 2
    assert {r["view"]["system"] for r in view["runs"] if r["task"] == "hello"} == {
        run["view"]["system"]
    }
    rejected = _run(view, "edit", "good")["view"]["turns"][0]["cards"][0]
    assert rejected["status"] == "rejected" and rejected["decided_by"] == "person"
    assert "nobody is watching" in rejected["summary"]


def test_a_long_result_is_cut_in_the_card_record(tmp_path: Path) -> None:
    task = tmp_path / "suite" / "long"
    (task / "files").mkdir(parents=True)
    (task / "files" / "long.txt").write_text("".join(f"line {n}\n" for n in range(500)))
    (task / "task.toml").write_text('prompt = "Read long.txt"\ncheck = "true"\n')
    read = block("r1", "fs.read", path="long.txt")
    model = ModelSpec.scripted("reader", [read, "Done."])
    Experiment(tmp_path / "suite", [model], out=tmp_path / "out").run(workers=0, progress=False)
    (run,) = load_view(tmp_path / "out")["runs"]
    (card,) = run["view"]["turns"][0]["cards"]
    assert card["details"].count("\n") == CARD_DETAILS_LINES
    assert card["details_more"] == len("".join(f"line {n}\n" for n in range(CARD_DETAILS_LINES,
                                                                            500)))  # fmt: skip


def test_a_diff_too_large_is_left_out_of_the_card_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("jupyter_operator.agent.transcript_records.CARD_DIFF_CHARS", 10)
    Experiment(SUITE, [GOOD], out=tmp_path / "out").run(workers=0, progress=False)
    run = _run(load_view(tmp_path / "out"), "hello", "good")
    (card,) = run["view"]["turns"][0]["cards"]
    assert card["diff"] is None and card["diff_omitted"] == len(
        "--- /dev/null\n+++ b/hello.txt\n@@ -0,0 +1 @@\n+hello\n"
    )


def test_a_transcript_named_outside_the_folder_is_not_read(out: Path, tmp_path: Path) -> None:
    """Rows read without verifying are anyone's text: their transcript's name is not followed
    out of the results folder, by ``..``, an absolute path or a link; a folder or a FIFO in
    it is not read either (nor waited on)."""
    secret = tmp_path / "secret.jsonl"
    secret.write_text(json.dumps({"type": "message", "turn": 1, "role": "assistant",
                                  "content": "SECRET"}) + "\n")  # fmt: skip
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "transcripts").mkdir()
    (copy / "transcripts" / "link.jsonl").symlink_to(secret)
    os.mkfifo(copy / "transcripts" / "fifo.jsonl")  # opened, it would wait for a writer
    rows = [json.loads(line) for line in (out / RESULTS).read_text().splitlines()][:5]
    names = [
        str(secret),
        "../secret.jsonl",
        "transcripts/link.jsonl",
        "transcripts",
        "transcripts/fifo.jsonl",
    ]
    for row, name in zip(rows, names, strict=True):
        row["transcript"] = name
    (copy / RESULTS).write_text("".join(json.dumps(r) + "\n" for r in rows))
    view = load_view(copy, verify=False)
    assert len(view["runs"]) == 5
    for run in view["runs"]:
        assert run["missing"] and "SECRET" not in json.dumps(run["view"])


def test_a_row_that_does_not_verify_is_named_not_drawn(out: Path, tmp_path: Path) -> None:
    copy = tmp_path / "forged"
    copy.mkdir()
    row = json.loads((out / RESULTS).read_text().splitlines()[0])
    row["passed"] = True
    (copy / RESULTS).write_text(json.dumps(row) + "\n")
    view = load_view(copy)
    assert view["runs"] == [] and view["refused"][0]["line"] == 1


def test_cost_per_run_and_per_turn_from_prices() -> None:
    rows = [{"task": "t", "model": "m", "repeat": r, "passed": r == 0, "tokens": 3000,
             "prompt_tokens": 2000, "completion_tokens": 1000, "stop_reason": reason,
             "wall_seconds": 2.0} for r, reason in enumerate(["done", "model_error"])]  # fmt: skip
    data = grid(rows, {"m": (1.0, 4.0)})
    (cell,) = data["cells"]
    assert [r["cost"] for r in data["runs"]] == [0.006, 0.006] and cell["cost"] == 0.012
    assert [r["outcome"] for r in data["runs"]] == ["passed", "error"] and cell["errors"] == 1
    turns = transcript_turns([{"type": "turn", "turn": 1, "usage": {
        "prompt_tokens": 1000, "completion_tokens": 500}}], (1.0, 4.0))["turns"]  # fmt: skip
    assert turns[0]["cost"] == 0.003


def test_a_folder_without_results_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"no results\.jsonl"):
        load_view(tmp_path)


def test_results_show_is_one_widget_that_sends_a_transcript_when_asked(out: Path) -> None:
    from jupyter_operator.experiments import load_results

    widget = load_results(out).show()
    grid = json.loads(widget.data_json)
    assert len(grid["runs"]) == 8 and "view" not in grid["runs"][0]  # transcripts on request
    (run,) = [
        r for r in grid["runs"] if (r["task"], r["model"], r["repeat"]) == ("hello", "good", 0)
    ]
    sent: list[dict] = []
    widget.send = sent.append  # type: ignore[method-assign]
    widget._on_message(widget, {"kind": "view", "request": 7, "id": run["id"]}, [])
    assert (
        sent[0]["request"] == 7 and sent[0]["view"]["turns"][0]["cards"][0]["action"] == "fs.write"
    )
    for wrong in (-1, 99, "0", True, None):
        widget._on_message(widget, {"kind": "view", "request": 8, "id": wrong}, [])
        assert sent[-1] == {"kind": "view", "request": 8, "view": None}
    widget._on_message(widget, {"kind": "module"}, [])  # the cards' module, as the card widgets
    assert sent[-1]["kind"] == "module" and sent[-1]["source"]


def test_results_of_a_run_show_their_transcripts(tmp_path: Path) -> None:
    results = Experiment(SUITE, [GOOD], out=tmp_path / "out").run(workers=0, progress=False)
    assert results.out == tmp_path / "out"
    widget = results.show()
    assert all(view["turns"] for view in widget._views)


def test_the_view_command_writes_one_page_into_the_folder(
    out: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from jupyter_operator.cli import main

    assert main(["view", str(out)]) == 0
    page = (out / "results.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "Content-Security-Policy" in page
    assert str(out / "results.html") in capsys.readouterr().out
    assert 'id="jpo-run-7"' in page  # every run's transcript is in the file
    # no results here, a bad price: exit status 2 and one line that says why
    assert main(["view", str(tmp_path / "empty")]) == 2
    assert "no results.jsonl here" in capsys.readouterr().err
    assert main(["view", str(out), "--price", "good=abc"]) == 2
    assert "jupyter-operator view:" in capsys.readouterr().err
