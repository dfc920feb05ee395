"""The MCP endpoint against the REST routes it stands beside, measured in the same run.

Starts a real ``jupyter server`` on loopback with the extension enabled and one rule,
``auto writes auto/**``, then measures:

- ``read_file`` of a 100 KB file through ``{base_url}jupyter-operator/mcp``, against ``GET
  /api/contents`` of the same file (jupyter-server's own read, one keep-alive connection): target
  at most 1.5x. For context, no target: ``POST scan`` of the same read (the engine's part);
- ``write_file`` of a new file the rule approves (applied within the one call), against our own
  ``POST scan`` + ``POST sessions/<id>/decide`` of the same write (the same ``OPERATOR_CMD`` text
  the tool renders, to a path no rule covers, approved by the decide): target at most 1.2x. For
  context, no target: the REST scan of a write the rule approves (one request, no decision);
- 100 read calls at once from 10 clients (10 each): any error fails the run; p50/p99 of one call;
- the floor of any tool call: ``bench_noop``, a tool a bench-only extension
  (``bench/mcp_floor/``) adds to the same server, answers the same 100 KB text without planning
  anything. Against ``GET /api/contents``: what the SDK (server and client) and our bridge cost
  whatever a tool does; ``read_file`` against it: what our planning adds.

Each call is measured two ways. The official client SDK (``mcp``), as a coding agent would call:
its per-call work (pydantic models of requests and results, its task group and streams, the SSE
parser) runs in this process and counts. And raw HTTP: the same JSON-RPC bodies and headers on one
keep-alive connection after the same handshake, with the server-sent event read by hand: what the
server costs. Both speak the 2025-11-25 protocol (the ``initialize`` handshake and an
``Mcp-Session-Id``), the one clients use today.

Each measurement alternates between the kinds in several rounds, so drift on a shared machine hits
all alike; per round it prints the ratios, at the end median and p99 per kind and the ratios over
all rounds and for the best round. Absolute timings depend on the machine; the ratios are the
figures to compare.

Usage: ``python bench/mcp.py [--rounds 5] [--requests 30] [--write-kb 1 30]``
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import importlib.util
import json
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
# Run as a script, this file's folder is first on sys.path and its name would shadow the SDK.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, str(REPO))

import httpx2  # noqa: E402  (the SDK's HTTP client)
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp_types import Implementation  # noqa: E402

from jupyter_operator.server.mcp_tools import render  # noqa: E402


def _server_bench() -> Any:
    """bench/server.py, for its keep-alive REST client and helpers (not importable by name
    here: this folder is off sys.path, see above)."""
    spec = importlib.util.spec_from_file_location("server_bench", HERE / "server.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


server_bench = _server_bench()
Rest, fmt, free_port, percentile, wait_ready = (server_bench.Rest, server_bench.fmt,
                                                server_bench.free_port, server_bench.percentile,
                                                server_bench.wait_ready)  # fmt: skip

FILE_SIZE = 100_000
PROTOCOL = "2025-11-25"
RULE = "auto writes auto/**"
#: The floor's tool (``bench/mcp_floor/mcp_floor_extension.py``): big.txt's text, nothing planned.
NOOP = "bench_noop"
CLIENTS, CALLS_EACH = 10, 10


def start_server(work: Path, port: int, token: str) -> subprocess.Popen[bytes]:
    """bench/server.py's server with one rule and the floor's no-op tool; the floor's folder,
    not this one, goes on the server's path: this folder would shadow the SDK there too."""
    return server_bench.start_server(work, port, token, floor="mcp_floor_extension",
                                     paths=(HERE / "mcp_floor",), rules=(RULE,))  # fmt: skip


