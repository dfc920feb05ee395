"""Task folders and suites: what loads, and the errors that name the file and the field."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jupyter_operator.experiments import TaskError, load_suite, load_task
from jupyter_operator.experiments.tasks import materialize

SUITE = Path(__file__).resolve().parents[1] / "data" / "eval_suite"


def _task(folder: Path, toml: str, files: dict[str, str] | None = None) -> Path:
    (folder / "files").mkdir(parents=True)
    (folder / "task.toml").write_text(toml)
    for name, text in (files or {}).items():
        (folder / "files" / name).write_text(text)
    return folder


def test_a_suite_loads_its_tasks_with_their_files_as_bytes() -> None:
    tasks = load_suite(SUITE)
    assert [t.name for t in tasks] == ["edit", "hello"]
    edit, hello = tasks
    assert edit.files == {"notes.txt": b"status: draft\n"} and edit.policy == ("auto reads",
                                                                                "ask writes")
    assert hello.max_turns == 4 and hello.timeout_s == 60 and hello.policy == ("auto all",)
    assert set(hello.support) == {"check.py"}  # beside files/, never inside the workspace
    assert load_suite(SUITE / "hello") == [hello]  # a task folder is a suite of one


@pytest.mark.parametrize(("toml", "message"), [
    ('check = "true"', "field 'prompt': missing"),
    ('prompt = "x"\ncheck = "true"\ncolour = "red"', "field 'colour': unknown"),
    ('prompt = "x"\ncheck = "true"\nmax_turns = "8"', "field 'max_turns': must be int, not str"),
    ('prompt = "x"\ncheck = "true"\nmax_turns = 0', "field 'max_turns': must be between"),
    ('prompt = "x"\ncheck = "true"\ntimeout_s = true', "field 'timeout_s': must be int or float"),
    ('prompt = " "\ncheck = "true"', "field 'prompt': is empty"),
    ('prompt = "x"\ncheck = "true"\npolicy = ["frobnicate **"]', "field 'policy':"),
    ('prompt = "x"\ncheck = "true"\nextensions = [1]', "field 'extensions': must be a list of"),
    ('prompt = "x\ncheck = "true"', "not valid TOML"),
])  # fmt: skip
def test_bad_task_files_name_the_file_and_the_field(tmp_path: Path, toml: str,
                                                    message: str) -> None:  # fmt: skip
    folder = _task(tmp_path / "bad", toml)
    with pytest.raises(TaskError) as caught:
        load_task(folder)
    assert str(caught.value).startswith(str(folder / "task.toml") + ": ")
    assert message in str(caught.value)


def test_missing_pieces(tmp_path: Path) -> None:
    with pytest.raises(TaskError, match=r"task\.toml: missing"):
        load_task(tmp_path)
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "task.toml").write_text('prompt = "x"\ncheck = "true"')
    with pytest.raises(TaskError, match="files: missing"):
        load_task(tmp_path / "t")
    with pytest.raises(TaskError, match="no such suite folder"):
        load_suite(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(TaskError, match="no task folders"):
        load_suite(tmp_path / "empty")


def test_a_symlink_in_a_task_is_refused(tmp_path: Path) -> None:
    folder = _task(tmp_path / "t", 'prompt = "x"\ncheck = "true"')
    (folder / "files" / "link").symlink_to("/etc/passwd")
    with pytest.raises(TaskError, match="a symbolic link"):
        load_task(folder)


@pytest.mark.parametrize("where", ["files root", "folder in files", "task.toml", "check file",
                                   "folder beside files"])  # fmt: skip
def test_no_symlink_anywhere_in_a_task_is_followed(tmp_path: Path, where: str) -> None:
    """A link in a task would make an outside folder (or file) every run's workspace or check:
    refused wherever it is, the ``files`` root and ``task.toml`` included."""
    outside = tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    (outside / "secret.txt").write_text("the person's private notes")
    folder = _task(tmp_path / "t", 'prompt = "x"\ncheck = "true"', {"a.txt": "a"})
    if where == "files root":
        (folder / "files").rename(tmp_path / "real-files")
        (folder / "files").symlink_to(outside, target_is_directory=True)
    elif where == "folder in files":
        (folder / "files" / "more").symlink_to(outside, target_is_directory=True)
    elif where == "task.toml":
        (tmp_path / "real.toml").write_text('prompt = "x"\ncheck = "true"')
        (folder / "task.toml").unlink()
        (folder / "task.toml").symlink_to(tmp_path / "real.toml")
    elif where == "check file":
        (folder / "check.py").symlink_to(outside / "secret.txt")
    else:
        (folder / "scripts").symlink_to(outside, target_is_directory=True)
    with pytest.raises(TaskError, match="a symbolic link; a task holds plain files only"):
        load_task(folder)


def test_a_task_folder_that_is_a_link_in_a_suite_is_refused(tmp_path: Path) -> None:
    elsewhere = _task(tmp_path / "elsewhere", 'prompt = "x"\ncheck = "true"')
    suite = tmp_path / "suite"
    _task(suite / "real", 'prompt = "x"\ncheck = "true"')
    (suite / "linked").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(TaskError, match="linked: a symbolic link; a suite holds plain folders"):
        load_suite(suite)


def test_sizes_are_checked_before_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A sparse file far over the limit is refused by its size, never read whole first."""
    import tracemalloc

    from jupyter_operator.experiments import tasks

    monkeypatch.setattr(tasks, "MAX_TASK_BYTES", 1024 * 1024)
    folder = _task(tmp_path / "t", 'prompt = "x"\ncheck = "true"')
    with (folder / "files" / "huge.bin").open("wb") as sparse:
        sparse.truncate(64 * 1024 * 1024)
    tracemalloc.start()
    try:
        with pytest.raises(TaskError, match="the task's files exceed"):
            load_task(folder)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 1024 * 1024, f"{peak} bytes held: the file was read before its size"


def test_the_number_of_entries_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Empty folders count too: a task of countless folders is refused, not walked to the end."""
    from jupyter_operator.experiments import tasks

    monkeypatch.setattr(tasks, "MAX_TASK_FILES", 50)
    folder = _task(tmp_path / "t", 'prompt = "x"\ncheck = "true"')
    for n in range(60):
        (folder / "files" / f"d{n}").mkdir()
    with pytest.raises(TaskError, match="more than 50 files and folders"):
        load_task(folder)


def test_a_fifo_in_a_task_is_refused_not_waited_on(tmp_path: Path) -> None:
    folder = _task(tmp_path / "t", 'prompt = "x"\ncheck = "true"')
    os.mkfifo(folder / "files" / "pipe")
    with pytest.raises(TaskError, match="pipe: not a plain file"):
        load_task(folder)


def test_materialize_writes_only_inside(tmp_path: Path) -> None:
    materialize({"a/b.txt": b"x"}, tmp_path)
    assert (tmp_path / "a" / "b.txt").read_bytes() == b"x"
    for bad in ("../x", "/etc/x", "a/../../x", "a//b"):
        with pytest.raises(TaskError):
            materialize({bad: b"x"}, tmp_path / "in")
    assert not (tmp_path / "x").exists()
