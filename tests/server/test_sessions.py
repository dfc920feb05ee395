"""Session bookkeeping without HTTP: the cap, idle expiry and per-workspace locking."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from server_helpers import write_cmd

from jupyter_operator.server.errors import ApiError
from jupyter_operator.server.sessions import SessionService
from jupyter_operator.server.workspaces import WorkspaceRegistry, resolve_roots


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def ws_root(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def service(tmp_path: Path, ws_root: Path, clock: Clock) -> SessionService:
    registry = WorkspaceRegistry({"default": ws_root}, journal_dir=tmp_path / "journal")
    service = SessionService(registry, max_sessions=3, idle_seconds=60, clock=clock)
    yield service
    service.close()
    registry.close()


async def test_least_recently_used_session_goes_first(service: SessionService) -> None:
    ids = [(await service.scan(write_cmd("w", f"{n}.txt", "x\n")))["session"] for n in range(3)]
    await service.get(ids[0])  # touch the oldest: now ids[1] is least recently used
    fourth = (await service.scan(write_cmd("w", "3.txt", "x\n")))["session"]
    assert len(service) == 3
    for alive in (ids[0], ids[2], fourth):
        assert (await service.get(alive))["session"] == alive
    with pytest.raises(ApiError) as info:
        await service.get(ids[1])
    assert (info.value.status, info.value.code) == (404, "session_not_found")


async def test_idle_sessions_expire(service: SessionService, clock: Clock) -> None:
    old = (await service.scan(write_cmd("w", "a.txt", "x\n")))["session"]
    clock.now += 30
    fresh = (await service.scan(write_cmd("w", "b.txt", "x\n")))["session"]
    clock.now += 31  # old idle for 61 s, fresh for 31 s
    assert (await service.get(fresh))["session"] == fresh
    with pytest.raises(ApiError):
        await service.get(old)
    assert len(service) == 1


async def test_sweep_forgets_idle_sessions_without_a_request(
    service: SessionService, clock: Clock
) -> None:
    await service.scan(write_cmd("w", "a.txt", "x\n"))
    clock.now += 59
    service.sweep()
    assert len(service) == 1
    clock.now += 2
    service.sweep()
    assert len(service) == 0
    await service.drain()


async def test_decisions_in_one_workspace_are_serialised(
    service: SessionService, ws_root: Path
) -> None:
    # Two sessions write the same file; the lock makes the second one see the first's bytes
    # and fail as stale instead of silently overwriting them.
    one = await service.scan(write_cmd("w", "same.txt", "one\n"))
    two = await service.scan(write_cmd("w", "same.txt", "two\n"))
    results = await asyncio.gather(
        service.decide(one["session"], "w", "approve"),
        service.decide(two["session"], "w", "approve"),
    )
    statuses = sorted(r["item"]["status"] for r in results)
    assert statuses == ["applied", "stale"]
    assert (ws_root / "same.txt").read_text() in ("one\n", "two\n")


async def test_forgotten_sessions_release_their_descriptors(service: SessionService) -> None:
    def open_fds() -> int:
        return len(os.listdir("/proc/self/fd"))

    await service.scan(write_cmd("w", "warm.txt", "x\n"))
    await service.drain()
    before = open_fds()
    for n in range(30):
        await service.scan(write_cmd("w", f"{n}.txt", "x\n"))
    await service.drain()
    assert len(service) == 3
    # Three live sessions may hold a descriptor each (one was already live before).
    assert open_fds() - before <= 2


def test_resolve_roots_checks_names_and_folders(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    assert resolve_roots({"main": "a"}, str(tmp_path)) == {"main": (tmp_path / "a").resolve()}
    with pytest.raises(ValueError, match="not a directory"):
        resolve_roots({"main": "missing"}, str(tmp_path))
    with pytest.raises(ValueError, match="must match"):
        resolve_roots({"../x": "a"}, str(tmp_path))
