"""Tasks and suites: a task is a folder, a suite a folder of task folders.

A task folder holds ``task.toml`` (``prompt``; ``check``, a shell command run in the run's copy of
the files once the agent has stopped, exit 0 meaning passed; optional ``max_turns``, ``policy``
rules, ``timeout_s``, ``extensions``, ``measures``), ``files/`` (the starting workspace) and
whatever the check needs beside them (``check.py``: never inside the workspace, so a model cannot
read or rewrite its own check). A task is loaded into bytes once, so a run on another machine
(a Dask worker) needs only what it is sent.
"""

from __future__ import annotations

import os
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
#: The rules of a task that names none: its copy is disposable, so everything runs.
DEFAULT_POLICY = ("auto all",)

_FIELDS: dict[str, tuple[type, ...]] = {
    "prompt": (str,), "check": (str,), "max_turns": (int,), "policy": (list,),
    "timeout_s": (int, float), "extensions": (list,), "measures": (str,),
}  # fmt: skip


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
    #: The starting workspace (``files/``).
    files: dict[str, bytes] = field(default_factory=dict, repr=False)
    #: Everything else in the folder (the check's scripts, ``reference.json``).
    support: dict[str, bytes] = field(default_factory=dict, repr=False)

    @property
    def reference(self) -> list[str] | None:
        """The replies of a reference solution (``reference.json``), if the task ships one."""
        import json

        raw = self.support.get("reference.json")
        return None if raw is None else list(json.loads(raw))


def _read_tree(folder: Path, skip: str | None, budget: list[int], where: Path) -> dict[str, bytes]:
    found: dict[str, bytes] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if skip is not None and (rel == skip or rel.startswith(skip + "/")):
            continue
        if path.is_symlink():
            raise TaskError(f"{where / rel}: a symbolic link; a task holds plain files only")
        if path.is_file():
            data = path.read_bytes()
            budget[0] += len(data)
            if budget[0] > MAX_TASK_BYTES:
                raise TaskError(f"{where}: the task's files exceed {MAX_TASK_BYTES} bytes")
            found[rel] = data
    return found


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
    if name == "timeout_s" and not 0 < value <= 86_400:
        raise TaskError(f"{where}: field 'timeout_s': must be between 0 and 86400 seconds")
    return value


def load_task(folder: str | os.PathLike[str]) -> Task:
    """The task in ``folder``; ``TaskError`` names the file and the field that are wrong."""
    folder = Path(folder)
    where = folder / "task.toml"
    try:
        settings = tomllib.loads(where.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TaskError(f"{where}: missing (a task folder holds task.toml and files/)") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise TaskError(f"{where}: not valid TOML ({exc})") from None
    unknown = sorted(set(settings) - set(_FIELDS))
    if unknown:
        raise TaskError(f"{where}: field '{unknown[0]}': unknown (known: {', '.join(_FIELDS)})")
    for required in ("prompt", "check"):
        if required not in settings:
            raise TaskError(f"{where}: field '{required}': missing")
    values = {name: _field(settings, name, where) for name in settings}
    if not (folder / "files").is_dir():
        raise TaskError(f"{folder / 'files'}: missing (the task's starting workspace)")
    budget = [0]
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
    return Task(name=folder.name, files=files, support=support, **values)


def load_suite(suite: str | os.PathLike[str]) -> list[Task]:
    """Every task of a suite folder (``"builtin"``: the shipped suite), in name order.

    A folder that is itself a task is a suite of one.
    """
    folder = BUILTIN if str(suite) == "builtin" else Path(suite)
    if (folder / "task.toml").is_file():
        return [load_task(folder)]
    if not folder.is_dir():
        raise TaskError(f"{folder}: no such suite folder")
    tasks = [load_task(child) for child in sorted(folder.iterdir())
             if child.is_dir() and (child / "task.toml").is_file()]  # fmt: skip
    if not tasks:
        raise TaskError(f"{folder}: no task folders (each holds a task.toml)")
    return tasks


def materialize(files: dict[str, bytes], folder: Path) -> None:
    """Write ``files`` under ``folder`` (a fresh folder of the run's: never the task's own)."""
    for rel, data in files.items():
        parts = rel.split("/")
        if rel.startswith("/") or any(part in ("", ".", "..") for part in parts):
            raise TaskError(f"{rel}: not a path inside the task")
        target = folder.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
