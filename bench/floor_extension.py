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
"""

from __future__ import annotations

import asyncio
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
    jfd = os.open(journal, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(jfd, json.dumps({"path": path, "size": len(content)}).encode() + b"\n")
        os.fsync(jfd)
    finally:
        os.close(jfd)


class FloorScan(APIHandler):
    auth_resource = "contents"

    @web.authenticated
    @authorized
    async def post(self) -> None:
        # The cheapest of each step: pydantic-core's parser (as ours), one replace for the diff.
        operation = from_json(from_json(self.request.body)["text"])[0]
        content = operation["content"]
        _PENDING[operation["id"]] = (operation["path"], content)
        lines = content.count("\n")
        diff = "+" + content[:-1].replace("\n", "\n+") + "\n"
        header = f"--- /dev/null\n+++ b/{operation['path']}\n@@ -0,0 +1,{lines} @@\n"
        self.finish(json.dumps({"items": [{"id": operation["id"], "diff": header + diff}]}))


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


def _jupyter_server_extension_points() -> list[dict[str, Any]]:
    return [{"module": "floor_extension"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    base = serverapp.web_app.settings["base_url"]
    journal = os.path.join(serverapp.runtime_dir, "floor-journal.jsonl")
    serverapp.web_app.settings["bench_floor_journal"] = journal
    serverapp.web_app.add_handlers(".*$", [
        (f"{base}bench-floor/scan", FloorScan),
        (f"{base}bench-floor/decide", FloorDecide),
    ])  # fmt: skip
