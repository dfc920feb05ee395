"""The saved-session store: atomic files, strict names, expiry and a cap."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jupyter_operator.workspace.sessionstore import SessionStore


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_saved_sessions_expire_and_are_capped(tmp_path: Path) -> None:
    clock = Clock()
    store = SessionStore(tmp_path / "s", keep_seconds=100, max_files=2, clock=clock)
    for name in ("a", "b", "c"):
        store.save(name, b"{}")
        clock.now += 10
    store.expire()
    assert sorted(store.ids()) == ["b", "c"]
    clock.now += 85  # b was saved 105 s ago, c 95 s ago
    assert store.load("b") is None
    assert store.ids() == ["c"]
    assert store.load("../c") is None
    with pytest.raises(ValueError):
        store.save("../x", b"{}")


def test_links_and_odd_names_are_never_followed(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "s")
    outside = tmp_path / "secret.json"
    outside.write_text("{}")
    (tmp_path / "s" / "linked.json").symlink_to(outside)
    assert store.load("linked") is None
    assert "linked" not in store.ids()
    store.save("ok", b"data")
    assert store.load("ok") == b"data"
    assert not [p for p in (tmp_path / "s").iterdir() if p.name.endswith(".tmp")]


def test_saving_is_atomic_but_not_synced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A session is a view (the synced journal records changes): no fsync per decision."""
    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", synced.append)
    store = SessionStore(tmp_path / "sessions")
    store.save("abc", b'{"a": 1}')
    store.save("abc", b'{"a": 2}')
    assert store.load("abc") == b'{"a": 2}' and synced == []
    assert [p.name for p in (tmp_path / "sessions").iterdir()] == ["abc.json"]  # no temp left
