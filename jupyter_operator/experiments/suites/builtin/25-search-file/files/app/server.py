"""A small upload server: receives files over HTTP and stores them under ``UPLOAD_DIR``."""

import hashlib
import json
import os
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOST = "127.0.0.1"
PORT = 8005
UPLOAD_DIR = os.environ.get("UPLOAD_DIR", "uploads")
READ_TIMEOUT_S = 5
MAX_RETRIES = 5
ALLOWED_TYPES = {"text/csv", "application/json", "image/png"}


def json_body(payload: dict) -> bytes:
    """``payload`` as compact UTF-8 JSON."""
    return json.dumps(payload, separators=(",", ":")).encode("utf-8")


def stored_name(data: bytes, content_type: str) -> str:
    """A content-addressed file name: the sha256 of the data and an extension."""
    extension = {"text/csv": ".csv", "application/json": ".json", "image/png": ".png"}
    return hashlib.sha256(data).hexdigest() + extension[content_type]


class UploadHandler(BaseHTTPRequestHandler):
    """``POST /upload`` stores the body; ``GET /health`` answers ``{"ok": true}``."""

    timeout = READ_TIMEOUT_S

    def send_json(self, status: HTTPStatus, payload: dict) -> None:
        body = json_body(payload)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path == "/health":
            self.send_json(HTTPStatus.OK, {"ok": True})
        else:
            self.send_json(HTTPStatus.NOT_FOUND, {"error": "not found"})

    def do_POST(self) -> None:
        if self.path != "/upload":
            self.send_json(HTTPStatus.NOT_FOUND, {"error": "not found"})
            return
        content_type = self.headers.get("Content-Type", "")
        if content_type not in ALLOWED_TYPES:
            self.send_json(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, {"error": "type not allowed"})
            return
        length = int(self.headers.get("Content-Length", "0"))
        if length > max_upload_bytes():
            self.send_json(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, {"error": "file too large"})
            return
        data = self.rfile.read(length)
        name = stored_name(data, content_type)
        os.makedirs(UPLOAD_DIR, exist_ok=True)
        with open(os.path.join(UPLOAD_DIR, name), "wb") as out:
            out.write(data)
        self.send_json(HTTPStatus.CREATED, {"name": name, "size": length})


# Uploads larger than this are refused with 413 before anything is read.
MAX_UPLOAD_MB = 5


def max_upload_bytes() -> int:
    """The upload limit in bytes."""
    return MAX_UPLOAD_MB * 1024 * 1024


def serve() -> None:
    """Serve until interrupted."""
    with ThreadingHTTPServer((HOST, PORT), UploadHandler) as server:
        server.serve_forever()


if __name__ == "__main__":
    serve()