class RawMcp:
    """An MCP client by hand: JSON-RPC over one keep-alive HTTP/1.1 connection, the SSE answer
    parsed here. The same bodies and headers the SDK sends, without its per-call machinery."""

    def __init__(self, port: int, token: str, path: str = "/jupyter-operator/mcp") -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.path = path
        self.headers = {
            "Authorization": f"token {token}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        self.ids = iter(range(1, 1_000_000))

    def post(self, body: dict[str, Any]) -> dict[str, Any] | None:
        self.connection.request("POST", self.path, body=json.dumps(body), headers=self.headers)
        response = self.connection.getresponse()
        payload = response.read()
        if response.status == 202:  # a notification: accepted, nothing to answer
            return None
        if response.status != 200:
            raise SystemExit(f"MCP POST: {response.status} {payload[:300]!r}")
        if "Mcp-Session-Id" not in self.headers and response.getheader("mcp-session-id"):
            self.headers["Mcp-Session-Id"] = response.getheader("mcp-session-id") or ""
        if (response.getheader("content-type") or "").startswith("application/json"):
            return dict(json.loads(payload))
        # Server-sent events: the answer is the event whose data carries our id.
        for line in payload.decode().splitlines():
            if line.startswith("data:"):
                message = json.loads(line[5:])
                if message.get("id") == body.get("id"):
                    return dict(message)
        raise SystemExit(f"no answer to {body.get('method')} in {payload[:300]!r}")

    def initialize(self) -> None:
        self.post(
            {
                "jsonrpc": "2.0",
                "id": next(self.ids),
                "method": "initialize",
                "params": {
                    "protocolVersion": PROTOCOL,
                    "capabilities": {},
                    "clientInfo": {"name": "bench-raw", "version": "1.0"},
                },
            }
        )
        self.headers["mcp-protocol-version"] = PROTOCOL
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        answer = self.post(
            {
                "jsonrpc": "2.0",
                "id": next(self.ids),
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments},
            }
        )
        assert answer is not None and "result" in answer, answer
        return dict(answer["result"])

    def close(self) -> None:
        self.connection.request("DELETE", self.path, headers=self.headers)
        self.connection.getresponse().read()
        self.connection.close()


def sdk_client(url: str, token: str, name: str) -> Client:
    """The official SDK's client over Streamable HTTP, with the token header."""
    http = httpx2.AsyncClient(headers={"Authorization": f"token {token}"},
                              timeout=httpx2.Timeout(60, read=120))  # fmt: skip
    return Client(streamable_http_client(url, http_client=http),
                  client_info=Implementation(name=name, version="1.0"), mode="legacy")  # fmt: skip


def result_text(result: Any) -> str:
    return "\n".join(part.text for part in result.content)


