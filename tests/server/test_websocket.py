"""The WebSocket file API: every message, every error code, limits, the jail, concurrency."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from server_helpers import b64
from tornado.websocket import WebSocketClosedError

MIB = 1_048_576


async def test_file_list(files, root: Path) -> None:
    (root / "b.txt").write_text("12345")
    (root / "a_dir").mkdir()
    (root / "a_dir" / "inner.txt").write_text("x")
    client = await files()
    reply = await client.request("file_list", project="p1", workspace="default")
    assert reply == {
        "type": "file_list_result",
        "project": "p1",
        "workspace": "default",
        "path": ".",
        "items": [
            {"name": "a_dir", "is_dir": True, "size": 0},
            {"name": "b.txt", "is_dir": False, "size": 5},
        ],
    }
    root_again = await client.request("file_list", path="")
    assert root_again["items"] == reply["items"] and root_again["path"] == ""
    inner = await client.request("file_list", project="p1", path="a_dir")
    assert inner["path"] == "a_dir"
    assert inner["items"] == [{"name": "inner.txt", "is_dir": False, "size": 1}]


async def test_file_read(files, root: Path) -> None:
    (root / "hello.txt").write_bytes("h\u00e9llo\r\n".encode())
    client = await files()
    reply = await client.request("file_read", project="p", workspace="default", path="hello.txt")
    assert reply == {
        "type": "file_read_result",
        "project": "p",
        "workspace": "default",
        "path": "hello.txt",
        "content_b64": b64("h\u00e9llo\r\n"),
        "size": 8,
    }


async def test_file_write_creates_and_replaces(files, root: Path) -> None:
    client = await files()
    reply = await client.write_text("sub/new.txt", "first\n", project="p")
    assert reply == {
        "type": "file_write_result",
        "project": "p",
        "workspace": "default",
        "path": "sub/new.txt",
        "success": True,
        "size": 6,
    }
    assert (root / "sub" / "new.txt").read_text() == "first\n"
    (root / "sub" / "new.txt").chmod(0o640)
    reply = await client.write_text("sub/new.txt", "second\n")
    assert reply["success"] is True and reply["size"] == 7
    assert (root / "sub" / "new.txt").read_text() == "second\n"
    assert (root / "sub" / "new.txt").stat().st_mode & 0o777 == 0o640, "mode kept"
    assert sorted(p.name for p in (root / "sub").iterdir()) == ["new.txt"], "no temp left"


async def test_write_then_read_round_trip_exact_bytes(files, root: Path) -> None:
    client = await files()
    text = "\ufeffBOM and CRLF\r\nno final newline"
    await client.write_text("exact.txt", text)
    assert (root / "exact.txt").read_bytes() == text.encode("utf-8")
    assert await client.read_text("exact.txt") == text


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("missing.txt", "file_not_found"),
        ("../outside.txt", "path_escape"),
        ("a/../../outside.txt", "path_escape"),
        ("/etc/passwd", "path_escape"),
        ("link_out", "path_escape"),
        ("dir_link/secret.txt", "path_escape"),
        ("big.txt", "file_too_large"),
        ("binary.bin", "invalid_utf8"),
        ("a_dir", "io_error"),
        ("a" * 5000, "path_escape"),
        ("a\x00b", "path_escape"),
        ("", "path_escape"),
    ],
    ids=lambda value: value[:20] if isinstance(value, str) else value,
)
async def test_file_read_errors(files, root: Path, tmp_path: Path, path: str, code: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    (root / "link_out").symlink_to(outside / "secret.txt")
    (root / "dir_link").symlink_to(outside)
    (root / "big.txt").write_bytes(b"x" * (MIB + 1))
    (root / "binary.bin").write_bytes(b"\xff\xfe\x00\x01")
    (root / "a_dir").mkdir()
    client = await files()
    reply = await client.request("file_read", project="p", path=path)
    assert reply["type"] == "error" and reply["code"] == code, reply
    assert reply["path"] == path and reply["project"] == "p"
    assert "content_b64" not in reply
    assert "secret" not in reply["message"] and str(tmp_path) not in reply["message"]
    # The connection stays usable after an error.
    assert (await client.request("file_list"))["type"] == "file_list_result"


async def test_exactly_one_mib_is_allowed(files, root: Path) -> None:
    (root / "limit.txt").write_bytes(b"y" * MIB)
    client = await files()
    reply = await client.request("file_read", path="limit.txt")
    assert reply["type"] == "file_read_result" and reply["size"] == MIB
    reply = await client.write_text("copy.txt", "z" * MIB)
    assert reply["type"] == "file_write_result" and reply["size"] == MIB
    assert (root / "copy.txt").stat().st_size == MIB


@pytest.mark.parametrize(
    ("message", "code"),
    [
        (
            {"type": "file_write", "path": "big.txt", "content_b64": b64("x" * (MIB + 1))},
            "file_too_large",
        ),
        (
            {"type": "file_write", "path": "bin.txt", "content_b64": b64(b"\xc3\x28")},
            "invalid_utf8",
        ),
        ({"type": "file_write", "path": "../escape.txt", "content_b64": b64("x")}, "path_escape"),
        ({"type": "file_write", "path": "link_dir/x.txt", "content_b64": b64("x")}, "path_escape"),
        ({"type": "file_write", "path": "b.txt", "content_b64": "QUJD!!$$"}, "bad_request"),
        ({"type": "file_write", "path": "b.txt", "content_b64": "QUJ"}, "bad_request"),
        ({"type": "file_write", "path": "\ud800.txt", "content_b64": b64("x")}, "invalid_utf8"),
    ],
)
async def test_file_write_errors(
    files, root: Path, tmp_path: Path, message: dict, code: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "link_dir").symlink_to(outside)
    client = await files()
    reply = await client.send(message)
    assert reply["type"] == "error" and reply["code"] == code, reply
    assert sorted(p.name for p in root.iterdir()) == ["link_dir"], "nothing written"
    assert list(outside.iterdir()) == []
    assert (tmp_path / "escape.txt").exists() is False


async def test_write_refuses_a_file_swapped_for_an_outside_link(
    files, root: Path, tmp_path: Path
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    (root / "target.txt").symlink_to(victim)
    client = await files()
    reply = await client.write_text("target.txt", "pwned")
    assert reply["code"] == "path_escape"
    assert victim.read_text() == "keep"


@pytest.mark.parametrize(
    "frame",
    [
        "not json",
        "[1, 2]",
        json.dumps({"path": "a.txt"}),
        json.dumps({"type": "file_delete", "path": "a.txt"}),
        json.dumps({"type": "file_read"}),
        json.dumps({"type": "file_read", "path": 5}),
        json.dumps({"type": "file_read", "path": ["a"]}),
        json.dumps({"type": "file_list", "workspace": 1}),
        json.dumps({"type": "file_write", "path": "a.txt"}),
        b"\x00binary frame",
    ],
)
async def test_malformed_messages_are_bad_request(files, root: Path, frame: str | bytes) -> None:
    client = await files()
    reply = await client.send(frame)
    assert reply["type"] == "error" and reply["code"] == "bad_request", reply
    assert "Traceback" not in reply["message"] and "Error" not in reply["message"]
    assert (await client.request("file_list"))["type"] == "file_list_result"


@pytest.mark.parametrize("workspace", ["nope", "/", "../../", ""])
async def test_unknown_workspace(files, root: Path, workspace: str) -> None:
    client = await files()
    reply = await client.request("file_read", workspace=workspace, project="q", path="a.txt")
    assert reply["type"] == "error" and reply["code"] == "workspace_not_found"
    assert reply["project"] == "q"


async def test_oversized_frame_closes_the_connection(files, root: Path) -> None:
    client = await files()
    frame = json.dumps({"type": "file_write", "path": "x.txt", "content_b64": "A" * 3_000_000})
    await client.connection.write_message(frame)
    assert await client.connection.read_message() is None
    assert client.connection.close_code == 1009
    assert not (root / "x.txt").exists()
    # Other connections are unaffected.
    other = await files()
    assert (await other.request("file_list"))["type"] == "file_list_result"


async def test_protected_paths_cannot_be_written(files, root: Path) -> None:
    (root / ".git").mkdir()
    client = await files()
    reply = await client.write_text(".git/config", "[core]\n")
    assert reply["type"] == "error" and reply["code"] == "path_escape"
    assert not (root / ".git" / "config").exists()


async def test_twenty_clients_hundred_files_each(files, root: Path) -> None:
    """Concurrent writers and readers: every file ends complete, none torn, none lost.

    Writes are serial per workspace and each one is fsync'd, so this takes about 2,200 times
    one durable write (several ms each here).
    """
    clients = [await files() for _ in range(20)]

    def body(c: int, f: int, round: int) -> str:
        # Large enough to span several write() calls; unique per client, file and round.
        return f"client {c} file {f} round {round}\n" * 400

    async def work(c: int) -> None:
        client = clients[c]
        for f in range(100):
            path = f"c{c:02d}/f{f:03d}.txt"
            assert (await client.write_text(path, body(c, f, 0)))["success"] is True
            if f % 10 == 0:
                # Everyone also rewrites one shared file now and then, so writes collide.
                shared = await client.write_text("shared.txt", body(c, f, 1))
                assert shared["type"] == "file_write_result"
            assert await client.read_text(path) == body(c, f, 0)
            seen = await client.read_text("shared.txt")
            first = seen.partition("\n")[0] + "\n"
            assert first.endswith("round 1\n") and seen == first * 400, "torn shared file"

    await asyncio.gather(*(work(c) for c in range(20)))
    for c in range(20):
        names = sorted(os.listdir(root / f"c{c:02d}"))
        assert names == [f"f{f:03d}.txt" for f in range(100)]
        for f in (0, 57, 99):
            assert (root / f"c{c:02d}" / f"f{f:03d}.txt").read_text() == body(c, f, 0)
    leftovers = [p for p in root.rglob("*") if p.name.startswith(".")]
    assert leftovers == [], "no temporary files left behind"


async def test_client_closing_mid_request_does_not_break_server(files, root: Path) -> None:
    (root / "a.txt").write_text("a")
    client = await files()
    await client.connection.write_message(json.dumps({"type": "file_read", "path": "a.txt"}))
    client.close()
    with pytest.raises(WebSocketClosedError):
        await client.connection.write_message("{}")
    again = await files()
    assert await again.read_text("a.txt") == "a"


def _notebook_with_policy(level: str) -> str:
    doc = {"cells": [{"cell_type": "code", "execution_count": None, "id": "c1", "metadata": {},
                      "outputs": [], "source": "secret = 42"}],
           "metadata": {"jupyter_operator": {"policy": level}}, "nbformat": 4,
           "nbformat_minor": 5}  # fmt: skip
    return json.dumps(doc, indent=1) + "\n"


async def test_file_write_cannot_change_a_notebooks_own_policy(files, root: Path) -> None:
    (root / "nb.ipynb").write_text(_notebook_with_policy("no-run"))
    before = (root / "nb.ipynb").read_bytes()
    client = await files()
    for path in ("nb.ipynb", "./sub/../nb.ipynb"):
        reply = await client.write_text(path, _notebook_with_policy("auto-run"))
        assert reply["type"] == "error" and reply["code"] == "forbidden", reply
        assert "only its author sets it" in reply["message"]
    reply = await client.write_text("new.ipynb", _notebook_with_policy("auto-run"))
    assert reply["type"] == "error" and reply["code"] == "forbidden", reply
    assert (root / "nb.ipynb").read_bytes() == before and not (root / "new.ipynb").exists()


async def test_file_read_and_write_of_an_off_notebook_are_refused(files, root: Path) -> None:
    (root / "nb.ipynb").write_text(_notebook_with_policy("off"))
    before = (root / "nb.ipynb").read_bytes()
    client = await files()
    reply = await client.request("file_read", path="nb.ipynb")
    assert reply["type"] == "error" and reply["code"] == "forbidden", reply
    assert "secret" not in json.dumps(reply)
    reply = await client.write_text("nb.ipynb", before.decode())
    assert reply["type"] == "error" and reply["code"] == "forbidden", reply
    assert (root / "nb.ipynb").read_bytes() == before
