"""``OUT/results.jsonl``: one JSON line per finished run, and the transcripts beside it.

The parent process is the only writer: each row is appended and flushed to the system as its
run finishes, so a crash of the process or Ctrl-C loses only the runs in flight (a power cut
may lose the last rows too: a second run then does them again), and a second run of the same
grid skips every (task, model, repeat, dialect) already there.

Every row carries a ``mac``: an HMAC-SHA256 of the row under a key only the harness holds (a
file of the person's own, ``<jupyter data dir>/jupyter_operator/eval-results.key``, 0600). No
run can reach it: a run's workspace is a fresh temporary copy whose jail and sandbox show
nothing of the home folder, and Jupyter's data folder is out of every workspace's reach by its
real location. The workers never see the key either: the parent signs what they send back. So
a line that something else wrote or changed (a model's code appending forged rows, a hand
edit) does not verify, is refused with its line number and reason, and its run is done again:
it never counts as finished.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import re
import secrets
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RESULTS = "results.jsonl"
#: The name of the key file in the package's folder of Jupyter's data folder.
KEY_NAME = "eval-results.key"
MAC_FIELD = "mac"
#: Stop reasons of a run that says nothing of the model: the endpoint failed, the run hung past
#: its time budget and grace, or the harness failed. Kept when a grid resumes, like any row;
#: ``--retry-errors`` runs them again (the new row then replaces this one). A failed check is
#: never one of them.
ERRORS = ("model_error", "timeout", "harness_error")
#: Why a signed line is refused.
CHANGED = "its signature does not verify (the line was changed, or written by something else)"
O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class ResultsKeyError(ValueError):
    """The key that signs results cannot be used (a link, not the person's own, readable by
    others, or where a sandboxed run could read it): the message says which and where."""


@dataclass(frozen=True)
class Refused:
    """A line of ``results.jsonl`` that is not taken as a finished run, and why."""

    line: int
    reason: str


#: The dialect of a row written before rows named theirs (every run then used it).
DEFAULT_DIALECT = "operator"


def run_key(row: Mapping[str, Any]) -> tuple[Any, Any, Any, Any]:
    """The run a row is of: (task, model, repeat, dialect); a row without a dialect is of
    ``DEFAULT_DIALECT``. A grid of several dialects holds one row per run of each."""
    return (row.get("task"), row.get("model"), row.get("repeat"),
            row.get("dialect") or DEFAULT_DIALECT)  # fmt: skip


_key = run_key


def run_label(task: Any, model: Any, repeat: Any, dialect: Any = None) -> str:
    """A run as messages name it: ``task · model · repeat N``, then `` · dialect`` for a
    dialect other than ``DEFAULT_DIALECT`` (the runs of a grid of one dialect read as before)."""
    label = f"{task} · {model} · repeat {repeat}"
    if dialect and dialect != DEFAULT_DIALECT:
        label += f" · {dialect}"
    return label


def _started(row: dict[str, Any]) -> float:
    """When the row's run started (``started_at``), or -inf for a row without one."""
    value = row.get("started_at")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value == value:
        return float(value)
    return float("-inf")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or "_"


def default_key_file() -> Path:
    """``<jupyter data dir>/jupyter_operator/eval-results.key`` (``$JUPYTER_DATA_DIR`` moves it)."""
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "jupyter_operator" / KEY_NAME


def _visible_in_sandbox(path: Path) -> bool:
    """Whether a sandboxed run sees ``path`` (the system folders and the Python installations
    are bound read-only into every sandbox)."""
    from ..shell import python_homes
    from ..shell.sandbox import SYSTEM_DIRS

    shown = [Path(d) for d in SYSTEM_DIRS] + [home.absolute() for home in python_homes()]
    absolute = path.absolute()
    return any(absolute == d or d in absolute.parents for d in shown)


