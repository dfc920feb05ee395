"""Saved server sessions: one JSON file per session, beside the undo journal.

A server keeps the sessions of replies not yet decided so that a page reload or a server restart
does not lose them. They live in ``<journal directory>/sessions/`` (outside every workspace, like
the journal itself), one ``<session id>.json`` each, written atomically. The folder is the
host's own, but its files are still read as untrusted input: names are checked against a strict
pattern, files are opened without following links, and their size is bounded. Files older than
``keep_seconds`` are removed, and only the ``max_files`` most recent are kept.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
import time
from collections.abc import Callable
from pathlib import Path

#: What a session id looks like (``secrets.token_urlsafe(16)`` and the REST route's pattern).
SESSION_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
SUFFIX = ".json"
#: Largest saved session read back (two 16 MiB files in base64 plus the JSON around them).
MAX_FILE_BYTES = 96 * 1024 * 1024


class SessionStore:
    """Save, load, list and expire saved sessions in one folder."""

    def __init__(
        self,
        directory: Path,
        *,
        keep_seconds: float = 7 * 24 * 3600,
        max_files: int = 500,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.keep_seconds = keep_seconds
        self.max_files = max_files
        self._clock = clock

    def save(self, session_id: str, data: bytes) -> None:
        """Write one session's bytes atomically (a reader sees the old or the new file).

        Not synced to disk (an fsync per decision was most of its cost): a session is a view
        for the person, and the journal, which is synced, is what records changes. After a
        power loss a saved session may be torn or older; loading refuses a torn one (the
        session is then gone), and an older one offers again changes that were applied, which
        the snapshot guard answers with a stale preview instead of applying them twice.
        """
        target = self._name(session_id)
        temp = f".{target}.{secrets.token_hex(4)}.tmp"
        fd = self._open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(self.directory / temp, self.directory / target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(self.directory / temp)
            raise
        now = self._clock()
        os.utime(self.directory / target, (now, now))

    def load(self, session_id: str) -> bytes | None:
        """The saved bytes of a session, or None when there are none (or they expired)."""
        if not SESSION_ID.fullmatch(session_id):
            return None
        self.expire()
        try:
            fd = self._open(self._name(session_id), os.O_RDONLY)
        except OSError:
            return None
        with os.fdopen(fd, "rb") as src:
            info = os.fstat(src.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
                return None
            return src.read(MAX_FILE_BYTES + 1)

    def delete(self, session_id: str) -> None:
        """Forget a saved session (no error when there is none)."""
        if SESSION_ID.fullmatch(session_id):
            with contextlib.suppress(OSError):
                os.unlink(self.directory / self._name(session_id))

    def ids(self) -> list[str]:
        """Saved session ids, most recently saved first."""
        found: list[tuple[float, str]] = []
        for entry in os.scandir(self.directory):
            name = entry.name
            if not name.endswith(SUFFIX) or not SESSION_ID.fullmatch(name[: -len(SUFFIX)]):
                continue
            with contextlib.suppress(OSError):
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISREG(info.st_mode):
                    found.append((info.st_mtime, name[: -len(SUFFIX)]))
        return [name for _, name in sorted(found, reverse=True)]

    def expire(self) -> None:
        """Remove sessions saved longer ago than ``keep_seconds``, and all but the newest
        ``max_files``; also temporary files a killed write left behind."""
        deadline = self._clock() - self.keep_seconds
        for entry in os.scandir(self.directory):
            if entry.name.startswith(".") and entry.name.endswith(".tmp"):
                with contextlib.suppress(OSError):
                    if entry.stat(follow_symlinks=False).st_mtime < self._clock() - 3600:
                        os.unlink(entry.path)
        for rank, session_id in enumerate(self.ids()):
            path = self.directory / self._name(session_id)
            with contextlib.suppress(OSError):
                saved = os.stat(path, follow_symlinks=False).st_mtime
                if rank >= self.max_files or saved < deadline:
                    os.unlink(path)

    def _name(self, session_id: str) -> str:
        if not SESSION_ID.fullmatch(session_id):
            raise ValueError("not a session id")
        return session_id + SUFFIX

    def _open(self, name: str, flags: int, mode: int = 0o600) -> int:
        dir_fd = os.open(self.directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            return os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=dir_fd)
        finally:
            os.close(dir_fd)
