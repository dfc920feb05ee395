"""Descriptors opened once per folder and process, shared by the objects that use them.

A server holds a workspace, a journal and file locks per reply: their descriptors must not
grow with them. Each user takes a share of the folder's descriptors; the last share given back
closes them.

Users give their share back from ``__del__`` too, and the garbage collector can run on any
allocation, including one made while this thread holds the (non-reentrant) guard: taking the
guard there would hang the process for ever. So a collected user notes its share as given
back and settles it only if the guard is free; otherwise the next call that takes the guard
does.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class SharedHandles(Generic[T]):
    """Handles keyed by folder, each with a count of its users."""

    def __init__(self, close: Callable[[T], None]) -> None:
        """``close`` frees a key's handles once its last user is gone."""
        self._close = close
        self._entries: dict[str, list[T | int]] = {}  # key -> [handles, users]
        self._guard = threading.Lock()
        self._collected: list[str] = []  # appended without the guard (see the module's note)

    def take(self, key: str, open_handles: Callable[[], T]) -> T:
        """One share of ``key``'s handles, opened by ``open_handles`` if nobody holds them."""
        with self._guard:
            self._settle()
            entry = self._entries.get(key)
            if entry is None:
                entry = self._entries[key] = [open_handles(), 0]
            entry[1] += 1  # type: ignore[operator]
            return entry[0]  # type: ignore[return-value]

    def give_back(self, key: str) -> None:
        """Give back one share of ``key``'s handles (closes them with the last one)."""
        with self._guard:
            self._settle()
            self._release(key)

    def give_back_collected(self, key: str) -> None:
        """``give_back`` for ``__del__``: never waits for the guard.

        Settled at once when the guard is free, else by the next call that takes it.
        """
        self._collected.append(key)
        if self._guard.acquire(blocking=False):
            try:
                self._settle()
            except Exception:  # at interpreter exit the modules it calls may be gone
                pass
            finally:
                self._guard.release()

    def users(self, key: str) -> int:
        """How many shares of ``key`` are held (after settling collected users)."""
        with self._guard:
            self._settle()
            entry = self._entries.get(key)
            return 0 if entry is None else int(entry[1])  # type: ignore[arg-type]

    def _settle(self) -> None:
        while self._collected:
            self._release(self._collected.pop())

    def _release(self, key: str) -> None:
        entry = self._entries.get(key)
        if entry is None:
            return
        entry[1] -= 1  # type: ignore[operator]
        if entry[1] <= 0:  # type: ignore[operator]
            del self._entries[key]
            self._close(entry[0])  # type: ignore[arg-type]
