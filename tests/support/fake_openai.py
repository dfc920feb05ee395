"""A real HTTP server on loopback that speaks OpenAI's chat-completions API (SSE streaming).

The tests point the real ``openai`` SDK at it. Each request takes the next scripted ``Script``
(or ``default``); the server checks the bearer key, knows a set of model names, streams the
reply in chunks with a final usage chunk (``stream_options.include_usage``), and can fail the
ways real endpoints fail: 401 (its body quotes the key it got, as real ones partly do), 404
for an unknown model, 429/500 with ``retry-after-ms`` (or with ``Retry-After`` in seconds, as
``Script.retry_after`` says), a stream cut in the middle, a reply that never comes (for
timeouts), and a slow stream (for Stop). ``times`` holds when each request came.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _QuietServer(ThreadingHTTPServer):
    """A client hanging up (the SDK dropping a connection after a 429 or a cut stream) is part of
    the tests, not an error: socketserver would print its traceback on stderr, where the tests
    look for tracebacks of our own."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


@dataclass
class Script:
    """What the server answers to one request."""

    text: str = ""
    chunk: int = 16
    delay: float = 0.0  # seconds between chunks
    finish: str = "stop"
    status: int = 200  # 429, 500, ...: answer with this error instead
    retry_after: str | None = None  # with status: a Retry-After header instead of retry-after-ms
    cut_after: int | None = None  # chunks sent before the connection is dropped
    hang: float = 0.0  # seconds to wait before answering at all
    usage: tuple[int, int] | None = None  # (prompt, completion); default computed


@dataclass
class FakeOpenAI:
    """The loopback endpoint. Use as a context manager; ``url`` is the SDK's ``base_url``."""

    key: str = "sk-test-SECRET-0123456789abcdef"
    models: tuple[str, ...] = ("fake-model",)
    scripts: list[Script] = field(default_factory=list)
    default: Script = field(default_factory=Script)
    requests: list[dict[str, Any]] = field(default_factory=list)
    #: time.monotonic() when each request came (with ``requests``)
    times: list[float] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    #: time.monotonic() when each reply's first text chunk was written (for bench/agent.py)
    first_text_sent: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, fmt: str, *args: Any) -> None:
                fake.log.append(fmt % args)

            def do_POST(self) -> None:
                fake._handle(self)

        self.server = _QuietServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def add(self, *scripts: Script | str) -> None:
        """Queue the answers to the next requests."""
        with self._lock:
            self.scripts.extend(Script(s) if isinstance(s, str) else s for s in scripts)

    # -- the handler ---------------------------------------------------------------------------
    def _next(self) -> Script:
        with self._lock:
            return self.scripts.pop(0) if self.scripts else self.default

    def _error(
        self,
        h: BaseHTTPRequestHandler,
        status: int,
        message: str,
        kind: str,
        retry_after: str | None = None,
    ) -> None:
        body = json.dumps({"error": {"message": message, "type": kind, "code": None}}).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(body)))
        if retry_after is None:
            h.send_header("retry-after-ms", "5")
        else:
            h.send_header("Retry-After", retry_after)
        h.end_headers()
        h.wfile.write(body)

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("Content-Length", "0"))
        body = json.loads(h.rfile.read(length) or b"{}")
        self.requests.append(body)
        self.times.append(time.monotonic())
        if h.path.rstrip("/") != "/v1/chat/completions":
            self._error(h, 404, f"no route {h.path}", "invalid_request_error")
            return
        auth = h.headers.get("Authorization", "")
        if auth != f"Bearer {self.key}":
            got = auth.removeprefix("Bearer ")
            self._error(h, 401, f"Incorrect API key provided: {got}.", "invalid_request_error")
            return
        if body.get("model") not in self.models:
            self._error(
                h, 404, f"The model `{body.get('model')}` does not exist.", "invalid_request_error"
            )
            return
        script = self._next()
        if script.hang:
            time.sleep(script.hang)
        if script.status != 200:
            self._error(h, script.status, "try again later", "server_error", script.retry_after)
            return
        self._stream(h, body, script)

    def _stream(self, h: BaseHTTPRequestHandler, body: dict[str, Any], script: Script) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()

        def send(payload: str) -> None:
            data = f"data: {payload}\n\n".encode()
            h.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            h.wfile.flush()

        def chunk(delta: dict[str, Any], finish: str | None = None, usage: Any = None) -> str:
            return json.dumps(
                {
                    "id": "chatcmpl-fake",
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": body["model"],
                    "choices": []
                    if usage
                    else [{"index": 0, "delta": delta, "finish_reason": finish}],
                    "usage": usage,
                }
            )

        text = script.text
        pieces = [text[i : i + script.chunk] for i in range(0, len(text), script.chunk)]
        try:
            send(chunk({"role": "assistant", "content": ""}))
            for n, piece in enumerate(pieces):
                if script.cut_after is not None and n >= script.cut_after:
                    h.wfile.write(b'2f\r\ndata: {"id": ')  # half a chunk, then the line drops
                    h.wfile.flush()
                    h.close_connection = True
                    return
                if script.delay:
                    time.sleep(script.delay)
                send(chunk({"content": piece}))
                if n == 0:
                    self.first_text_sent.append(time.monotonic())
            send(chunk({}, script.finish))
            if (body.get("stream_options") or {}).get("include_usage"):
                prompt = sum(len(m.get("content", "")) for m in body.get("messages", [])) // 4
                p, c = script.usage or (prompt, len(text) // 4)
                send(
                    chunk(
                        {},
                        usage={"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c},
                    )
                )
            send("[DONE]")
            h.wfile.write(b"0\r\n\r\n")
            h.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):  # the client hung up (Stop)
            h.close_connection = True
