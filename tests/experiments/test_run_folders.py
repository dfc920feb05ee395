"""Each run's folder: made fresh from the task's bytes, and removed off the run's path (a thread
of the worker removes it while the next run goes on), never left behind once a grid returns."""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path

import pytest
from support.replies import b64, block

from jupyter_operator.experiments import Experiment, ModelSpec, load_suite, single
from jupyter_operator.experiments.single import RunSpec, run_one, settle

SUITE = Path(__file__).resolve().parents[1] / "data" / "eval_suite"
WRITE = block("w1", "fs.write", path="hello.txt", content_b64=b64("hello\n"))
GOOD = ModelSpec.scripted("good", {"hello": [WRITE, "Done."]})
PREFIX = "jupyter-operator-eval-"


@pytest.fixture
def temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temporary folder of this process and of the workers it spawns."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", None)  # read TMPDIR again
    return folder


def run_folders(temporary: Path) -> list[Path]:
    return sorted(temporary.glob(PREFIX + "*"))


def test_a_run_returns_before_its_folder_is_removed(
    temporary: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = threading.Event()
    removing = tempfile.TemporaryDirectory.cleanup

    def held(self: tempfile.TemporaryDirectory[str]) -> None:
        gate.wait(timeout=10)
        removing(self)

    monkeypatch.setattr(tempfile.TemporaryDirectory, "cleanup", held)
    task = load_suite(SUITE)[1]
    row = run_one(RunSpec(task, GOOD, 0))
    assert row["passed"]
    assert len(run_folders(temporary)) == 1, "the run waited for its folder's removal"
    gate.set()
    settle()
    assert run_folders(temporary) == [], "the finished run's folder was not removed"


def test_the_next_run_starts_in_a_fresh_folder_while_the_last_one_is_removed(
    temporary: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder waiting for removal is never handed to another run: each run makes its own."""
    gate = threading.Event()
    removing = tempfile.TemporaryDirectory.cleanup
    monkeypatch.setattr(tempfile.TemporaryDirectory, "cleanup",
                        lambda self: (gate.wait(timeout=10), removing(self)))  # fmt: skip
    probe = block("p1", "fs.stat", path="hello.txt")
    model = ModelSpec.scripted("probe", {"hello": [probe, WRITE, "Done."]})
    task = load_suite(SUITE)[1]
    rows = [run_one(RunSpec(task, model, repeat)) for repeat in range(3)]
    assert [r["passed"] for r in rows] == [True] * 3
    assert len(run_folders(temporary)) == 3
    # each run began without what the one before it wrote (its folder still on disk)
    assert all("ERR_NOT_FOUND" in r["transcript_text"] for r in rows)
    gate.set()
    settle()
    assert run_folders(temporary) == []


@pytest.mark.parametrize("workers", [0, 2])
def test_a_grid_leaves_no_run_folder_behind(temporary: Path, tmp_path: Path,
                                            workers: int) -> None:  # fmt: skip
    experiment = Experiment([load_suite(SUITE)[1]], [GOOD], repeats=3, out=tmp_path / "out")
    results = experiment.run(workers=workers, progress=False)
    assert [r["passed"] for r in results.rows] == [True] * 3
    assert run_folders(temporary) == [], "a run's folder outlived the grid"


def test_a_forked_child_starts_its_own_remover() -> None:
    discarder = single._Discarder()
    discarder._start()
    discarder._forked()  # what a fork's child runs
    assert discarder._queue is None  # the parent's thread is not the child's: a new one starts
    folder = tempfile.TemporaryDirectory(prefix=PREFIX)
    discarder.discard(folder)
    discarder.settle()
    assert not Path(folder.name).exists()
