"""The undo journal and trash: kept outside every workspace, one folder per workspace root.

Layout under the journal directory (``$JUPYTER_OPERATOR_JOURNAL_DIR``, else
``<jupyter data dir>/jupyter_operator/journal``)::

    locks/<dev>-<ino>-<name hash>.lock   flock'd around every compare-and-swap (see locks.py)
    <root key>/entries.jsonl   one JSON object a line: changes, then undone/redone/void markers
    <root key>/counter         the last entry number handed out (replaced atomically)
    <root key>/lock            flock'd while the counter or the entries change (many processes)
    <root key>/blobs/<sha256>  bytes before and after a change, and its diff (content-addressed)
    <root key>/trash/<slot>/   what a delete (or the undo of a create) moved away

Everything read back from here is untrusted input (another process, or a person, may have edited
it): entry ids, slots and digests are checked against fixed patterns, every name is opened
relative to the journal's own directory descriptors without following links, blobs are verified
against their sha256 before use, and anything that does not check out is ``ERR_JOURNAL_CORRUPT``.
Workspaces refuse to reach into this directory by its real location (``Workspace(reserved=)``).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import math
import os
import re
import stat as st
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from jupyter_operator.protocol import OperatorError, codes

from .atomic import temp_name
from .jail import O_DIR, O_READ, close_quietly
from .moves import remove_tree

ENV_DIRECTORY = "JUPYTER_OPERATOR_JOURNAL_DIR"

#: Entry ids as handed out by ``allocate_id``; anything else in the journal is refused.
ENTRY_ID = re.compile(r"j[1-9][0-9]{0,15}")
#: Trash slots: an entry id, or ``<id>-u<n>`` for the n-th undo of a created file.
SLOT = re.compile(r"j[1-9][0-9]{0,15}(-u[1-9][0-9]{0,8})?")
DIGEST = re.compile(r"[0-9a-f]{64}")
_ROOT_KEY = re.compile(r"[A-Za-z0-9._-]{1,40}-[0-9a-f]{16}")
_COUNTER = re.compile(r"[0-9]{1,15}")

#: The largest blob read back (a change is previewed over at most 16 MiB; its diff is capped).
MAX_BLOB = 64 * 1024 * 1024
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC
_O_LOCK = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | _CLOEXEC
_O_APPEND = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | _CLOEXEC
_STORED = ("entry_id", "time", "command_id", "action", "path", "change", "before_sha256",
           "after_sha256", "session", "decided_by", "rule", "diff_sha256")  # fmt: skip


def corrupt(why: str) -> OperatorError:
    """The error for a journal that does not check out (never names a host path)."""
    return OperatorError(
        codes.ERR_JOURNAL_CORRUPT,
        f"the undo journal of this workspace is damaged ({why}); nothing was changed.",
    )


@dataclass(frozen=True)
class HistoryEntry:
    """One applied change, enough to restore the bytes before it (undo) or after it (redo).

    ``undone`` is the current state; ``redone`` is true when the entry was undone and then
    applied again (and is live now). ``diff`` is the unified diff of the change (filled in by
    ``Journal.entries(diffs=True)``); ``decided_by`` is ``"person"`` or ``"rule"`` (``rule``
    then holds the policy text), ``session`` the engine session that applied it.
    """

    entry_id: str
    time: float
    command_id: str
    action: str
    path: str
    change: str  # create | modify | delete
    before_sha256: str | None  # None: the path did not exist (or was a directory, for deletes)
    after_sha256: str | None  # None: the path no longer exists
    undone: bool = False
    redone: bool = False
    session: str | None = None
    decided_by: str | None = None
    rule: str | None = None
    diff_sha256: str | None = None
    diff: str | None = field(default=None, compare=False)
    undo_count: int = 0  # how many times it was undone (names the trash slot of the next one)
    undone_at: float | None = None  # when it was last undone (redo picks the latest)
    partial: bool = False  # a delete that moved only part of its path (the trash has it all)

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


@contextmanager
def journal_io() -> Iterator[None]:
    """Turn an OS failure on the journal into ``ERR_IO`` (no host path, no traceback)."""
    try:
        yield
    except OSError as exc:
        reason = os.strerror(exc.errno) if exc.errno else "input/output error"
        raise OperatorError(codes.ERR_IO, f"the undo journal cannot be used: {reason}") from None


def journal_base(directory: str | os.PathLike[str] | None = None) -> Path:
    """The journal directory (configured or default), created 0o700 and resolved once."""
    base = Path(directory) if directory is not None else default_directory()
    try:
        base.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        raise OperatorError(
            codes.ERR_IO,
            f"the undo journal folder cannot be created: {os.strerror(exc.errno or 5)}",
        ) from None
    return Path(os.path.realpath(base))


def root_key(root: Path) -> str:
    """A folder name for a workspace root: readable, and unique per real path."""
    real = os.path.realpath(root)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in Path(real).name)[:40]
    return f"{name or 'root'}-{digest}"


def open_subdir(parent_fd: int, name: str, *, create: bool = True) -> int:
    """Open (making it when asked) a directory below ``parent_fd``; a link there is corruption."""
    if create:
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o700, dir_fd=parent_fd)
    try:
        return os.open(name, O_DIR, dir_fd=parent_fd)
    except FileNotFoundError:
        raise
    except OSError:
        raise corrupt(f"{name} is not a plain folder") from None


def _text(value: Any, limit: int, optional: bool = False) -> bool:
    return (optional and value is None) or (isinstance(value, str) and len(value) <= limit)


def _digest(value: Any) -> bool:
    return value is None or (isinstance(value, str) and DIGEST.fullmatch(value) is not None)


def parse_entry(raw: Any) -> HistoryEntry:
    """Check one stored entry field by field; ValueError when anything is off."""
    if not isinstance(raw, dict) or set(raw) - {*_STORED, "undone"}:
        raise ValueError("unexpected fields")
    if raw.get("undone", False) is not False:  # 0.1 stored the state in the entry itself
        raise ValueError("bad field")
    values = {key: raw.get(key) for key in _STORED}
    ok = (
        isinstance(values["entry_id"], str) and ENTRY_ID.fullmatch(values["entry_id"])
        and isinstance(values["time"], int | float) and math.isfinite(values["time"])
        and _text(values["command_id"], 200) and _text(values["action"], 64)
        and _text(values["path"], 4096) and values["change"] in ("create", "modify", "delete")
        and _digest(values["before_sha256"]) and _digest(values["after_sha256"])
        and _digest(values["diff_sha256"]) and _text(values["session"], 200, True)
        and values["decided_by"] in (None, "person", "rule") and _text(values["rule"], 500, True)
    )  # fmt: skip
    if not ok:
        raise ValueError("bad field")
    return HistoryEntry(**values)


class Journal:
    """Append-only record of applied changes for one workspace root, with blobs and trash."""

    def __init__(self, root: Path, directory: Path | None = None) -> None:
        self.base = journal_base(directory)
        key = root_key(root)
        self.path = self.base / key  # for messages to the host only, never opened by name
        try:
            base_fd = os.open(self.base, O_DIR)
        except OSError:
            raise OperatorError(codes.ERR_IO, "the undo journal folder cannot be opened") from None
        fds: list[int] = []
        try:
            fds.append(open_subdir(base_fd, key))
            fds.append(open_subdir(fds[0], "blobs"))
            fds.append(open_subdir(fds[0], "trash"))
        except BaseException:
            for fd in fds:
                close_quietly(fd)
            raise
        finally:
            close_quietly(base_fd)
        self._fd, self._blobs, self._trash = fds

    def close(self) -> None:
        """Release the journal's directory descriptors (idempotent)."""
        for name in ("_fd", "_blobs", "_trash"):
            fd = getattr(self, name, -1)
            if fd >= 0:
                close_quietly(fd)
                setattr(self, name, -1)

    def __del__(self) -> None:
        self.close()

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Serialise journal updates across threads and processes."""
        fd = os.open("lock", _O_LOCK, 0o600, dir_fd=self._fd)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    # -- ids ------------------------------------------------------------------------------

    def allocate_id(self) -> str:
        """A new entry id (``j1``, ``j2``, ...), unique for this root across processes."""
        with journal_io(), self.locked():
            raw = self._read_small("counter")
            text = raw.decode("ascii", "replace").strip() if raw is not None else "0"
            if not _COUNTER.fullmatch(text):
                raise corrupt("the entry counter is not a number")
            number = int(text) + 1
            self._replace_small("counter", str(number).encode("ascii"))
        return f"j{number}"

    def _read_small(self, name: str) -> bytes | None:
        try:
            fd = os.open(name, O_READ, dir_fd=self._fd)
        except FileNotFoundError:
            return None
        except OSError:
            raise corrupt(f"{name} is not a plain file") from None
        try:
            if not st.S_ISREG(os.fstat(fd).st_mode):
                raise corrupt(f"{name} is not a plain file")
            return os.read(fd, 64)
        finally:
            os.close(fd)

    def _replace_small(self, name: str, data: bytes) -> None:
        tmp = temp_name()
        fd = os.open(tmp, _O_NEW, 0o600, dir_fd=self._fd)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.replace(tmp, name, src_dir_fd=self._fd, dst_dir_fd=self._fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=self._fd)
            raise

    # -- blobs ----------------------------------------------------------------------------

    def save_blob(self, data: bytes) -> str:
        """Keep ``data`` and return its sha256 (the blob's name)."""
        digest = hashlib.sha256(data).hexdigest()
        with journal_io():
            self._store_blob(digest, data)
        return digest

    def _store_blob(self, digest: str, data: bytes) -> None:
        try:
            info = os.lstat(digest, dir_fd=self._blobs)
            if st.S_ISREG(info.st_mode) and info.st_size == len(data):
                return
        except FileNotFoundError:
            pass
        tmp = temp_name()
        fd = os.open(tmp, _O_NEW, 0o600, dir_fd=self._blobs)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view[: 1 << 24]) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, digest, src_dir_fd=self._blobs, dst_dir_fd=self._blobs)

    def load_blob(self, digest: str) -> bytes:
        """The bytes saved under ``digest``, verified against it (``ERR_JOURNAL_CORRUPT``)."""
        if not isinstance(digest, str) or not DIGEST.fullmatch(digest):
            raise corrupt("a saved copy has an invalid name")
        try:
            fd = os.open(digest, O_READ, dir_fd=self._blobs)
        except FileNotFoundError:
            raise corrupt("a saved copy is missing") from None
        except OSError:
            raise corrupt("a saved copy is not a plain file") from None
        try:
            info = os.fstat(fd)
            if not st.S_ISREG(info.st_mode) or info.st_size > MAX_BLOB:
                raise corrupt("a saved copy is not a plain file")
            chunks = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
                if sum(map(len, chunks)) > MAX_BLOB:
                    raise corrupt("a saved copy is too large")
        finally:
            os.close(fd)
        data = b"".join(chunks)
        if hashlib.sha256(data).hexdigest() != digest:
            raise corrupt("a saved copy does not match its checksum")
        return data

    # -- trash ----------------------------------------------------------------------------

    @contextmanager
    def trash_slot(self, slot: str, *, create: bool = True) -> Iterator[int]:
        """A descriptor of the trash folder ``slot`` (an entry id, or ``<id>-u<n>``)."""
        if not isinstance(slot, str) or not SLOT.fullmatch(slot):
            raise corrupt("a trash folder has an invalid name")
        try:
            fd = open_subdir(self._trash, slot, create=create)
        except FileNotFoundError:
            raise OperatorError(codes.ERR_NOT_FOUND, f"the trash of {slot} is empty") from None
        try:
            yield fd
        finally:
            close_quietly(fd)

    @staticmethod
    def discard_trashed(slot_fd: int, name: str) -> None:
        """Remove a trashed copy whose every part is back in the workspace."""
        with journal_io():
            remove_tree(slot_fd, name)

    @staticmethod
    def trashed_sha256(slot_fd: int, name: str) -> str | None:
        """The sha256 of a trashed regular file (None for anything else)."""
        with journal_io():
            try:
                fd = os.open(name, O_READ, dir_fd=slot_fd)
            except OSError:
                return None
            try:
                if not st.S_ISREG(os.fstat(fd).st_mode):
                    return None
                digest = hashlib.sha256()
                while chunk := os.read(fd, 1 << 20):
                    digest.update(chunk)
                return digest.hexdigest()
            finally:
                os.close(fd)

    @staticmethod
    def trashed_name(slot_fd: int, slot: str) -> str | None:
        """The one item a trash folder holds (None when it is empty)."""
        with journal_io():
            names = [n for n in os.listdir(slot_fd) if not n.startswith(".~operator-")]
        if len(names) > 1:
            raise corrupt(f"the trash of {slot} holds more than one item")
        return names[0] if names else None

    # -- entries --------------------------------------------------------------------------

    def record(self, entry: HistoryEntry) -> None:
        """Append an applied change."""
        stored = {key: getattr(entry, key) for key in _STORED}
        self._append({"entry": stored})

    def mark_undone(self, entry_id: str) -> None:
        """Record that an entry was undone (entries are never rewritten)."""
        self._append({"undone": entry_id, "time": time.time()})

    def mark_redone(self, entry_id: str) -> None:
        """Record that an undone entry was applied again."""
        self._append({"redone": entry_id, "time": time.time()})

    def mark_partial(self, entry_id: str) -> None:
        """Record that a delete moved only part of its path to the trash."""
        self._append({"partial": entry_id, "time": time.time()})

    def mark_void(self, entry_id: str) -> None:
        """Record that a change recorded ahead of its disk step did not happen after all."""
        self._append({"void": entry_id, "time": time.time()})

    def entries(self, *, diffs: bool = False) -> list[HistoryEntry]:
        """Every recorded change, oldest first, with its state (``ERR_JOURNAL_CORRUPT``).

        A last line without its newline is the torn tail of a killed append and is skipped;
        any other line that does not check out makes the whole history refuse.
        """
        found: dict[str, HistoryEntry] = {}
        text = self._read_entries()
        lines = text.split("\n")
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            torn = number == len(lines)
            try:
                record = json.loads(line)
                self._apply_record(found, record)
            except (ValueError, TypeError, KeyError, RecursionError):
                if torn:
                    continue
                raise corrupt(f"line {number} of its entries is not valid") from None
        out = list(found.values())
        if diffs:
            out = [replace(e, diff=self._diff(e)) for e in out]
        return out

    def _diff(self, entry: HistoryEntry) -> str | None:
        if entry.diff_sha256 is None:
            return None
        return self.load_blob(entry.diff_sha256).decode("utf-8", "replace")

    @staticmethod
    def _apply_record(found: dict[str, HistoryEntry], record: Any) -> None:
        if not isinstance(record, dict) or len(record) not in (1, 2):
            raise ValueError("not a record")
        if "entry" in record:
            entry = parse_entry(record["entry"])
            if entry.entry_id in found:
                raise ValueError("duplicate id")
            found[entry.entry_id] = entry
            return
        for marker in ("undone", "redone", "void", "partial"):
            if marker in record:
                entry = found[record[marker]]  # KeyError: a marker for an unknown entry
                when = record.get("time")
                if not isinstance(when, int | float) or not math.isfinite(when):
                    raise ValueError("bad time")
                if marker == "void":
                    del found[entry.entry_id]
                elif marker == "partial":
                    found[entry.entry_id] = replace(entry, partial=True)
                elif marker == "undone":
                    found[entry.entry_id] = replace(
                        entry, undone=True, redone=False, partial=False,
                        undo_count=entry.undo_count + 1, undone_at=float(when),
                    )  # fmt: skip
                else:
                    found[entry.entry_id] = replace(entry, undone=False, redone=True)
                return
        raise ValueError("unknown record")

    def _read_entries(self) -> str:
        try:
            fd = os.open("entries.jsonl", O_READ, dir_fd=self._fd)
        except FileNotFoundError:
            return ""
        except OSError:
            raise corrupt("its entries are not a plain file") from None
        try:
            if not st.S_ISREG(os.fstat(fd).st_mode):
                raise corrupt("its entries are not a plain file")
            chunks = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
        finally:
            os.close(fd)
        try:
            return b"".join(chunks).decode("utf-8")
        except UnicodeDecodeError:
            raise corrupt("its entries are not UTF-8 text") from None

    def _append(self, record: dict[str, Any]) -> None:
        line = (json.dumps(record, separators=(",", ":")) + "\n").encode("utf-8")
        with journal_io(), self.locked():
            fd = os.open("entries.jsonl", _O_APPEND, 0o600, dir_fd=self._fd)
            try:
                if not st.S_ISREG(os.fstat(fd).st_mode):
                    raise corrupt("its entries are not a plain file")
                view = memoryview(line)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            finally:
                os.close(fd)
