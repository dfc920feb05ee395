"""A bench-only jupyter-server extension: the least a scan plus decision of one write can do.

``bench/server.py`` loads it beside jupyter_operator to measure a floor in the same run. Two
requests on the same handler stack as ours (token auth, ``authorized``, JSON in and out):

- ``POST /bench-floor/scan`` takes a JSON ``createFile`` reply, keeps its content in memory and
  answers with the content as a unified diff of a new file (the bytes a preview must carry out);
- ``POST /bench-floor/decide`` writes it as design rule D4 asks (a temp file in the same folder,
  ``fsync``, ``os.replace``, ``fsync`` of the folder) and appends one synced line to a journal
  (undo needs a durable record), in a worker thread as jupyter-server's contents manager does.

No validation, no jail, no policy, no session state, no undo blobs: what is left is what any
approve-then-write design pays under D4, so the ratio of this floor to the GET bounds from below
what ``scan + decide`` can reach.

The rules floor (``POST /bench-floor/rules-scan`` and ``rules-decide``) adds the least each of
our design rules asks, done the cheapest way and still with no engine: the strict parse (D7),
the lexical path check (D1), the walk by descriptors (D2), planning in a worker thread (it reads
the disk), the preview bound to the apply by a check under a cross-process lock (D5), and the
undo journal's entry id, redo copy and synced entry. ``bench/server.py`` measures both, so the
gap between ours and the floor splits into what the rules cost and what our code costs.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import json
import os
import secrets
from typing import Any

from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler
from pydantic_core import from_json
from tornado import web

_PENDING: dict[str, tuple[str, str]] = {}


def _write_synced(root: str, journal: str, path: str, content: str) -> None:
    target = os.path.join(root, path)
    folder = os.path.dirname(target)
    os.makedirs(folder, exist_ok=True)
    tmp = os.path.join(folder, f".~floor-{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        os.write(fd, content.encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, target)
    dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)
    _append_synced(journal, {"path": path, "size": len(content)})


def _append_synced(name: str, record: dict[str, Any], dir_fd: int | None = None) -> None:
    """Append ``record`` as one JSON line to the journal ``name`` and sync it."""
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600, dir_fd=dir_fd)
    try:
        os.write(fd, json.dumps(record).encode() + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)


def _new_file_diff(path: str, content: str) -> str:
    """The unified diff of a new file holding ``content`` (one replace: the cheapest)."""
    lines = content.count("\n")
    header = f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{lines} @@\n"
    return header + "+" + content[:-1].replace("\n", "\n+") + "\n"


class FloorScan(APIHandler):
    auth_resource = "contents"

    @web.authenticated
    @authorized
    async def post(self) -> None:
        # The cheapest of each step: pydantic-core's parser (as ours), one replace for the diff.
        operation = from_json(from_json(self.request.body)["text"])[0]
        content = operation["content"]
        _PENDING[operation["id"]] = (operation["path"], content)
        diff = _new_file_diff(operation["path"], content)
        self.finish(json.dumps({"items": [{"id": operation["id"], "diff": diff}]}))


class FloorDecide(APIHandler):
    auth_resource = "contents"

    @web.authenticated
    @authorized
    async def post(self) -> None:
        item = from_json(self.request.body)["id"]
        path, content = _PENDING.pop(item)
        root = self.settings["server_root_dir"]
        journal = self.settings["bench_floor_journal"]
        await asyncio.to_thread(_write_synced, root, journal, path, content)
        self.finish(json.dumps({"item": {"id": item, "status": "applied"}}))


# The rules floor: the same two requests with the least each design rule of ours asks, done the
# cheapest way, still with no engine (no policy, no history view, no session beyond a dict).
# What is left between it and ours is our code's own cost; between it and the floor above, the
# rules' cost. Each step names the design rule (D1, D2, D4, D5, D7) or convention it keeps.

_O_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_RULES_PENDING: dict[str, tuple[tuple[str, ...], bytes]] = {}


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ValueError("duplicate key")  # D7, R12: a duplicate key is refused, not last-wins
    return out


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")  # D7, R12: NaN and Infinity are refused


def _components(path: str) -> tuple[str, ...]:
    """D1: lexical checks before any system call (relative, no empty, dot or dot-dot part)."""
    parts = tuple(path.split("/"))
    if (
        not path
        or path.startswith("/")
        or "\\" in path
        or "\0" in path
        or any(part in ("", ".", "..") for part in parts)
    ):
        raise ValueError("bad path")
    return parts


def _open_parent(root_fd: int, parts: tuple[str, ...], *, create: bool) -> int:
    """D2: walk from the open root by descriptors, following no link."""
    fd = os.dup(root_fd)
    try:
        for part in parts[:-1]:
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fd)
            child = os.open(part, _O_DIR, dir_fd=fd)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _state(parent: int, name: str) -> tuple[int, int] | None:
    """What the preview was made against (D5): absent, or the file's inode and mtime."""
    try:
        info = os.lstat(name, dir_fd=parent)
    except FileNotFoundError:
        return None
    return (info.st_ino, info.st_mtime_ns)


