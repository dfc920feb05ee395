"""The notebooks open in pages that carry the extension, as those pages last reported them.

Each JupyterLab or Notebook 7 page with the extension posts the notebooks it has open
(``POST open-notebooks``) when that changes and every ``HEARTBEAT_SECONDS``; a page not heard
from for ``EXPIRY_SECONDS`` (closed, crashed, offline) no longer counts. The engine asks
``holds`` before it applies an approved notebook change (``engine/live_route.py``): a notebook
some page holds gets the change as cell edits in that page, any other one on the disk.

Paths arrive relative to the server's root, as the page's contents service names them; one
that would leave the root is ignored (it cannot name a notebook of any workspace).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from pathlib import Path

#: How often a page reports its open notebooks, and how long a report counts.
HEARTBEAT_SECONDS = 10.0
EXPIRY_SECONDS = 3 * HEARTBEAT_SECONDS
#: At most this many pages are remembered (the oldest report goes first).
MAX_PAGES = 200


class OpenPages:
    """What every page reported open (``engine.live_route.LivePages``)."""

    def __init__(self, server_root: Path, expiry: float = EXPIRY_SECONDS) -> None:
        self._root = Path(server_root).resolve()
        self._expiry = expiry
        self._pages: dict[str, tuple[float, frozenset[Path]]] = {}
        #: What a notebook's open page holds after the changes sent to it, with the sha256 of
        #: the file then: the base of the next change while the file is still that.
        self._expected: dict[Path, tuple[str | None, bytes]] = {}
        self._lock = threading.Lock()

    def _resolve(self, path: str) -> Path | None:
        parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
        if not parts or ".." in parts:
            return None
        return self._root.joinpath(*parts)

    def report(self, page: str, paths: Iterable[str]) -> None:
        """``page`` has exactly ``paths`` (relative to the server's root) open now."""
        held = frozenset(p for p in map(self._resolve, paths) if p is not None)
        now = time.monotonic()
        with self._lock:
            self._pages.pop(page, None)
            self._pages[page] = (now, held)
            while len(self._pages) > MAX_PAGES:
                del self._pages[next(iter(self._pages))]

    def leave(self, page: str) -> None:
        """``page`` closed: it holds nothing any more."""
        with self._lock:
            self._pages.pop(page, None)

    def holds(self, path: Path) -> bool:
        """Whether a page heard from within the expiry has ``path`` (absolute) open."""
        now = time.monotonic()
        with self._lock:
            return any(now - seen <= self._expiry and path in held
                       for seen, held in self._pages.values())  # fmt: skip

    def open_below(self, root: Path) -> list[Path]:
        """The notebooks below ``root`` (absolute) that a page heard from within the expiry
        has open."""
        now = time.monotonic()
        with self._lock:
            held = {path for seen, paths in self._pages.values() if now - seen <= self._expiry
                    for path in paths}  # fmt: skip
        return sorted(path for path in held if path != root and path.is_relative_to(root))

    def expect(self, path: Path, disk_sha256: str | None, data: bytes) -> None:
        """The page holding ``path`` now shows ``data`` (a change, undo or redo it applied)
        while the file has ``disk_sha256``."""
        with self._lock:
            self._expected[path] = (disk_sha256, data)
            while len(self._expected) > MAX_PAGES:
                del self._expected[next(iter(self._expected))]

    def expected(self, path: Path, disk_sha256: str | None) -> bytes | None:
        """What the page holding ``path`` shows, or None: no change was sent to it, or the file
        changed since (the person saved: the file is the page's again)."""
        with self._lock:
            found = self._expected.get(path)
            if found is None or found[0] != disk_sha256:
                self._expected.pop(path, None)
                return None
            return found[1]
