"""``WorkspaceChecks``: what every ``Workspace`` action checks before it touches a path.

A mixin of ``Workspace`` (folder.py), kept apart from its public reads and mutations so the
checks can be read, and reviewed, on their own: the lexical parse of a model's path with the
protected-path refusal, the per-path thread lock, and the compare-and-swap that refuses a change
when the path is no longer as the preview saw it (``ERR_STALE_PREVIEW``). The attributes they use
are set by ``Workspace.__init__``.
"""

from __future__ import annotations

import hashlib
import os
import stat as st
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from jupyter_operator.protocol import OperatorError, codes

from .errors import FileTooLarge
from .jail import Jail, close_quietly, read_bounded, reserved_refused
from .paths import ProtectedMatcher, display_path, parse_path
from .records import Snapshot


def stale_preview(rel: str, why: str) -> OperatorError:
    """``ERR_STALE_PREVIEW``: ``rel`` is no longer as the preview saw it."""
    return OperatorError(
        codes.ERR_STALE_PREVIEW, f"{rel} {why} after the preview; ask for a new preview."
    )


class WorkspaceChecks:
    """Path checks, per-path locks and the compare-and-swap of ``Workspace``."""

    _jail: Jail
    _protected: ProtectedMatcher
    _host_python: ProtectedMatcher
    _locks: dict[tuple[str, ...], threading.Lock]
    _locks_guard: threading.Lock

    def _parse(self, path: str) -> tuple[str, ...]:
        comps = parse_path(path)
        if comps and self._protected.matches(comps):
            raise OperatorError(
                codes.ERR_PROTECTED_PATH, f"{display_path(comps)} is a protected path"
            )
        return comps

    def _parse_target(self, path: str) -> tuple[str, ...]:
        comps = self._parse(path)
        if not comps:
            raise OperatorError(codes.ERR_PROTECTED_PATH, "the workspace root cannot be changed")
        self._check_not_host_python(comps)
        return comps

    def _check_not_host_python(self, comps: tuple[str, ...]) -> None:
        """Refuse a change in (or of a folder holding) a place the host's Python runs code
        from: a ``.pth`` planted there would run unsandboxed at its next start."""
        if comps and (self._host_python.matches(comps) or self._host_python.holds(comps)):
            raise OperatorError(
                codes.ERR_PROTECTED_PATH,
                f"{display_path(comps)} is (or holds) part of the Python environment the host "
                f"runs (its site-packages, interpreter or start-up files); it is never changed "
                f"from here: reading it is fine",
            )

    @contextmanager
    def _lock(self, comps: tuple[str, ...]) -> Iterator[None]:
        key = tuple(c.casefold() for c in comps)
        with self._locks_guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            yield

    def _snapshot_in(self, pfd: int, comps: tuple[str, ...], limit: int) -> Snapshot:
        rel = display_path(comps)
        info = self._jail.lstat_in(pfd, comps)
        if info is None:
            return Snapshot(rel, False, False, None, None)
        if st.S_ISDIR(info.st_mode):
            return Snapshot(rel, True, True, None, None, info.st_dev, info.st_ino)
        fd, info = self._jail.open_regular(pfd, comps)
        try:
            if info.st_nlink > 1:
                raise OperatorError(
                    codes.ERR_PATH_ESCAPE,
                    f"{rel} has other hard links; changing it could change a file outside "
                    f"the workspace",
                )
            data = read_bounded(fd, info.st_size, limit, rel)
        finally:
            close_quietly(fd)
        digest = hashlib.sha256(data).hexdigest()
        return Snapshot(rel, True, False, data, digest, info.st_dev, info.st_ino)

    def _check(self, pfd: int, comps: tuple[str, ...], expect: Snapshot) -> os.stat_result | None:
        """Compare-and-swap: raise ``ERR_STALE_PREVIEW`` unless the path is as previewed."""
        rel = display_path(comps)
        info = self._jail.lstat_in(pfd, comps)
        if info is not None and (info.st_dev, info.st_ino) in self._jail.reserved:
            raise reserved_refused(rel)  # the active rules file, under whatever name
        if not expect.exists:
            if info is not None:
                raise stale_preview(rel, "was created")
            return None
        if info is None:
            raise stale_preview(rel, "was removed")
        if expect.is_dir != st.S_ISDIR(info.st_mode) or st.S_ISLNK(info.st_mode):
            raise stale_preview(rel, "changed kind")
        if (expect.dev or expect.ino) and (info.st_dev, info.st_ino) != (expect.dev, expect.ino):
            raise stale_preview(rel, "was replaced")
        if expect.is_dir:
            return info
        if expect.data is not None and info.st_size != len(expect.data):
            raise stale_preview(rel, "changed")
        try:
            current = self._snapshot_in(pfd, comps, info.st_size)
        except FileTooLarge:  # grew since the lstat above
            raise stale_preview(rel, "changed") from None
        if current.sha256 != expect.sha256:
            raise stale_preview(rel, "changed")
        return info
