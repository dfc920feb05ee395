"""Tasks and suites: a task is a folder, a suite a folder of task folders.

A task folder holds ``task.toml`` (``prompt``; ``check``, a shell command run in the run's copy of
the files once the agent has stopped, exit 0 meaning passed; optional ``max_turns``, ``policy``
rules, the budgets ``max_seconds`` (or its older name ``timeout_s``), ``max_tokens`` and
``max_cost``, ``extensions``, ``measures``, ``dialect``: how the model asks for work, ``operator``
by default, ``json``, ``commands`` or ``auto``), ``files/`` (the starting workspace) and
whatever the check needs beside them (``check.py``: never inside the workspace, so a model cannot
read or rewrite its own check). A task is loaded into bytes once, so a run on another machine
(a Dask worker) needs only what it is sent.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

#: The suite shipped with the package (``jupyter-operator eval --suite builtin``).
BUILTIN = Path(__file__).resolve().parent / "suites" / "builtin"
#: A task's files, all together (the runs of a grid each get a copy of them).
MAX_TASK_BYTES = 10 * 1024 * 1024
#: A task's files and folders, counted together (a walk of a million empty folders stops).
MAX_TASK_FILES = 10_000
#: ``task.toml`` itself.
MAX_SETTINGS_BYTES = 1024 * 1024
O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
#: The rules of a task that names none: its copy is disposable, so everything runs.
DEFAULT_POLICY = ("auto all",)

_FIELDS: dict[str, tuple[type, ...]] = {
    "prompt": (str,), "check": (str,), "max_turns": (int,), "policy": (list,),
    "timeout_s": (int, float), "extensions": (list,), "measures": (str,),
    "max_seconds": (int, float), "max_tokens": (int,), "max_cost": (int, float),
    "dialect": (str,),
}  # fmt: skip
#: The longest time budget a task may give a run.
MAX_TASK_SECONDS = 86_400


class TaskError(ValueError):
    """A task file that cannot be used: the message names the file and the field."""


@dataclass(frozen=True)
class Task:
    """One task, loaded: its settings and its files as bytes (relative ``/`` paths)."""

    name: str
    prompt: str
    check: str
    max_turns: int = 8
    policy: tuple[str, ...] = DEFAULT_POLICY
    timeout_s: float = 300.0
    extensions: tuple[str, ...] = ()
    measures: str = ""
    #: The run's time budget (``timeout_s`` is its older name; None: ``timeout_s``).
    max_seconds: float | None = None
    #: The run's token budget (the endpoint's reported usage, all replies).
    max_tokens: int | None = None
    #: The run's cost budget in USD (from the model's price: a run of an unpriced model with
    #: it is refused before the grid starts).
    max_cost: float | None = None
    #: How the model asks for work (``engine.plan``'s dialect for each reply; the system
    #: prompt describes it): ``operator``, ``json``, ``commands`` or ``auto``.
    dialect: str = "operator"
    #: Whether ``task.toml`` names the dialect: a grid of several dialects then runs the task
    #: in that one only (a grid of one dialect runs every task in it).
    dialect_pinned: bool = False
    #: The starting workspace (``files/``).
    files: dict[str, bytes] = field(default_factory=dict, repr=False)
    #: Everything else in the folder (the check's scripts, ``reference.json``).
    support: dict[str, bytes] = field(default_factory=dict, repr=False)

    @property
    def time_budget(self) -> float:
        """The run's time budget in seconds: ``max_seconds``, else ``timeout_s``."""
        return self.timeout_s if self.max_seconds is None else self.max_seconds

    @property
    def reference(self) -> list[str] | None:
        """The replies of a reference solution (``reference.json``), if the task ships one."""
        import json

        raw = self.support.get("reference.json")
        return None if raw is None else list(json.loads(raw))


