"""The undo journal and trash: kept outside the workspace, one folder per workspace root.

Layout under ``<directory>/<root key>/``::

    entries.jsonl      one JSON object a line: applied changes, then "undone" markers
    counter            the last entry number handed out
    blobs/<sha256>     the bytes a file had before a change (content-addressed)
    trash/<entry id>/  what a delete moved away, kept so the delete can be undone
    lock               flock'd while entries are appended (the server runs sessions in parallel)

The journal holds our own files in a folder the model cannot name, so plain ``pathlib`` I/O is
right here; everything inside the workspace still goes through the jail.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

ENV_DIRECTORY = "JUPYTER_OPERATOR_JOURNAL_DIR"


@dataclass(frozen=True)
class HistoryEntry:
    """One applied change, enough to restore the bytes that were there before it."""

    entry_id: str
    time: float
    command_id: str
    action: str
    path: str
    change: str  # create | modify | delete
    before_sha256: str | None  # None: the path did not exist (or was a directory, for deletes)
    after_sha256: str | None  # None: the path no longer exists
    undone: bool = False

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view."""
        return asdict(self)


def default_directory() -> Path:
    """``$JUPYTER_OPERATOR_JOURNAL_DIR``, else ``<jupyter data dir>/jupyter_operator/journal``."""
    configured = os.environ.get(ENV_DIRECTORY)
    if configured:
        return Path(configured)
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "jupyter_operator" / "journal"


def root_key(root: Path) -> str:
    """A folder name for a workspace root: readable, and unique per real path."""
    real = os.path.realpath(root)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in Path(real).name)[:40]
    return f"{name or 'root'}-{digest}"


class Journal:
    """Append-only record of applied changes for one workspace root, with blobs and trash."""

    def __init__(self, root: Path, directory: Path | None = None) -> None:
        base = Path(directory) if directory is not None else default_directory()
        self.path = base / root_key(root)
        self.blobs = self.path / "blobs"
        self.trash = self.path / "trash"
        for folder in (self.blobs, self.trash):
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._entries = self.path / "entries.jsonl"

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Serialise journal updates across threads and processes."""
        with open(self.path / "lock", "a+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def allocate_id(self) -> str:
        """A new entry id (``j1``, ``j2``, ...), unique for this root."""
        counter = self.path / "counter"
        with self.locked():
            last = int(counter.read_text() or 0) if counter.exists() else 0
            counter.write_text(str(last + 1))
        return f"j{last + 1}"

    def save_blob(self, data: bytes) -> str:
        """Keep ``data`` and return its sha256 (the blob's name)."""
        digest = hashlib.sha256(data).hexdigest()
        target = self.blobs / digest
        if not target.exists():
            temp = self.blobs / f".{digest}.{os.getpid()}.tmp"
            temp.write_bytes(data)
            os.replace(temp, target)
        return digest

    def load_blob(self, digest: str) -> bytes:
        """The bytes saved under ``digest``."""
        return (self.blobs / digest).read_bytes()

    def trash_slot(self, entry_id: str) -> Path:
        """The folder a delete with this entry id moves its target into."""
        slot = self.trash / entry_id
        slot.mkdir(parents=True, exist_ok=True, mode=0o700)
        return slot

    def record(self, entry: HistoryEntry) -> None:
        """Append an applied change."""
        self._append({"entry": entry.to_dict()})

    def mark_undone(self, entry_id: str) -> None:
        """Record that an entry was undone (entries are never rewritten)."""
        self._append({"undone": entry_id, "time": time.time()})

    def entries(self) -> list[HistoryEntry]:
        """Every recorded change, oldest first, with its undone flag."""
        if not self._entries.exists():
            return []
        found: dict[str, HistoryEntry] = {}
        for line in self._entries.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line after a crash; earlier lines stay valid
            if "entry" in record:
                entry = HistoryEntry(**record["entry"])
                found[entry.entry_id] = entry
            elif record.get("undone") in found:
                found[record["undone"]] = replace(found[record["undone"]], undone=True)
        return list(found.values())

    def _append(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, separators=(",", ":")) + "\n"
        with self.locked(), open(self._entries, "a", encoding="utf-8") as handle:
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())
