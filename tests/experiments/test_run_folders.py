"""Each run's folder: made fresh from the task's bytes, where ``scratch_parent`` says (the
person's ``$JUPYTER_OPERATOR_EVAL_SCRATCH``, else a memory file system with room, else the
temporary folder), and removed off the run's path (a thread of the worker removes it while the
next run goes on), never left behind once a grid returns."""

from __future__ import annotations

import dataclasses
import os
import re
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from support.replies import b64, block
from support.sandboxing import sandbox_here

from jupyter_operator.experiments import Experiment, ModelSpec, Task, load_suite, single
from jupyter_operator.experiments.single import (
    SCRATCH_ENV,
    RunSpec,
    ScratchError,
    run_one,
    scratch_parent,
    settle,
)

SUITE = Path(__file__).resolve().parents[1] / "data" / "eval_suite"
WRITE = block("w1", "fs.write", path="hello.txt", content_b64=b64("hello\n"))
GOOD = ModelSpec.scripted("good", {"hello": [WRITE, "Done."]})
PREFIX = "jupyter-operator-eval-"


MB = 1024 * 1024


@pytest.fixture
def temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The folder where the runs of this process and of the workers it spawns make theirs."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setenv(SCRATCH_ENV, str(folder))
    return folder


@pytest.fixture
def memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A stand-in for the memory file system (a folder), probed afresh; no setting."""
    folder = tmp_path / "shm"
    folder.mkdir()
    monkeypatch.delenv(SCRATCH_ENV, raising=False)
    monkeypatch.setattr(single, "MEMORY_FS", str(folder))
    single._memory_fs.cache_clear()
    yield folder
    single._memory_fs.cache_clear()


def free_space(monkeypatch: pytest.MonkeyPatch, megabytes: int, flags: int = 0) -> None:
    """``os.statvfs`` of the memory file system says ``megabytes`` free, mounted with ``flags``."""
    real = os.statvfs

    def statvfs(path: str) -> object:
        if str(path) != single.MEMORY_FS:
            return real(path)
        return SimpleNamespace(f_frsize=4096, f_bavail=megabytes * MB // 4096, f_flag=flags)

    monkeypatch.setattr(os, "statvfs", statvfs)


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


# -- where the folders are made ------------------------------------------------------------------


def showing_its_folder() -> Task:
    """The hello task, whose check says first where the task's files are (``$TASK_DIR``, the
    run's folder's ``task``: its host path, as the sandbox binds it at that path)."""
    check = 'echo "$TASK_DIR" && python3 "$TASK_DIR/check.py"'
    return dataclasses.replace(load_suite(SUITE)[1], check=check)


def run_folder(row: dict[str, Any]) -> Path:
    """The folder a run of ``showing_its_folder`` was made in, from its check's output."""
    task_dir = Path(row["check_output"].splitlines()[0])
    assert task_dir.name == "task" and task_dir.parent.name.startswith(PREFIX), task_dir
    return task_dir.parent


def test_the_setting_wins_over_a_memory_file_system_with_room(
    memory: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    free_space(monkeypatch, 4096)
    assert scratch_parent() == str(memory)  # taken without the setting
    chosen = tmp_path / "chosen"
    chosen.mkdir()
    monkeypatch.setenv(SCRATCH_ENV, str(chosen))
    assert scratch_parent() == str(chosen)
    row = run_one(RunSpec(showing_its_folder(), GOOD, 0))
    assert row["passed"], row["check_output"]
    assert run_folder(row).parent == chosen, row["check_output"]
    settle()


@pytest.mark.parametrize("what", ["missing", "a file"])
def test_a_setting_that_names_no_folder_is_refused_before_any_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, what: str
) -> None:
    named = tmp_path / "nowhere"
    if what == "a file":
        named.write_text("")
    monkeypatch.setenv(SCRATCH_ENV, str(named))
    said = re.escape(f"${SCRATCH_ENV} is '{named}', which is not an existing folder")
    with pytest.raises(ScratchError, match=said):
        scratch_parent()
    with pytest.raises(ScratchError):
        run_one(RunSpec(load_suite(SUITE)[1], GOOD, 0))
    experiment = Experiment([load_suite(SUITE)[1]], [GOOD], out=tmp_path / "out")
    with pytest.raises(ScratchError):
        experiment.run(workers=0, progress=False)
    assert not (tmp_path / "out" / "results.jsonl").exists(), "a run started"


@pytest.mark.parametrize(("free", "task_mb", "flags", "taken"), [
    (1024, 1, 0, True),
    (64, 1, 0, False),  # Docker's default /dev/shm
    (511, 0, 0, False),  # under SCRATCH_MIN_FREE
    (1024, 100, 0, True),  # 8 x 100 MB fits
    (1024, 200, 0, False),  # 8 x 200 MB does not
    (1024, 1, os.ST_RDONLY, False),
    (1024, 1, getattr(os, "ST_NOEXEC", 0), False),  # a check could not run a script of the copy
])  # fmt: skip
def test_a_memory_file_system_without_room_falls_back_to_the_temporary_folder(
    memory: Path, monkeypatch: pytest.MonkeyPatch, free: int, task_mb: int, flags: int,
    taken: bool,
) -> None:  # fmt: skip
    free_space(monkeypatch, free, flags)
    assert scratch_parent(task_mb * MB) == (str(memory) if taken else None)


def test_the_memory_file_system_is_probed_once_and_its_room_each_run(
    memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    free_space(monkeypatch, 1024)
    assert scratch_parent() == str(memory)
    free_space(monkeypatch, 64)  # the runs filled it
    assert scratch_parent() is None
    free_space(monkeypatch, 1024, os.ST_RDONLY)  # a mount's flags are not asked again
    assert scratch_parent() == str(memory)


@pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="no /dev/shm (not Linux)")
def test_a_run_on_dev_shm_passes_its_sandboxed_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """bubblewrap mounts a fresh ``/dev`` in the sandbox: the task's files, bound at their path
    under ``/dev/shm``, must be bound after it, not hidden by it."""
    monkeypatch.delenv(SCRATCH_ENV, raising=False)
    single._memory_fs.cache_clear()
    if scratch_parent() != "/dev/shm":
        pytest.skip("/dev/shm is here but not usable (read-only, noexec or under 512 MB free)")
    row = run_one(RunSpec(showing_its_folder(), GOOD, 0))
    folder = run_folder(row)
    assert folder.parent == Path("/dev/shm"), row["check_output"]
    assert row["passed"] and row["check_exit"] == 0, row["check_output"]
    assert row["check_sandboxed"] == sandbox_here()
    settle()
    assert not folder.exists(), "the run's folder was left on /dev/shm"