def _read_key(path: Path) -> bytes | None:
    """The key in ``path``, None when there is none; refused unless a plain file of this
    user's that nobody else can read."""
    try:
        fd = os.open(path, os.O_RDONLY | O_NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as exc:
        reason = os.strerror(exc.errno or 5)
        raise ResultsKeyError(f"{path}: the results key cannot be opened "
                              f"({reason}; a link is refused)") from None  # fmt: skip
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ResultsKeyError(f"{path}: the results key is not a plain file")
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            raise ResultsKeyError(f"{path}: the results key belongs to another user")
        if info.st_mode & 0o077:
            raise ResultsKeyError(f"{path}: the results key is readable by others (it must "
                                  "be 0600: chmod 600 it, or delete it for a new one)")  # fmt: skip
        data = os.read(fd, 1024).strip()
    finally:
        os.close(fd)
    if len(data) < 32:
        raise ResultsKeyError(f"{path}: the results key is too short (delete it for a new one)")
    return data


def load_key(path: str | os.PathLike[str] | None = None) -> bytes:
    """The key that signs results rows, made (0600, in a 0700 folder) on first use."""
    path = Path(path) if path is not None else default_key_file()
    if _visible_in_sandbox(path):
        raise ResultsKeyError(f"{path}: the results key would be visible inside the "
                              "sandbox (a system or Python folder); keep it in your own data "
                              "folder")  # fmt: skip
    found = _read_key(path)
    if found is not None:
        return found
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    # Written whole under a temporary name, then linked into place: a second harness starting
    # at the same moment reads either no key or the whole one, never half of it.
    temporary = path.parent / f".{KEY_NAME}.{secrets.token_hex(8)}"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_NOFOLLOW, 0o600)
    try:
        os.write(fd, secrets.token_hex(32).encode("ascii") + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        with contextlib.suppress(FileExistsError):  # another harness made it first: use theirs
            os.link(temporary, path)
    finally:
        temporary.unlink()
    key = _read_key(path)
    if key is None:
        raise ResultsKeyError(f"{path}: the results key could not be made")
    return key


def _canonical(row: dict[str, Any]) -> bytes:
    body = {k: v for k, v in row.items() if k != MAC_FIELD}
    # ASCII: a lone surrogate from a model's text is escaped, never an encoding error
    return json.dumps(body, ensure_ascii=True, sort_keys=True, separators=(",", ":"),
                      allow_nan=True).encode("ascii")  # fmt: skip


def sign(row: dict[str, Any], key: bytes) -> str:
    """The row's MAC under ``key`` (its JSON form, keys sorted, the ``mac`` field left out)."""
    return hmac.new(key, _canonical(row), hashlib.sha256).hexdigest()


class ResultsFile:
    """The results of one output folder: rows read back (verified), rows appended (signed),
    transcripts saved. ``key_file``: where the signing key lives (default
    :func:`default_key_file`); ``verify=False`` reads rows without checking them (results
    brought from another machine, whose key this one does not have)."""

    def __init__(self, out: str | os.PathLike[str], *,
                 key_file: str | os.PathLike[str] | None = None,
                 verify: bool = True) -> None:  # fmt: skip
        self.out = Path(out)
        self.path = self.out / RESULTS
        self.key_file = key_file
        self.verify = verify
        self._key: bytes | None = None

    @property
    def key(self) -> bytes:
        if self._key is None:
            self._key = load_key(self.key_file)
        return self._key

    def read(self) -> tuple[list[dict[str, Any]], list[Refused]]:
        """The rows that verify, and the lines refused (a torn last line, from a crash, is
        skipped without a word: its run is done again)."""
        if not self.path.exists():
            return [], []
        lines = self.path.read_text(encoding="utf-8", errors="replace").split("\n")
        lines.pop()  # "" when the file ends with a newline, else a torn last line: skipped
        found: list[dict[str, Any]] = []
        refused: list[Refused] = []
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                refused.append(Refused(number, "not a JSON line"))
                continue
            if not isinstance(row, dict):
                refused.append(Refused(number, "not a JSON object"))
                continue
            mac = row.pop(MAC_FIELD, None)
            if self.verify:
                if not isinstance(mac, str):
                    refused.append(Refused(number, "not signed by this harness"))
                    continue
                if not hmac.compare_digest(mac, sign(row, self.key)):
                    refused.append(Refused(number, CHANGED))
                    continue
            found.append(row)
        # A run done again: its newest row by the signed start time, not by its place in the
        # file, so an older signed row copied to the end does not undo the newer run.
        latest: dict[tuple[Any, Any, Any, Any], dict[str, Any]] = {}
        for row in found:
            held = latest.get(_key(row))
            if held is None or _started(row) >= _started(held):
                latest[_key(row)] = row
        return list(latest.values()), refused

    def rows(self) -> list[dict[str, Any]]:
        """Every row so far that verifies (without its ``mac``), the newest of a run that was
        done again."""
        return self.read()[0]

    def refused(self) -> list[Refused]:
        """The lines not taken as finished runs (their runs are done again), and why."""
        return self.read()[1]

    def done(self, *, retry_errors: bool = False) -> set[tuple[str, str, int, str]]:
        """The (task, model, repeat, dialect) of every finished run (a row that verifies); with
        ``retry_errors``, not those ended by a fault of the endpoint or the harness
        (``ERRORS``), which are to be run again."""
        rows = self.rows()
        if retry_errors:
            rows = [r for r in rows if r.get("stop_reason") not in ERRORS]
        return {_key(r) for r in rows}

    def add(self, row: dict[str, Any]) -> dict[str, Any]:
        """Save ``row``, signed (its ``transcript_text`` goes to its own file, named in the
        row); return it as read back (without its ``mac``)."""
        self.out.mkdir(parents=True, exist_ok=True)
        row = dict(row)
        row.pop(MAC_FIELD, None)
        text = row.pop("transcript_text", "")
        if text:
            # a dialect other than the default is in the name: one file per run of each
            dialect = row.get("dialect") or DEFAULT_DIALECT
            tail = "" if dialect == DEFAULT_DIALECT else f".{_slug(str(dialect))}"
            rel = Path("transcripts") / _slug(row["model"]) / (
                f"{_slug(row['task'])}-{int(row['repeat'])}{tail}.jsonl")  # fmt: skip
            target = self.out / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            row["transcript"] = rel.as_posix()
        else:
            row["transcript"] = None
        row = json.loads(json.dumps(row))  # as it will be read back
        signed = {**row, MAC_FIELD: sign(row, self.key)}
        line = json.dumps(signed, sort_keys=True) + "\n"  # ASCII, like the signed form
        with self.path.open("a+b") as out:
            end = out.seek(0, os.SEEK_END)
            if end:
                out.seek(end - 1)
                if out.read(1) != b"\n":  # a torn last line (a crash mid-write): no run's row
                    out.seek(0)
                    out.truncate(out.read().rfind(b"\n") + 1)
            out.write(line.encode("ascii"))
        return row