async def measure(port: int, token: str, rounds: int, requests: int, write_kb: list[int]) -> None:
    url = f"http://127.0.0.1:{port}/jupyter-operator/mcp"
    rest = Rest(port, token)
    raw = RawMcp(port, token)
    raw.initialize()
    counter = iter(range(1_000_000))

    async with sdk_client(url, token, "bench-sdk") as sdk:

        async def sdk_read() -> None:
            result = await sdk.call_tool("read_file", {"path": "big.txt"})
            text = result_text(result)
            assert not result.is_error and len(text) >= FILE_SIZE, (len(text), text[:200])

        async def raw_read() -> None:
            result = raw.call_tool("read_file", {"path": "big.txt"})
            text = result["content"][0]["text"]
            assert not result.get("isError") and len(text) >= FILE_SIZE, (len(text), text[:200])

        async def sdk_noop() -> None:
            result = await sdk.call_tool(NOOP, {})
            assert not result.is_error and len(result_text(result)) == FILE_SIZE

        async def raw_noop() -> None:
            result = raw.call_tool(NOOP, {})
            assert not result.get("isError") and len(result["content"][0]["text"]) == FILE_SIZE

        async def contents() -> None:
            model = rest.call("GET", "/api/contents/big.txt?type=file&format=text&content=1")
            assert len(model["content"]) == FILE_SIZE

        read_text, _ = render("read_file", {"path": "big.txt"}, "r1")

        async def rest_read() -> None:
            session = rest.call("POST", "/jupyter-operator/api/scan", {"text": read_text})
            assert len(session["results_text"]) >= FILE_SIZE

        reads: dict[str, Callable[[], Awaitable[None]]] = {
            "sdk_read": sdk_read,
            "raw_read": raw_read,
            "contents": contents,
            "rest_read": rest_read,
            "sdk_noop": sdk_noop,
            "raw_noop": raw_noop,
        }

        # Writes: each makes its file's text before the clock starts; what is timed is the call.
        def new_content(size: int) -> tuple[int, str]:
            n = next(counter)
            return n, f"line {n:06d}\n" * (size // 12)

        def sdk_write(size: int) -> Callable[[], Awaitable[None]]:
            n, content = new_content(size)

            async def write() -> None:
                args = {"path": f"auto/s{n}.txt", "content": content}
                result = await sdk.call_tool("write_file", args)
                assert not result.is_error, result_text(result)

            return write

        def raw_write(size: int) -> Callable[[], Awaitable[None]]:
            n, content = new_content(size)

            async def write() -> None:
                result = raw.call_tool("write_file", {"path": f"auto/h{n}.txt", "content": content})
                assert not result.get("isError"), result

            return write

        def rest_scan(size: int, folder: str) -> tuple[str, str]:
            """The text the tool renders for the same write, and its id."""
            n, content = new_content(size)
            text, _ = render("write_file", {"path": f"{folder}/r{n}.txt", "content": content},
                             f"w{n}")  # fmt: skip
            return text, f"w{n}"

        def rest_decide(size: int) -> Callable[[], Awaitable[None]]:
            text, item = rest_scan(size, "ask")

            async def write() -> None:
                session = rest.call("POST", "/jupyter-operator/api/scan", {"text": text})
                assert session["items"][0]["status"] == "pending", session["items"][0]
                done = rest.call(
                    "POST",
                    f"/jupyter-operator/api/sessions/{session['session']}/decide",
                    {"id": item, "decision": "approve"},
                )
                assert done["item"]["status"] == "applied", done["item"]

            return write

        def rest_auto(size: int) -> Callable[[], Awaitable[None]]:
            text, _ = rest_scan(size, "auto")

            async def write() -> None:
                session = rest.call("POST", "/jupyter-operator/api/scan", {"text": text})
                assert session["items"][0]["status"] == "applied", session["items"][0]

            return write

        writes: dict[str, Callable[[int], Callable[[], Awaitable[None]]]] = {
            "sdk_write": sdk_write,
            "raw_write": raw_write,
            "rest_decide": rest_decide,
            "rest_auto": rest_auto,
        }

        async def burst() -> tuple[list[float], int, float]:
            """100 read calls at once, 10 from each of 10 clients: latencies, errors, wall."""
            latencies: list[float] = []
            errors = 0

            async def one(client: Client) -> None:
                nonlocal errors
                start = time.perf_counter()
                try:
                    result = await client.call_tool("read_file", {"path": "big.txt"})
                    if result.is_error or len(result_text(result)) < FILE_SIZE:
                        errors += 1
                except Exception:
                    errors += 1
                latencies.append(time.perf_counter() - start)

            # Entered one by one in this task: the SDK's task groups must exit where they began.
            async with contextlib.AsyncExitStack() as stack:
                clients = [await stack.enter_async_context(sdk_client(url, token, f"burst-{i}"))
                           for i in range(CLIENTS)]  # fmt: skip
                start = time.perf_counter()
                await asyncio.gather(*(one(c) for c in clients for _ in range(CALLS_EACH)))
                wall = time.perf_counter() - start
            return latencies, errors, wall

        # Warm up every path (imports, caches, connections) before timing.
        for _ in range(5):
            for run in reads.values():
                await run()
            for size in write_kb:
                for make in writes.values():
                    await make(size * 1000)()

        samples: dict[str, list[float]] = {}
        burst_latencies: list[float] = []
        burst_errors = 0
        best: dict[str, float] = {}
        for r in range(rounds):
            this_round: dict[str, list[float]] = {}
            for _ in range(requests):
                for kind, run in reads.items():
                    start = time.perf_counter()
                    await run()
                    this_round.setdefault(kind, []).append(time.perf_counter() - start)
            for _ in range(max(1, requests // 2)):
                for size in write_kb:
                    for kind, make in writes.items():
                        run = make(size * 1000)
                        start = time.perf_counter()
                        await run()
                        this_round.setdefault(f"{kind}_{size}k", []).append(
                            time.perf_counter() - start
                        )
            latencies, errors, wall = await burst()
            burst_latencies += latencies
            burst_errors += errors
            figures = ratios(this_round, write_kb)
            for key, value in figures.items():
                best[key] = min(best.get(key, value), value)
            shown = ", ".join(f"{k} {v:.2f}" for k, v in figures.items())
            print(f"round {r + 1}: {shown}; burst of {len(latencies)}: {errors} errors, "
                  f"p50 {percentile(latencies, 0.5) * 1e3:.0f} ms, "
                  f"p99 {percentile(latencies, 0.99) * 1e3:.0f} ms, "
                  f"all in {wall * 1e3:.0f} ms")  # fmt: skip
            for key, values in this_round.items():
                samples.setdefault(key, []).extend(values)

    raw.close()
    rest.connection.close()

    print()
    labels = {
        "sdk_read": "MCP read_file 100 KB, SDK",
        "raw_read": "MCP read_file 100 KB, raw HTTP",
        "contents": "GET /api/contents 100 KB (baseline)",
        "rest_read": "context: POST scan of the same read",
        "sdk_noop": "floor: MCP no-op tool 100 KB, SDK",
        "raw_noop": "floor: MCP no-op tool 100 KB, raw HTTP",
    }
    for size in write_kb:
        labels.update({
            f"sdk_write_{size}k": f"MCP write_file {size} KB by rule, SDK",
            f"raw_write_{size}k": f"MCP write_file {size} KB by rule, raw",
            f"rest_decide_{size}k": f"scan + decide {size} KB (baseline)",
            f"rest_auto_{size}k": f"context: scan {size} KB by rule",
        })  # fmt: skip
    for key, label in labels.items():
        print(fmt(label, samples[key]))
    print(fmt(f"burst: {CLIENTS} clients x {CALLS_EACH} reads", burst_latencies))
    print()
    overall = ratios(samples, write_kb)
    for key, value in overall.items():
        target = ("" if "no-op" in key else " (target <= 1.5)" if "read" in key
                  else " (target <= 1.2)")  # fmt: skip
        print(f"ratio {key:34s} overall {value:5.2f}, best round {best[key]:5.2f}{target}")
    print(f"burst: {len(burst_latencies)} calls, {burst_errors} errors, "
          f"p50 {percentile(burst_latencies, 0.5) * 1e3:.0f} ms, "
          f"p99 {percentile(burst_latencies, 0.99) * 1e3:.0f} ms")  # fmt: skip
    if burst_errors:
        raise SystemExit(f"{burst_errors} of the concurrent calls failed")


def ratios(samples: dict[str, list[float]], write_kb: list[int]) -> dict[str, float]:
    """The targets' ratios of medians: MCP read / GET contents, MCP write / scan + decide."""
    med = {key: statistics.median(values) for key, values in samples.items()}
    found = {
        "read SDK / contents": med["sdk_read"] / med["contents"],
        "read raw / contents": med["raw_read"] / med["contents"],
        "no-op SDK / contents": med["sdk_noop"] / med["contents"],
        "no-op raw / contents": med["raw_noop"] / med["contents"],
        "read SDK / no-op SDK": med["sdk_read"] / med["sdk_noop"],
        "read raw / no-op raw": med["raw_read"] / med["raw_noop"],
    }
    for size in write_kb:
        found[f"write {size} KB SDK / scan+decide"] = (
            med[f"sdk_write_{size}k"] / med[f"rest_decide_{size}k"]
        )
        found[f"write {size} KB raw / scan+decide"] = (
            med[f"raw_write_{size}k"] / med[f"rest_decide_{size}k"]
        )
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=30, help="reads per kind and round")
    parser.add_argument(
        "--write-kb",
        type=int,
        nargs="+",
        default=[1, 30],
        help="sizes of the files written (a block holds at most about 37 KB)",
    )
    args = parser.parse_args()
    token = secrets.token_hex(16)
    with tempfile.TemporaryDirectory(prefix="operator-bench-") as tmp:
        work = Path(tmp)
        root = work / "root"
        for folder in ("auto", "ask"):
            (root / folder).mkdir(parents=True)
        line = "x" * 99 + "\n"
        (root / "big.txt").write_text(line * (FILE_SIZE // len(line)))
        port = free_port()
        process = start_server(work, port, token)
        try:
            wait_ready(port, token, process)
            asyncio.run(measure(port, token, args.rounds, args.requests, args.write_kb))
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


if __name__ == "__main__":
    main()