def _rules_plan(root_fd: int, text: str) -> tuple[str, str]:
    """A preview: strict parse (D7), lexical path (D1), the target's state by descriptors
    (D2, D5), the diff of a new file."""
    operation = json.loads(text, object_pairs_hook=_no_duplicates,
                           parse_constant=_refuse_constant)[0]  # fmt: skip
    parts = _components(operation["path"])
    content = operation["content"]
    try:
        parent = _open_parent(root_fd, parts, create=False)
    except FileNotFoundError:
        state = None
    else:
        try:
            state = _state(parent, parts[-1])
        finally:
            os.close(parent)
    if state is not None:
        raise ValueError("the rules floor only creates files")
    _RULES_PENDING[operation["id"]] = (parts, content.encode())
    return operation["id"], _new_file_diff(operation["path"], content)


def _rules_apply(root_fd: int, journal_fd: int, parts: tuple[str, ...], data: bytes) -> None:
    """D4's write with D5's check under a cross-process lock, and the undo journal: an entry
    id unique across processes, the new bytes for redo (unsynced, as ours) and a synced entry."""
    with os.fdopen(os.open("counter", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600,
                           dir_fd=journal_fd), "r+b", buffering=0) as counter:  # fmt: skip
        fcntl.flock(counter, fcntl.LOCK_EX)
        number = int(os.pread(counter.fileno(), 32, 0) or b"0") + 1
        os.pwrite(counter.fileno(), str(number).encode(), 0)
    digest = hashlib.sha256(data).hexdigest()
    blob = os.open(f"blobs/{digest}", os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600,
                   dir_fd=journal_fd)  # fmt: skip
    try:
        os.write(blob, data)
    finally:
        os.close(blob)
    parent = _open_parent(root_fd, parts, create=True)
    try:
        tmp = f".~floor-{secrets.token_hex(4)}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644, dir_fd=parent)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        where = f"{os.fstat(parent).st_ino}/{parts[-1]}".encode()
        stripe = int.from_bytes(hashlib.sha256(where).digest()[:4], "big") % 64
        lock = os.open(f"locks/{stripe}", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600,
                       dir_fd=journal_fd)  # fmt: skip
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if _state(parent, parts[-1]) is not None:
                os.unlink(tmp, dir_fd=parent)
                raise FileExistsError("stale preview")
            os.replace(tmp, parts[-1], src_dir_fd=parent, dst_dir_fd=parent)
        finally:
            os.close(lock)
        os.fsync(parent)
    finally:
        os.close(parent)
    entry = {"id": f"j{number}", "path": "/".join(parts), "after": digest}
    _append_synced("entries.jsonl", entry, dir_fd=journal_fd)


class RulesFloorScan(APIHandler):
    auth_resource = "contents"

    @web.authenticated
    @authorized
    async def post(self) -> None:
        text = from_json(self.request.body)["text"]
        # A preview reads the disk (its target's state here; up to the caps in general), and
        # blocking file work runs in a worker thread, as jupyter-server's contents manager does.
        root = self.settings["bench_rules_root"]
        try:
            item, diff = await asyncio.to_thread(_rules_plan, root, text)
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise web.HTTPError(400, "refused") from exc
        self.finish(json.dumps({"items": [{"id": item, "diff": diff}]}))


class RulesFloorDecide(APIHandler):
    auth_resource = "contents"

    @web.authenticated
    @authorized
    async def post(self) -> None:
        item = from_json(self.request.body)["id"]
        parts, data = _RULES_PENDING.pop(item)
        try:
            await asyncio.to_thread(_rules_apply, self.settings["bench_rules_root"],
                                    self.settings["bench_rules_journal"], parts, data)  # fmt: skip
        except FileExistsError as exc:
            raise web.HTTPError(409, "stale preview") from exc
        self.finish(json.dumps({"item": {"id": item, "status": "applied"}}))


def _jupyter_server_extension_points() -> list[dict[str, Any]]:
    return [{"module": "floor_extension"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    base = serverapp.web_app.settings["base_url"]
    journal = os.path.join(serverapp.runtime_dir, "floor-journal.jsonl")
    serverapp.web_app.settings["bench_floor_journal"] = journal
    # The rules floor's root and journal, opened once (as ours keeps its journal open).
    rules_journal = os.path.join(serverapp.runtime_dir, "floor-rules-journal")
    for folder in ("blobs", "locks"):
        os.makedirs(os.path.join(rules_journal, folder), mode=0o700, exist_ok=True)
    settings = serverapp.web_app.settings
    settings["bench_rules_journal"] = os.open(rules_journal, _O_DIR)
    settings["bench_rules_root"] = os.open(settings["server_root_dir"], _O_DIR)
    serverapp.web_app.add_handlers(".*$", [
        (f"{base}bench-floor/scan", FloorScan),
        (f"{base}bench-floor/decide", FloorDecide),
        (f"{base}bench-floor/rules-scan", RulesFloorScan),
        (f"{base}bench-floor/rules-decide", RulesFloorDecide),
    ])  # fmt: skip
