"""Shared folder descriptors: counted shares, and no hang when the collector drops a user."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from jupyter_operator.workspace import Journal
from jupyter_operator.workspace import journal as journal_module
from jupyter_operator.workspace import locks as locks_module
from jupyter_operator.workspace.locks import FileLocks
from jupyter_operator.workspace.shared_handles import SharedHandles


def test_the_last_share_closes_the_handles() -> None:
    closed: list[str] = []
    handles: SharedHandles[str] = SharedHandles(closed.append)
    opened = []
    assert handles.take("k", lambda: opened.append(1) or "h") == "h"
    assert handles.take("k", lambda: opened.append(1) or "other") == "h"  # opened once
    assert opened == [1] and handles.users("k") == 2
    handles.give_back("k")
    assert closed == []
    handles.give_back("k")
    assert closed == ["h"] and handles.users("k") == 0


def test_a_collected_share_is_settled_later_without_the_guard() -> None:
    closed: list[str] = []
    handles: SharedHandles[str] = SharedHandles(closed.append)
    handles.take("k", lambda: "h")
    with handles._guard:  # the collector runs inside a guarded section
        handles.give_back_collected("k")  # returns at once
    assert closed == []  # not settled yet
    assert handles.users("k") == 0 and closed == ["h"]


def test_a_collected_share_is_settled_at_once_when_the_guard_is_free() -> None:
    closed: list[str] = []
    handles: SharedHandles[str] = SharedHandles(closed.append)
    handles.take("k", lambda: "h")
    handles.give_back_collected("k")
    assert closed == ["h"]


def _collect_while_guarded(guard: threading.Lock, user: object) -> bool:
    """Drop ``user`` as the collector would inside a guarded section; False if it hung."""
    finished = threading.Event()

    def run() -> None:
        with guard:
            user.__del__()  # type: ignore[attr-defined]
        finished.set()

    threading.Thread(target=run, daemon=True).start()
    return finished.wait(5)


@pytest.mark.parametrize("kind", ["locks", "journal"])
def test_a_collected_user_never_takes_the_guard(tmp_path: Path, kind: str) -> None:
    """Before, ``__del__`` took the guard itself: a collection run by an allocation inside
    ``FileLocks()`` or ``Journal()`` waited for itself for ever (a test run stuck in
    ``__del__`` until pytest-timeout)."""
    if kind == "locks":
        folders, key = locks_module._FOLDERS, os.path.realpath(tmp_path)
        first, second = FileLocks(tmp_path), FileLocks(tmp_path)
    else:
        root = tmp_path / "root"
        root.mkdir()
        first = Journal(root, tmp_path / "journal")
        second = Journal(root, tmp_path / "journal")
        folders, key = journal_module._FOLDERS, str(first.path)
    assert folders.users(key) == 2
    assert _collect_while_guarded(folders._guard, first), "__del__ waited for its own guard"
    assert folders.users(key) == 1  # settled under the guard by the next call
    second.close()
    assert folders.users(key) == 0
