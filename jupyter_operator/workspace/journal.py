"""The undo journal and trash: kept outside every workspace, one folder per workspace root.

Layout under the journal directory (``$JUPYTER_OPERATOR_JOURNAL_DIR``, else
``<jupyter data dir>/jupyter_operator/journal``)::

    locks/<stripe>.lock        flock'd around every compare-and-swap (see locks.py)
    <root key>/entries.jsonl   one JSON object a line: changes, then undone/redone/void markers
    <root key>/counter         the last entry number handed out (rewritten in place, unsynced)
    <root key>/lock            flock'd while the counter or the entries change (many processes)
    <root key>/blobs/<sha256>  bytes before and after a change, and its diff (content-addressed)
    <root key>/trash/<slot>/   what a delete (or the undo of a create) moved away
    <root key>/executions.jsonl  the execution ledger: every cell run (ledger.py)

Everything read back from here is untrusted input (another process, or a person, may have edited
it): entry ids, slots and digests are checked against fixed patterns, every name is opened
relative to the journal's own directory descriptors without following links, blobs are verified
against their sha256 before use, and anything that does not check out is ``ERR_JOURNAL_CORRUPT``.
Workspaces refuse to reach into this directory by its real location (``Workspace(reserved=)``).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import stat as st
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from jupyter_operator.protocol import OperatorError, codes

from .atomic import temp_name
from .diff import unified_diff
from .history_records import (
    DIGEST,
    MAX_LABEL,
    SLOT,
    STORED,
    HistoryEntry,
    apply_record,
    corrupt,
)
from .jail import O_READ, close_quietly
from .journal_paths import (  # where it lives: re-exported for the fronts that configure it
    ENV_DIRECTORY,
    default_directory,
    journal_base,
    journal_io,
    open_folders,
    open_subdir,
    root_key,
)
from .moves import remove_tree
from .shared_handles import SharedHandles

__all__ = ["DERIVED_DIFF_BYTES", "ENV_DIRECTORY", "MAX_HISTORY_DIFF", "HistoryEntry", "Journal",
           "default_directory", "history_diff", "journal_base", "root_key"]  # fmt: skip

_COUNTER = re.compile(r"[0-9]{1,15}")
# Searched in bytes, not decoded text: no byte of a UTF-8 character is ASCII.
_NAMED_ID = re.compile(rb'"j([1-9][0-9]{0,14})"')

#: The largest blob read back (a change is previewed over at most 16 MiB; its diff is capped).
MAX_BLOB = 64 * 1024 * 1024
#: The most diff text one history listing carries (the newest entries get theirs first).
MAX_HISTORY_DIFFS = 8 * 1024 * 1024
#: The longest diff kept in the journal for the history view (the change itself is not capped).
MAX_HISTORY_DIFF = 256 * 1024
#: The largest created file whose diff the history makes again from its new bytes rather than
#: keep (``mutations.derived_diff``): diffing it again costs about what reading a kept diff does.
DERIVED_DIFF_BYTES = MAX_HISTORY_DIFF
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def history_diff(diff: str) -> bytes:
    """A change's diff as the history keeps it: UTF-8, cut after a line at
    ``MAX_HISTORY_DIFF`` bytes."""
    data = diff.encode("utf-8", "replace")
    if len(data) <= MAX_HISTORY_DIFF:
        return data
    cut = data[:MAX_HISTORY_DIFF].decode("utf-8", "ignore")
    return (cut[: cut.rfind("\n") + 1] + "... (diff shortened for the history)\n").encode()


_O_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC
_O_LOCK = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | _CLOEXEC
_O_COUNTER = _O_LOCK | os.O_NONBLOCK  # a FIFO planted there must not block the open
_O_APPEND = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | _CLOEXEC


# Every Journal of one root in this process shares one set of folder descriptors
# (a server holds a session per reply: descriptors must not grow with them).
def _close_all(fds: tuple[int, ...]) -> None:
    for fd in fds:
        close_quietly(fd)


_FOLDERS: SharedHandles[tuple[int, int, int]] = SharedHandles(_close_all)
# Per journal folder: the entries file's device, inode and size when it was last searched for
# entry ids, and the highest id found (``Journal._last_named_id``; read and set under the lock).
_NAMED: dict[str, tuple[int, int, int, int]] = {}


class Journal:
    """Append-only record of applied changes for one workspace root, with blobs and trash."""

    def __init__(self, root: Path, directory: Path | None = None) -> None:
        self.base = journal_base(directory)
        key = root_key(root)
        self.path = self.base / key  # for messages to the host only, never opened by name
        self._open = False
        self._folders = _FOLDERS
        self._fd, self._blobs, self._trash = self._folders.take(
            str(self.path), lambda: open_folders(self.base, key)
        )
        self._open = True

    def close(self) -> None:
        """Release this journal's share of the folder descriptors (idempotent)."""
        if getattr(self, "_open", False):
            self._open = False
            self._folders.give_back(str(self.path))

    def __del__(self) -> None:
        if getattr(self, "_open", False):
            self._open = False
            # The instance's own reference: at interpreter exit the module's globals are
            # already None when the last objects are collected.
            self._folders.give_back_collected(str(self.path))

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
        """A new entry id (``j1``, ``j2``, ...), unique for this root across processes.

        The counter is rewritten in place under the lock and not synced: a temp file, a rename
        and an fsync less per change. After a power loss it may lag or be empty, so the ids
        named at the end of the (synced) entries count too; a write of a few bytes at offset 0
        is never torn within them.
        """
        with journal_io(), self.locked():
            try:
                fd = os.open("counter", _O_COUNTER, 0o600, dir_fd=self._fd)
            except OSError:
                raise corrupt("the entry counter is not a plain file") from None
            try:
                if not st.S_ISREG(os.fstat(fd).st_mode):
                    raise corrupt("the entry counter is not a plain file")
                raw = os.pread(fd, 64, 0)
                text = raw.decode("ascii", "replace").strip() or "0"
                if not _COUNTER.fullmatch(text):
                    raise corrupt("the entry counter is not a number")
                number = max(int(text), self._last_named_id()) + 1
                data = str(number).encode("ascii")
                os.pwrite(fd, data, 0)
                if len(raw) > len(data):  # an edited counter ("007", "7\n"): no tail left over
                    os.ftruncate(fd, len(data))
            finally:
                os.close(fd)
        return f"j{number}"

    def _last_named_id(self) -> int:
        """The highest entry number named in the entries' last 64 KiB (0 if none), called
        under the lock.

        The answer is kept in memory for this root (shared by the process's journals of it)
        with the entries file's identity and size: while that file is the same one and has
        only grown, only what was appended since is searched (a change's own line, not 64 KiB
        a change). Another file there, or a shorter one, is searched afresh.
        """
        try:
            fd = os.open("entries.jsonl", O_READ, dir_fd=self._fd)
        except FileNotFoundError:
            _NAMED.pop(str(self.path), None)
            return 0
        try:
            info = os.fstat(fd)
            size = info.st_size
            known = _NAMED.get(str(self.path))
            start, highest = max(0, size - (1 << 16)), 0
            if known is not None and known[:2] == (info.st_dev, info.st_ino) \
                    and known[2] <= size:  # fmt: skip
                start, highest = max(start, known[2]), known[3]
            tail = os.pread(fd, size - start, start) if size > start else b""
        finally:
            os.close(fd)
        highest = max([highest, *(int(m) for m in _NAMED_ID.findall(tail))])
        _NAMED[str(self.path)] = (info.st_dev, info.st_ino, size, highest)
        return highest

    # -- blobs ----------------------------------------------------------------------------

    def save_blob(self, data: bytes, *, durable: bool = True) -> str:
        """Keep ``data`` and return its sha256 (the blob's name).

        ``durable=False`` skips the ``fsync`` (for what is only shown, like a change's diff: after
        a power loss it may be missing, which the history shows as no diff).
        """
        digest = hashlib.sha256(data).hexdigest()
        with journal_io():
            self._store_blob(digest, data, durable)
        return digest

    def _store_blob(self, digest: str, data: bytes, durable: bool) -> None:
        try:
            info = os.lstat(digest, dir_fd=self._blobs)
        except FileNotFoundError:
            info = None
        # One kept before without a sync (a change's new bytes) may, after a power loss, have
        # its size but not its bytes (some file systems keep the one, not the other). Loading
        # fails closed on that; a copy undo needs is trusted only when it still matches.
        kept = info is not None and st.S_ISREG(info.st_mode) and info.st_size == len(data)
        if kept and (not durable or self._synced_if_holding(digest, data)):
            return
        tmp = temp_name()
        fd = os.open(tmp, _O_NEW, 0o600, dir_fd=self._blobs)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view[: 1 << 24]) :]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, digest, src_dir_fd=self._blobs, dst_dir_fd=self._blobs)

    def _synced_if_holding(self, digest: str, data: bytes) -> bool:
        """Sync the blob named ``digest`` if it holds exactly ``data``; else False (a short
        or different read means it is written again)."""
        try:
            fd = os.open(digest, O_READ, dir_fd=self._blobs)
        except OSError:
            return False
        try:
            if os.pread(fd, len(data) + 1, 0) != data:
                return False
            os.fsync(fd)
            return True
        finally:
            os.close(fd)

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
        stored = {key: getattr(entry, key) for key in STORED}
        if stored["label"] is None:  # older readers take only the fields they know
            del stored["label"]
        else:  # a longer one would make the journal unreadable (parse_entry)
            stored["label"] = stored["label"][:MAX_LABEL]
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
                apply_record(found, record)
            except (ValueError, TypeError, KeyError, RecursionError):
                if torn:
                    continue
                raise corrupt(f"line {number} of its entries is not valid") from None
        out = list(found.values())
        if diffs:
            out = self._with_diffs(out)
        return out

    def _with_diffs(self, entries: list[HistoryEntry]) -> list[HistoryEntry]:
        """Attach diffs, newest first, until ``MAX_HISTORY_DIFFS`` bytes (older ones get None)."""
        budget = MAX_HISTORY_DIFFS
        out = list(entries)
        for index in range(len(out) - 1, -1, -1):
            diff = self._diff(out[index]) if budget > 0 else None
            budget -= len(diff or "")
            out[index] = replace(out[index], diff=diff if budget >= 0 else None)
        return out

    def _diff(self, entry: HistoryEntry) -> str | None:
        try:
            if entry.diff_sha256 is not None:
                kept = self.load_blob(entry.diff_sha256)
            elif entry.change == "create" and entry.after_sha256 is not None:
                kept = self._derived_diff(entry.after_sha256, entry.path)
            else:
                return None
        except OperatorError:  # only shown, never used to change a file: no diff then
            return None
        return None if kept is None else kept.decode("utf-8", "replace")

    def _derived_diff(self, after_sha256: str, path: str) -> bytes | None:
        """The kept diff of a file created with ``after_sha256``, made again from those bytes
        (``mutations.derived_diff``: none was kept); None for bytes too large for that."""
        data = self.load_blob(after_sha256)
        if len(data) > DERIVED_DIFF_BYTES:
            return None
        return history_diff(unified_diff(None, data, path))

    def _read_entries(self, name: str = "entries.jsonl") -> str:
        try:
            fd = os.open(name, O_READ, dir_fd=self._fd)
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

    def _append(self, record: dict[str, Any], name: str = "entries.jsonl") -> None:
        line = (json.dumps(record, separators=(",", ":")) + "\n").encode("utf-8")
        with journal_io(), self.locked():
            fd = os.open(name, _O_APPEND, 0o600, dir_fd=self._fd)
            try:
                if not st.S_ISREG(os.fstat(fd).st_mode):
                    raise corrupt("its entries are not a plain file")
                view = memoryview(line)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            finally:
                os.close(fd)