def _read_plain(path: Path, budget: list[int], where: Path) -> bytes:
    """The bytes of the plain file ``path``: its size is checked before a byte is read, and a
    link or a special file (a FIFO, a device) is refused, not followed or waited on.
    ``budget`` is the task's ``[bytes read, entries seen]`` so far."""
    try:
        fd = os.open(path, os.O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise TaskError(f"{path}: a symbolic link; a task holds plain files only") from None
        raise TaskError(f"{path}: cannot be read ({os.strerror(exc.errno or 5)})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise TaskError(f"{path}: not a plain file; a task holds plain files only")
        left = MAX_TASK_BYTES - budget[0]
        if info.st_size > left:  # the size, not the bytes: a sparse 1 GiB file is never read
            raise TaskError(f"{where}: the task's files exceed {MAX_TASK_BYTES} bytes")
        with os.fdopen(fd, "rb", closefd=False) as file:
            data = file.read(left + 1)  # a file that grew since the stat still stops here
    finally:
        os.close(fd)
    budget[0] += len(data)
    if budget[0] > MAX_TASK_BYTES:
        raise TaskError(f"{where}: the task's files exceed {MAX_TASK_BYTES} bytes")
    return data


def _read_tree(folder: Path, skip: str | None, budget: list[int], where: Path) -> dict[str, bytes]:
    """Every plain file below ``folder`` by its relative ``/`` path, never following a link:
    a link anywhere (a file, a folder) is refused, so nothing outside the task is read."""
    found: dict[str, bytes] = {}
    stack = [(folder, "")]
    while stack:
        current, prefix = stack.pop()
        with os.scandir(current) as scan:
            entries = sorted(scan, key=lambda e: e.name)
        for entry in entries:
            rel = prefix + entry.name
            if skip is not None and rel == skip:
                continue
            budget[1] += 1
            if budget[1] > MAX_TASK_FILES:
                raise TaskError(f"{where}: the task holds more than {MAX_TASK_FILES} files and "
                                "folders")  # fmt: skip
            path = Path(entry.path)
            if entry.is_symlink():
                raise TaskError(f"{path}: a symbolic link; a task holds plain files only")
            if entry.is_dir(follow_symlinks=False):
                stack.append((path, rel + "/"))
            elif entry.is_file(follow_symlinks=False):
                found[rel] = _read_plain(path, budget, where)
            else:
                raise TaskError(f"{path}: not a plain file; a task holds plain files only")
    return dict(sorted(found.items()))


def _plain_folder(path: Path, what: str) -> None:
    """Refuse ``path`` unless it is a folder itself (a link to one is refused, not followed)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise TaskError(f"{path}: missing ({what})") from None
    if stat.S_ISLNK(info.st_mode):
        raise TaskError(f"{path}: a symbolic link; a task holds plain files only")
    if not stat.S_ISDIR(info.st_mode):
        raise TaskError(f"{path}: not a folder ({what})")


def _field(settings: dict[str, Any], name: str, where: Path) -> Any:
    value = settings[name]
    kinds = _FIELDS[name]
    if not isinstance(value, kinds) or isinstance(value, bool):
        wanted = " or ".join(kind.__name__ for kind in kinds)
        raise TaskError(f"{where}: field '{name}': must be {wanted}, not {type(value).__name__}")
    if isinstance(value, list) and not all(isinstance(v, str) for v in value):
        raise TaskError(f"{where}: field '{name}': must be a list of strings")
    if isinstance(value, str) and not value.strip() and name in ("prompt", "check"):
        raise TaskError(f"{where}: field '{name}': is empty")
    if name == "max_turns" and not 1 <= value <= 200:
        raise TaskError(f"{where}: field 'max_turns': must be between 1 and 200")
    if name in ("timeout_s", "max_seconds") and not 0 < value <= MAX_TASK_SECONDS:
        raise TaskError(f"{where}: field '{name}': must be between 0 and {MAX_TASK_SECONDS} "
                        "seconds")  # fmt: skip
    if name in ("max_tokens", "max_cost") and not (0 < value < float("inf")):
        raise TaskError(f"{where}: field '{name}': must be more than 0")
    if name == "dialect":
        from ..engine.dialect_runs import CHOICES

        if value not in CHOICES:
            raise TaskError(f"{where}: field 'dialect': must be one of {', '.join(CHOICES)}")
    return value


def load_task(folder: str | os.PathLike[str]) -> Task:
    """The task in ``folder``; ``TaskError`` names the file and the field that are wrong."""
    folder = Path(folder)
    where = folder / "task.toml"
    if not os.path.lexists(where):
        raise TaskError(f"{where}: missing (a task folder holds task.toml and files/)")
    if os.lstat(where).st_size > MAX_SETTINGS_BYTES:
        raise TaskError(f"{where}: larger than {MAX_SETTINGS_BYTES} bytes")
    try:
        settings = tomllib.loads(_read_plain(where, [0, 0], where).decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise TaskError(f"{where}: not valid TOML ({exc})") from None
    unknown = sorted(set(settings) - set(_FIELDS))
    if unknown:
        raise TaskError(f"{where}: field '{unknown[0]}': unknown (known: {', '.join(_FIELDS)})")
    for required in ("prompt", "check"):
        if required not in settings:
            raise TaskError(f"{where}: field '{required}': missing")
    values = {name: _field(settings, name, where) for name in settings}
    if "timeout_s" in values and "max_seconds" in values:
        raise TaskError(f"{where}: field 'timeout_s': the older name of 'max_seconds'; give one")
    _plain_folder(folder / "files", "the task's starting workspace")
    budget = [0, 0]  # bytes read, entries seen
    files = _read_tree(folder / "files", None, budget, folder / "files")
    support = _read_tree(folder, "files", budget, folder)
    support.pop("task.toml", None)
    for name in ("policy", "extensions"):
        if name in values:
            values[name] = tuple(values[name])
    if "policy" in values:
        from ..engine import Policy

        try:
            Policy(values["policy"])
        except ValueError as exc:
            raise TaskError(f"{where}: field 'policy': {exc}") from None
    return Task(name=folder.name, files=files, support=support,
                dialect_pinned="dialect" in values, **values)  # fmt: skip


def load_suite(suite: str | os.PathLike[str]) -> list[Task]:
    """Every task of a suite folder (``"builtin"``: the shipped suite), in name order.

    A folder that is itself a task is a suite of one.
    """
    folder = BUILTIN if str(suite) == "builtin" else Path(suite)
    if (folder / "task.toml").is_file():
        return [load_task(folder)]
    if not folder.is_dir():
        raise TaskError(f"{folder}: no such suite folder")
    tasks = []
    for child in sorted(folder.iterdir()):
        if child.is_symlink():  # a link here would make an outside folder a task
            raise TaskError(f"{child}: a symbolic link; a suite holds plain folders only")
        if child.is_dir() and os.path.lexists(child / "task.toml"):
            tasks.append(load_task(child))
    if not tasks:
        raise TaskError(f"{folder}: no task folders (each holds a task.toml)")
    return tasks


def materialize(files: dict[str, bytes], folder: Path) -> None:
    """Write ``files`` under ``folder`` (a fresh folder of the run's: never the task's own).

    Every path is checked before anything is written; each folder is made once, and each file
    is created new (``O_EXCL``, never through a link): the fewest calls a fresh copy takes."""
    base = os.fspath(folder)
    folders: set[str] = set()
    for rel in files:
        parts = rel.split("/")
        if rel.startswith("/") or any(part in ("", ".", "..") for part in parts):
            raise TaskError(f"{rel}: not a path inside the task")
        folders.update("/".join(parts[:n]) for n in range(1, len(parts)))
    os.makedirs(base, exist_ok=True)
    for rel in sorted(folders):  # a parent sorts before its children
        path = os.path.join(base, rel)
        try:
            os.mkdir(path)
        except FileExistsError:
            if not stat.S_ISDIR(os.lstat(path).st_mode):  # a link is not followed
                raise
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    for rel, data in files.items():
        fd = os.open(os.path.join(base, rel), flags, 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
