"""Server round trips against jupyter-server's own contents API, measured in the same run.

Starts a real ``jupyter server`` on loopback with the extension enabled, then measures:

- ``file_read`` of a 100 KB file over the file API WebSocket (one persistent connection);
- ``GET /api/contents/<file>`` of the same file (one persistent keep-alive connection), the
  baseline: jupyter-server's own way to read a file;
- ``POST scan`` + ``POST sessions/<id>/decide`` for one ``fs.write`` of a new 100 KB file, against
  ``GET /api/contents`` of the file it wrote (target: median at most 2x). One Operator block holds
  at most 50,000 characters (the spec), so the 100 KB file is written with a JSON ``createFile``
  (the engine's ``fs.write``); the largest Operator block (about 37 KB) and a 1 KB one are shown
  too, each against the GET of its own file and of the 100 KB one;
- the floor of any such flow, measured the same way: ``bench/floor_extension.py`` serves the
  same two requests on the same handler stack with nothing but a D4 write (temp file, fsync,
  replace, folder fsync) and one synced journal line behind them, against the GET of its file;
- for context, no target: two of the extension's lightest requests (``GET workspaces``), the
  floor of any scan plus decision; a scan of 100 KB of prose (100 KB in, nothing to do); and
  jupyter-server's own save of 100 KB (``PUT``).

The 100 KB scan plus decision is also set against the floor's (target: at most 1.2x): what
the extension adds to a synced write and its journal line. The same floor extension also
serves a rules floor: the floor plus the least our design rules ask (strict parse, lexical
path, descriptor walk, planning in a worker thread, the check under a cross-process lock,
the undo journal's id and redo copy), each done the cheapest way. It splits the gap: the
rules floor over the floor is what the rules cost, ours over the rules floor what our code
costs.

Each measurement alternates between the kinds in several rounds, so drift on a shared machine
hits both alike. It prints median and p99 per kind and the ratio file_read / contents (target
<= 1.5), per round and the best round. Absolute timings depend on the machine; the ratio is
the figure to compare.

Usage: ``python bench/server.py [--rounds 5] [--requests 40]``
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import http.client
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

REPO = Path(__file__).resolve().parents[1]
FILE_SIZE = 100_000
MAX_BLOCK_CHARS = 50_000  # the spec's bound on one OPERATOR_CMD block


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(work: Path, port: int, token: str, *, floor: str = "floor_extension",
                 paths: tuple[Path, ...] = (REPO / "bench",),
                 rules: tuple[str, ...] = ()) -> subprocess.Popen[bytes]:  # fmt: skip
    """``jupyter server`` with only this extension and the ``floor`` one (importable from
    ``paths``), an isolated config, a temp journal and the policy ``rules``."""
    config = work / "config"
    config.mkdir()
    operator: dict[str, object] = {"journal_dir": str(work / "journal")}
    if rules:
        operator["policy_rules"] = list(rules)
    (config / "jupyter_server_config.json").write_text(
        json.dumps(
            {
                "ServerApp": {"jpserver_extensions": {"jupyter_operator": True, floor: True}},
                "OperatorExtension": operator,
            }
        )
    )
    env = dict(os.environ)
    env.update(
        JUPYTER_CONFIG_DIR=str(config),
        JUPYTER_CONFIG_PATH=str(config),
        JUPYTER_DATA_DIR=str(work / "data"),
        JUPYTER_RUNTIME_DIR=str(work / "runtime"),
        PYTHONPATH=os.pathsep.join(
            filter(None, [str(REPO), *map(str, paths), env.get("PYTHONPATH", "")])
        ),
    )
    args = [
        sys.executable,
        "-m",
        "jupyter_server",
        "--no-browser",
        "--allow-root",
        f"--port={port}",
        "--ServerApp.ip=127.0.0.1",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={work / 'root'}",
        "--ServerApp.log_level=WARN",
    ]
    return subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def wait_ready(port: int, token: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/jupyter-operator/api/workspaces",
        headers={"Authorization": f"token {token}"},
    )
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"server exited: {process.stderr.read().decode()[-2000:]}")
        try:
            with urllib.request.urlopen(request, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("server did not become ready in 60 s")


class Rest:
    """A keep-alive HTTP/1.1 connection with the token header."""

    def __init__(self, port: int, token: str) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.headers = {"Authorization": f"token {token}", "Content-Type": "application/json"}

    def call(self, method: str, path: str, body: object = None) -> dict:
        status, payload = self.send(method, path, body)
        if status not in (200, 201):
            raise SystemExit(f"{method} {path}: {status} {payload[:300]!r}")
        return json.loads(payload)

    def send(self, method: str, path: str, body: object = None) -> tuple[int, bytes]:
        """The status and body of one request, whatever the status."""
        data = None if body is None else json.dumps(body)
        self.connection.request(method, path, body=data, headers=self.headers)
        response = self.connection.getresponse()
        return response.status, response.read()


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def fmt(label: str, samples: list[float]) -> str:
    median, p99 = statistics.median(samples) * 1e3, percentile(samples, 0.99) * 1e3
    return f"{label:38s} n={len(samples):4d}  median {median:7.2f} ms  p99 {p99:7.2f} ms"


async def measure(port: int, token: str, rounds: int, requests: int) -> None:
    rest = Rest(port, token)
    ws = await websocket_connect(
        HTTPRequest(
            f"ws://127.0.0.1:{port}/jupyter-operator/files",
            headers={"Authorization": f"token {token}"},
        )
    )
    read_msg = json.dumps({"type": "file_read", "workspace": "default", "path": "big.txt"})

    async def file_read() -> None:
        await ws.write_message(read_msg)
        reply = json.loads(await ws.read_message())
        assert reply["type"] == "file_read_result" and reply["size"] == FILE_SIZE, reply

    def contents() -> None:
        model = rest.call("GET", "/api/contents/big.txt?type=file&format=text&content=1")
        assert len(model["content"]) == FILE_SIZE

    counter = iter(range(1_000_000))
    written: dict[str, str] = {}

    def read_written(kind: str) -> Callable[[], None]:
        def read() -> None:
            path = written[kind]
            model = rest.call("GET", f"/api/contents/{path}?type=file&format=text&content=1")
            assert model["content"].startswith("line "), model

        return read

    def decide(session: dict, item: str) -> None:
        done = rest.call(
            "POST",
            f"/jupyter-operator/api/sessions/{session['session']}/decide",
            {"id": item, "decision": "approve"},
        )
        assert done["item"]["status"] == "applied", done["item"]

    # Each write's reply is made before its clock starts: what is timed is the two requests.
    def operator_write(size: int, kind: str) -> Callable[[], Callable[[], None]]:
        def prepare() -> Callable[[], None]:
            n = next(counter)
            data = f"line {n:06d}\n".encode() * (size // 12)
            content = base64.b64encode(data).decode()
            text = (
                f"OPERATOR_CMD\nversion: 1\nid: w{n}\naction: fs.write\npath: out/f{n}.txt\n"
                f"content_b64: {content}\nEND_OPERATOR_CMD\n"
            )

            def write() -> None:
                session = rest.call("POST", "/jupyter-operator/api/scan", {"text": text})
                decide(session, f"w{n}")
                written[kind] = f"out/f{n}.txt"

            return write

        return prepare

    def create_file(size: int, letter: str) -> tuple[str, str, dict]:
        """A new id, its path and a scan body creating that file (ours and the floor alike)."""
        n = next(counter)
        data = f"line {n:06d}\n" * (size // 12)
        path = f"out/{letter}{n}.txt"
        ops = [{"type": "createFile", "id": f"w{n}", "path": path, "content": data}]
        return f"w{n}", path, {"text": json.dumps(ops), "dialect": "json"}

    def json_write(size: int, kind: str) -> Callable[[], Callable[[], None]]:
        def prepare() -> Callable[[], None]:
            item, path, body = create_file(size, "j")

            def write() -> None:
                session = rest.call("POST", "/jupyter-operator/api/scan", body)
                decide(session, item)
                written[kind] = path

            return write

        return prepare

    # The floor (bench/floor_extension.py): the same two requests and bytes, a D4 write and one
    # synced journal line, nothing else. What scan + decide can reach while writes stay synced.
    # The rules floor ("rules-"): the same, with the least our design rules ask added.
    def floor_write(size: int, kind: str, rules: str = "") -> Callable[[], Callable[[], None]]:
        def prepare() -> Callable[[], None]:
            item, path, body = create_file(size, "r" if rules else "z")

            def write() -> None:
                scanned = rest.call("POST", f"/bench-floor/{rules}scan", body)
                assert scanned["items"][0]["diff"].count("\n") == size // 12 + 3, scanned
                done = rest.call("POST", f"/bench-floor/{rules}decide", {"id": item})
                assert done["item"]["status"] == "applied", done
                written[kind] = path

            return write

        return prepare

    # The largest Operator fs.write one block may carry: the spec bounds a block to 50,000
    # characters, so its base64 content stays under that (about 37 KB of file).
    block_max = (MAX_BLOCK_CHARS - 200) // 4 * 3
    writes = {
        "write_json_100k": json_write(FILE_SIZE, "write_json_100k"),
        "write_block_max": operator_write(block_max, "write_block_max"),
        "write_1k": operator_write(1_000, "write_1k"),
        "floor_100k": floor_write(FILE_SIZE, "floor_100k"),
        "rules_floor_100k": floor_write(FILE_SIZE, "rules_floor_100k", "rules-"),
    }

    # Context, no target: what any two requests of this extension cost (the lightest one,
    # twice), and jupyter-server's own save of the same 100 KB (PUT, synced like ours).
    def two_requests() -> None:
        for _ in range(2):
            rest.call("GET", "/jupyter-operator/api/workspaces")

    def put_prepare() -> Callable[[], None]:
        n = next(counter)
        model = {"type": "file", "format": "text", "content": f"line {n:06d}\n" * (FILE_SIZE // 12)}

        def put() -> None:
            rest.call("PUT", f"/api/contents/out/p{n}.txt", model)

        return put

    # And one request that carries 100 KB in and does next to nothing with it: a reply of prose
    # with no command (with the GET of 100 KB, the data's part of the floor).
    prose = {"text": ("Plain prose, no command here. " * 3334)[:FILE_SIZE]}

    def prose_scan() -> None:
        assert rest.call("POST", "/jupyter-operator/api/scan", prose)["items"] == []

    context = {
        "two_requests": lambda: two_requests,
        "prose_100k": lambda: prose_scan,
        "put_100k": put_prepare,
    }

    # Warm up every path (imports, caches, connection setup) before timing.
    for _ in range(5):
        await file_read()
        contents()
        for kind, prepare in writes.items():
            prepare()()
            read_written(kind)()
        for prepare in context.values():
            prepare()()

    # The rules floor keeps the rules it stands for: it refuses what they refuse (after the
    # warm-up, which made the folder it writes in).
    def rules_scan_refuses(text: str) -> None:
        status, _ = rest.send("POST", "/bench-floor/rules-scan", {"text": text})
        assert status == 400, (status, text)

    new = {"type": "createFile", "id": "r", "path": "out/ok.txt", "content": "x\n"}
    rules_scan_refuses('[{"type": "createFile", "id": "r", "id": "s", "path": "a", "content": ""}]')
    rules_scan_refuses(json.dumps([{**new, "path": "../outside.txt"}]))
    rules_scan_refuses(json.dumps([new]).replace('"x\\n"', "NaN"))
    item, path, body = create_file(1_000, "r")
    rest.call("POST", "/bench-floor/rules-scan", body)
    rest.call("PUT", f"/api/contents/{path}", {"type": "file", "format": "text", "content": "x"})
    assert rest.send("POST", "/bench-floor/rules-decide", {"id": item})[0] == 409

    samples: dict[str, list[float]] = {"file_read": [], "contents": [], **{k: [] for k in context}}
    for kind in writes:
        samples[kind] = []
        samples[f"get_{kind}"] = []
    ratios, floors, rules_floors = [], [], []
    for r in range(rounds):
        this_round: dict[str, list[float]] = {k: [] for k in samples}
        for _ in range(requests):
            start = time.perf_counter()
            await file_read()
            this_round["file_read"].append(time.perf_counter() - start)
            start = time.perf_counter()
            contents()
            this_round["contents"].append(time.perf_counter() - start)
        for _ in range(max(1, requests // 4)):
            for kind, prepare in writes.items():
                write = prepare()
                start = time.perf_counter()
                write()
                this_round[kind].append(time.perf_counter() - start)
                start = time.perf_counter()
                read_written(kind)()
                this_round[f"get_{kind}"].append(time.perf_counter() - start)
            for kind, prepare in context.items():
                run = prepare()
                start = time.perf_counter()
                run()
                this_round[kind].append(time.perf_counter() - start)
        ratio = statistics.median(this_round["file_read"]) / statistics.median(
            this_round["contents"]
        )
        ratios.append(ratio)
        target = statistics.median(this_round["write_json_100k"]) / statistics.median(
            this_round["get_write_json_100k"]
        )
        floor = statistics.median(this_round["write_json_100k"]) / statistics.median(
            this_round["floor_100k"]
        )
        floors.append(floor)
        rules_floor = statistics.median(this_round["rules_floor_100k"]) / statistics.median(
            this_round["floor_100k"]
        )
        rules_floors.append(rules_floor)
        print(
            f"round {r + 1}: file_read/contents {ratio:.2f}, "
            f"scan+decide of 100 KB / GET of it {target:.2f}, / the floor's {floor:.2f}; "
            f"the rules floor / the floor {rules_floor:.2f}"
        )
        for key, values in this_round.items():
            samples[key].extend(values)
    ws.close()
    rest.connection.close()

    print()
    print(fmt("file_read over WebSocket (100 KB)", samples["file_read"]))
    print(fmt("GET /api/contents (100 KB, baseline)", samples["contents"]))
    labels = {
        "write_json_100k": "100 KB (JSON createFile)",
        "write_block_max": f"{block_max // 1000} KB (Operator, largest block)",
        "write_1k": "1 KB (Operator)",
        "floor_100k": "floor, 100 KB (D4 write only)",
        "rules_floor_100k": "rules floor, 100 KB (the floor and what our rules ask)",
    }
    for kind, label in labels.items():
        print(fmt(f"scan + decide, {label}", samples[kind]))
        print(fmt("  GET /api/contents of that file", samples[f"get_{kind}"]))
    print(fmt("context: two GET workspaces of ours", samples["two_requests"]))
    print(fmt("context: POST scan of 100 KB of prose", samples["prose_100k"]))
    print(fmt("context: PUT /api/contents, 100 KB", samples["put_100k"]))
    overall = statistics.median(samples["file_read"]) / statistics.median(samples["contents"])
    print()
    print(
        f"ratio file_read / contents: overall {overall:.2f}, best round {min(ratios):.2f} "
        f"(target <= 1.5)"
    )
    for kind, label in labels.items():
        own = statistics.median(samples[kind]) / statistics.median(samples[f"get_{kind}"])
        big = statistics.median(samples[kind]) / statistics.median(samples["contents"])
        goal = " (target <= 2)" if kind == "write_json_100k" else ""
        print(
            f"ratio scan+decide / GET of the file written, {label}: {own:.2f}{goal}; "
            f"/ GET of the 100 KB file: {big:.2f}"
        )
    over_floor = statistics.median(samples["write_json_100k"]) / statistics.median(
        samples["floor_100k"]
    )
    print(
        f"ratio scan+decide of 100 KB / the floor's: overall {over_floor:.2f}, "
        f"best round {min(floors):.2f} (target <= 1.2)"
    )
    rules_over_floor = statistics.median(samples["rules_floor_100k"]) / statistics.median(
        samples["floor_100k"]
    )
    over_rules = statistics.median(samples["write_json_100k"]) / statistics.median(
        samples["rules_floor_100k"]
    )
    print(
        f"ratio the rules floor / the floor: overall {rules_over_floor:.2f}, best round "
        f"{min(rules_floors):.2f}; scan+decide of 100 KB / the rules floor: {over_rules:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=40, help="per kind and round")
    args = parser.parse_args()
    token = secrets.token_hex(16)
    with tempfile.TemporaryDirectory(prefix="operator-bench-") as tmp:
        work = Path(tmp)
        (work / "root").mkdir()
        line = "x" * 99 + "\n"
        (work / "root" / "big.txt").write_text(line * (FILE_SIZE // len(line)))
        port = free_port()
        process = start_server(work, port, token)
        try:
            wait_ready(port, token, process)
            asyncio.run(measure(port, token, args.rounds, args.requests))
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


if __name__ == "__main__":
    main()
