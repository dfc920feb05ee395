"""Session bookkeeping without HTTP: the cap, idle expiry and per-workspace locking."""

from __future__ import annotations

import asyncio
import base64
import os
from pathlib import Path

import pytest
from server_helpers import write_cmd

from jupyter_operator.server.errors import ApiError
from jupyter_operator.server.sessions import SessionService
from jupyter_operator.server.workspaces import WorkspaceRegistry, resolve_roots
from jupyter_operator.workspace.sessionstore import SessionStore


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


async def test_a_slow_preview_holds_no_workspace_lock(
    service: SessionService, ws_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A decision (it takes the workspace's write lock) finishes while another reply is still
    # being planned in the same workspace.
    import threading

    import jupyter_operator.engine as engine

    pending = await service.scan(write_cmd("w", "a.txt", "A\n"))
    planning, release = threading.Event(), threading.Event()
    real = engine.plan

    def slow(operator, text, dialect="auto"):  # type: ignore[no-untyped-def]
        planning.set()
        assert release.wait(30), "the decision never finished while the preview was planned"
        return real(operator, text, dialect)

    monkeypatch.setattr(engine, "plan", slow)
    scan = asyncio.create_task(service.scan(write_cmd("w2", "b.txt", "B\n")))
    await asyncio.to_thread(planning.wait, 30)
    decided = await asyncio.wait_for(service.decide(pending["session"], "w", "approve"), 30)
    assert decided["item"]["status"] == "applied" and (ws_root / "a.txt").read_text() == "A\n"
    assert not scan.done()
    release.set()
    assert (await scan)["items"][0]["status"] == "pending"


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


async def test_sessions_over_the_root_share_its_open_workspace(
    service: SessionService, ws_root: Path
) -> None:
    """A scan opens no workspace or journal of its own (its jail, host-Python check and file
    locks, and finding the journal's folder, cost more than planning the reply): every session
    over the root uses the registry's, and forgetting a session leaves them open for the
    others and the file API. A subfolder's session still opens its own."""
    registry = service.registry
    shared, journal = registry.workspace("default"), registry.journal("default")
    ids = [(await service.scan(write_cmd("w", f"{n}.txt", "x\n")))["session"] for n in range(5)]
    await service.drain()  # two were forgotten (the cap is 3) and closed
    for session_id in ids[2:]:
        assert service._sessions[session_id].operator.workspace is shared
        assert service._sessions[session_id].operator.journal is journal
    assert shared.list_dir(".") == []  # nothing applied, and still open
    approved = await service.decide(ids[-1], "w", "approve")
    assert approved["item"]["status"] == "applied"
    assert [entry.path for entry in journal.entries()] == ["4.txt"]  # still open
    (ws_root / "sub").mkdir()
    narrowed = registry.new_operator("default", "sub")
    try:
        assert narrowed.workspace is not shared and narrowed.workspace.root == ws_root / "sub"
        assert narrowed.journal is not journal
    finally:
        narrowed.close()
    assert "sub" in {entry.name for entry in shared.list_dir(".")}  # open after both closes
    assert len(journal.entries()) == 1


async def test_whole_details_answer_the_items_without_formatting_the_results_again(
    service: SessionService, ws_root: Path
) -> None:
    """The MCP server answers with the items' whole details: the session's view for it leaves
    out the OPERATOR_RESULT blocks, which repeat a read's whole content (formatting them was
    a third of a 100 KB read's planning); the REST view keeps them."""
    text = "abc\n" * 5000
    (ws_root / "big.txt").write_text(text)
    block = "OPERATOR_CMD\nversion: 1\nid: r1\naction: fs.read\npath: big.txt\nEND_OPERATOR_CMD\n"
    whole = await service.scan(block, whole_details=True)
    assert whole["results_text"] is None and text in whole["items"][0]["details"]
    again = await service.get(whole["session"], whole_details=True)
    assert again["results_text"] is None and text in again["items"][0]["details"]
    shown = await service.get(whole["session"])
    encoded = base64.b64encode(text.encode()).decode()
    assert "OPERATOR_RESULT" in shown["results_text"] and encoded in shown["results_text"]


def test_a_shared_workspace_must_be_of_the_sessions_root(tmp_path: Path, ws_root: Path) -> None:
    from jupyter_operator.engine import Operator
    from jupyter_operator.workspace import Workspace

    other = tmp_path / "other"
    other.mkdir()
    with Workspace(other) as foreign, pytest.raises(ValueError, match="another root"):
        Operator(ws_root, journal_dir=tmp_path / "journal", workspace=foreign)


def test_resolve_roots_checks_names_and_folders(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    assert resolve_roots({"main": "a"}, str(tmp_path)) == {"main": (tmp_path / "a").resolve()}
    with pytest.raises(ValueError, match="not a directory"):
        resolve_roots({"main": "missing"}, str(tmp_path))
    with pytest.raises(ValueError, match="must match"):
        resolve_roots({"../x": "a"}, str(tmp_path))


# -- saved sessions: reloads, evictions and restarts ------------------------------------------


def _service(tmp_path: Path, ws_root: Path, **kwargs: object) -> SessionService:
    """A service as a freshly started server builds it (its own registry, the same folders)."""
    registry = WorkspaceRegistry({"default": ws_root}, journal_dir=tmp_path / "journal")
    store = SessionStore(tmp_path / "journal" / "sessions")
    return SessionService(registry, store=store, **kwargs)  # type: ignore[arg-type]


async def _stop(service: SessionService) -> None:
    service.close()
    await service.drain()
    service.registry.close()


async def test_a_pending_change_survives_a_restart(tmp_path: Path, ws_root: Path) -> None:
    (ws_root / "f.txt").write_text("old\n")
    first = _service(tmp_path, ws_root)
    scanned = await first.scan(write_cmd("w1", "f.txt", "new\n") + write_cmd("w2", "g.txt", "g\n"))
    await _stop(first)

    second = _service(tmp_path, ws_root)
    try:
        # The reattaching panel asks for the open sessions, then for the one it had.
        listed = await second.open_sessions()
        assert [s["session"] for s in listed["sessions"]] == [scanned["session"]]
        state = await second.get(scanned["session"])
        assert [i["status"] for i in state["items"]] == ["pending", "pending"]
        assert state["items"][0]["diff"] == scanned["items"][0]["diff"]
        answer = await second.decide(scanned["session"], "w1", "approve")
        assert answer["item"]["status"] == "applied"
        assert (ws_root / "f.txt").read_text() == "new\n"
        await second.decide(scanned["session"], "w2", "reject", "not now")
    finally:
        await _stop(second)

    # Decisions are saved too: a third start shows them and the results text.
    third = _service(tmp_path, ws_root)
    try:
        state = await third.get(scanned["session"])
        assert [i["status"] for i in state["items"]] == ["applied", "rejected"]
        assert "not now" in state["results_text"]
        assert (await third.open_sessions())["sessions"] == []
    finally:
        await _stop(third)


async def test_a_restored_preview_is_still_guarded_by_its_digest(
    tmp_path: Path, ws_root: Path
) -> None:
    (ws_root / "f.txt").write_text("old\n")
    first = _service(tmp_path, ws_root)
    scanned = await first.scan(write_cmd("w1", "f.txt", "new\n"))
    await _stop(first)
    (ws_root / "f.txt").write_text("changed by a person\n")

    second = _service(tmp_path, ws_root)
    try:
        answer = await second.decide(scanned["session"], "w1", "approve")
        assert answer["item"]["status"] == "stale"
        assert (ws_root / "f.txt").read_text() == "changed by a person\n"
    finally:
        await _stop(second)


async def test_an_evicted_session_comes_back_from_disk(tmp_path: Path, ws_root: Path) -> None:
    service = _service(tmp_path, ws_root, max_sessions=1)
    try:
        one = await service.scan(write_cmd("w", "one.txt", "1\n"))
        await service.scan(write_cmd("w", "two.txt", "2\n"))
        assert len(service) == 1  # memory stays bounded
        await service.decide(one["session"], "w", "approve")
        assert (ws_root / "one.txt").read_text() == "1\n"
        assert len(service) == 1
    finally:
        await _stop(service)


@pytest.mark.parametrize(
    "damage",
    [
        lambda raw: b"{not json",
        lambda raw: raw.replace(b'"format":1', b'"format":99'),
        # The previewed bytes no longer match their digest.
        lambda raw: raw.replace(base64.b64encode(b"new\n"), base64.b64encode(b"evil")),
        # The items no longer match the reply.
        lambda raw: raw.replace(b'"id":"w1"', b'"id":"zz"'),
    ],
)
async def test_a_damaged_saved_session_is_not_found_never_applied(
    tmp_path: Path, ws_root: Path, damage
) -> None:
    first = _service(tmp_path, ws_root)
    scanned = await first.scan(write_cmd("w1", "f.txt", "new\n"))
    await _stop(first)
    saved = tmp_path / "journal" / "sessions" / f"{scanned['session']}.json"
    saved.write_bytes(damage(saved.read_bytes()))

    second = _service(tmp_path, ws_root)
    try:
        with pytest.raises(ApiError) as info:
            await second.decide(scanned["session"], "w1", "approve")
        assert (info.value.status, info.value.code) == (404, "session_not_found")
        assert not (ws_root / "f.txt").exists()
        assert not saved.exists()
    finally:
        await _stop(second)


async def test_undo_after_a_restart_updates_the_saved_session(
    tmp_path: Path, ws_root: Path
) -> None:
    (ws_root / "f.txt").write_text("old\n")
    first = _service(tmp_path, ws_root)
    scanned = await first.scan(write_cmd("w1", "f.txt", "new\n"))
    await first.decide(scanned["session"], "w1", "approve")
    await _stop(first)

    second = _service(tmp_path, ws_root)
    try:
        [entry] = (await second.history("default"))["history"]
        answer = await second.undo("default", entry["entry_id"], scanned["session"])
        assert (ws_root / "f.txt").read_text() == "old\n"
        [item] = answer["session"]["items"]
        assert item["status"] == "undone" and "undid" in answer["session"]["results_text"]
    finally:
        await _stop(second)
    third = _service(tmp_path, ws_root)
    try:
        state = await third.get(scanned["session"])
        assert state["items"][0]["status"] == "undone"
        # Redo after another restart: the saved card shows the change applied again.
        answer = await third.redo("default", entry["entry_id"], scanned["session"])
        assert (ws_root / "f.txt").read_text() == "new\n"
        [item] = answer["session"]["items"]
        assert item["status"] == "applied" and item["ok"] is True
        assert "applied this change" in answer["session"]["results_text"]
    finally:
        await _stop(third)


def test_workspace_roots_are_shown_relative_to_the_server_root(tmp_path: Path) -> None:
    (tmp_path / "srv" / "proj").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    roots = resolve_roots({"default": "srv", "proj": "srv/proj", "out": "elsewhere"},
                          str(tmp_path))  # fmt: skip
    registry = WorkspaceRegistry(roots, journal_dir=tmp_path / "journal")
    base = tmp_path / "srv"
    assert [registry.relative_root(n, base) for n in ("default", "proj", "out")] == [
        ".",
        "proj",
        None,
    ]


async def test_a_decision_does_not_read_the_whole_history(
    service: SessionService, ws_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Which entry a decision made comes from its item: reading the journal cost time in
    proportion to the workspace's history, on every decision."""
    from jupyter_operator.workspace.journal import Journal

    scanned = await service.scan(write_cmd("w1", "f.txt", "new\n"))

    def no_reading(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the journal was read")

    monkeypatch.setattr(Journal, "entries", no_reading)
    await service.decide(scanned["session"], "w1", "approve")
    monkeypatch.undo()
    [entry] = (await service.history("default"))["history"]
    assert entry["session"] == scanned["session"]  # undo and history still find the session
    answer = await service.undo("default", entry["entry_id"], scanned["session"])
    assert answer["session"]["items"][0]["status"] == "undone"
    assert not (ws_root / "f.txt").exists()


async def test_a_tool_call_that_ended_unchanged_is_not_saved(tmp_path: Path, ws_root: Path) -> None:
    """An MCP client's read ends in its scan: its client has the answer and nothing in it can be
    decided or undone, so it is not written to disk (that was most of a 100 KB read's cost).
    A call that waits, a call a rule applied, and a reply's read (the panel reopens the session
    it had after a restart) are saved as before."""
    (ws_root / "big.txt").write_text("abc\n" * 5000)
    read = "OPERATOR_CMD\nversion: 1\nid: r1\naction: fs.read\npath: big.txt\nEND_OPERATOR_CMD\n"
    service = _service(tmp_path, ws_root)
    store = service.store
    assert store is not None
    try:
        call = await service.scan(read, label="client 1.0", whole_details=True)
        waits = await service.scan(write_cmd("w1", "new.txt", "x\n"), label="client 1.0")
        reply = await service.scan(read)
        saved = set(store.ids())
        assert call["session"] not in saved
        assert {waits["session"], reply["session"]} <= saved
    finally:
        await _stop(service)

    from jupyter_operator.engine import Policy

    registry = WorkspaceRegistry({"default": ws_root}, journal_dir=tmp_path / "journal",
                                 policy=Policy.parse("auto writes auto/**"))  # fmt: skip
    ruled = SessionService(registry, store=store)
    try:
        applied = await ruled.scan(write_cmd("w2", "auto/a.txt", "x\n"), label="client 1.0")
        assert applied["items"][0]["status"] == "applied" and applied["done"]
        assert applied["session"] in store.ids()  # undo may update it after a restart
    finally:
        await _stop(ruled)


# -- a client's calls gathered in one session ---------------------------------------------------


async def test_a_clients_waiting_calls_are_one_session_that_survives_a_restart(
    tmp_path: Path, ws_root: Path
) -> None:
    (ws_root / "f.txt").write_text("old\n")
    first = _service(tmp_path, ws_root)
    a = await first.scan(write_cmd("c1", "f.txt", "new\n"), label="agent 1", group="agent")
    read = await first.scan("OPERATOR_CMD\nversion: 1\nid: c2\naction: fs.read\npath: f.txt\n"
                            "END_OPERATOR_CMD\n", label="agent 1", group="agent")  # fmt: skip
    b = await first.scan(write_cmd("c3", "g.txt", "g\n"), label="agent 1", group="agent")
    other = await first.scan(write_cmd("c1", "h.txt", "h\n"), label="other 1", group="other")
    assert a["session"] == b["session"] != other["session"]
    assert read["session"] != a["session"] and read["done"]  # answered at once: its own
    assert [i["id"] for i in b["items"]] == ["c3"] and not b["done"]  # only the call's item
    await _stop(first)

    second = _service(tmp_path, ws_root)
    try:
        listed = (await second.open_sessions())["sessions"]
        assert {(s["session"], s["pending"], s["label"]) for s in listed} == {
            (a["session"], 2, "agent 1"), (other["session"], 1, "other 1")}
        answer = await second.decide(a["session"], "c3", "approve")
        assert answer["item"]["status"] == "applied" and answer["item"]["index"] == 1
        assert not answer["done"]  # c1 still waits
        await second.decide(a["session"], "c1", "reject", "keep old")
        state = await second.get(a["session"], only={"c3"})
        assert [i["id"] for i in state["items"]] == ["c3"] and state["done"]
        history = await second.history("default")
        assert history["history"][-1]["label"] == "agent 1"
        # the client's next waiting call joins the session it had before the restart
        later = await second.scan(write_cmd("c4", "k.txt", "k\n"), label="agent 1",
                                  group="agent")  # fmt: skip
        assert later["session"] == a["session"], "a restart forgot the client's session"
        assert [i["id"] for i in later["items"]] == ["c4"]
        elsewhere = await second.scan(write_cmd("c5", "m.txt", "m\n"), label="new 1",
                                      group="new")  # fmt: skip
        assert elsewhere["session"] not in (a["session"], other["session"])
    finally:
        await _stop(second)
    assert (ws_root / "g.txt").read_text() == "g\n"
    assert (ws_root / "f.txt").read_text() == "old\n"


async def test_a_clients_session_is_bounded_the_next_call_starts_another(
    service: SessionService, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jupyter_operator.server import client_runs

    monkeypatch.setattr(client_runs, "MAX_PARTS", 2)
    ids = [(await service.scan(write_cmd(f"c{n}", f"{n}.txt", "x\n"), group="g"))["session"]
           for n in range(3)]  # fmt: skip
    assert ids[0] == ids[1] != ids[2]
    assert len((await service.get(ids[0]))["items"]) == 2
    assert [i["index"] for i in (await service.get(ids[2]))["items"]] == [0]


@pytest.mark.parametrize(
    "damage",
    [
        # A call's previewed bytes no longer match their digest.
        lambda raw: raw.replace(base64.b64encode(b"two\n"), base64.b64encode(b"evil")),
        # A call's items no longer match its text, or its id is given twice.
        lambda raw: raw.replace(b'"id":"c2"', b'"id":"zz"'),
        lambda raw: raw.replace(b"id: c2", b"id: c1").replace(b'"id":"c2"', b'"id":"c1"'),
        lambda raw: raw.replace(b'"parts":[', b'"parts":[1,'),
        lambda raw: raw.replace(b'"parts":[', b'"parts":{"a":[').replace(b']}', b']}}', 1),
    ],
)
async def test_a_damaged_saved_client_session_is_not_found_never_applied(
    tmp_path: Path, ws_root: Path, damage
) -> None:
    first = _service(tmp_path, ws_root)
    one = await first.scan(write_cmd("c1", "one.txt", "one\n"), label="a 1", group="a")
    await first.scan(write_cmd("c2", "two.txt", "two\n"), label="a 1", group="a")
    await _stop(first)
    saved = tmp_path / "journal" / "sessions" / f"{one['session']}.json"
    raw = saved.read_bytes()
    assert damage(raw) != raw, "the damage must change the file"
    saved.write_bytes(damage(raw))

    second = _service(tmp_path, ws_root)
    try:
        for item in ("c1", "c2"):
            with pytest.raises(ApiError) as info:
                await second.decide(one["session"], item, "approve")
            assert (info.value.status, info.value.code) == (404, "session_not_found")
        assert not (ws_root / "one.txt").exists() and not (ws_root / "two.txt").exists()
        assert not saved.exists()
    finally:
        await _stop(second)
