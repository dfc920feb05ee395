"""The seed's path rule over the WebSocket: ``.`` and ``..`` resolved lexically, escapes refused.

Every case also checks that nothing outside the root was read or written, and that the reply
echoes the path as the client sent it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from server_helpers import b64


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder next to the workspace root, holding a file named like the one inside."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "b.txt").write_text("outside secret")
    (folder / "x").write_text("outside secret")
    return folder


async def test_dot_dot_inside_the_root_reads_the_normalised_file(files, root: Path) -> None:
    (root / "b.txt").write_text("inside")
    client = await files()
    reply = await client.request("file_read", path="a/../b.txt", request_id=1)
    assert reply["type"] == "file_read_result", reply
    assert reply["content_b64"] == b64("inside")
    assert reply["path"] == "a/../b.txt", "the path comes back as sent"
    assert not (root / "a").exists(), "'a' need not exist: resolution is lexical"


async def test_dot_components_are_dropped(files, root: Path) -> None:
    (root / "a").mkdir()
    (root / "a" / "b").write_text("dots")
    client = await files()
    assert await client.read_text("./a/./b") == "dots"
    listing = await client.request("file_list", path="./a/.")
    assert listing["items"] == [{"name": "b", "is_dir": False, "size": 4}]
    assert listing["path"] == "./a/."
    reply = await client.write_text("./a/./c/../b", "written")
    assert reply["type"] == "file_write_result" and reply["size"] == 7
    assert (root / "a" / "b").read_text() == "written"
    assert sorted(p.name for p in (root / "a").iterdir()) == ["b"], "no 'c' created"


@pytest.mark.parametrize(
    "path",
    [
        "a/../../x",
        "../x",
        "a/b/../../../x",
        "./..",
        "a/..\\..\\x",
        "/a/../x",
        "a/../../outside/b.txt",
    ],
)
async def test_leaving_the_root_is_path_escape(files, root: Path, outside: Path, path: str) -> None:
    (root / "a" / "b").mkdir(parents=True)
    client = await files()
    for message in (
        {"type": "file_read", "path": path},
        {"type": "file_list", "path": path},
        {"type": "file_write", "path": path, "content_b64": b64("pwned")},
    ):
        reply = await client.send(message)
        assert reply["type"] == "error" and reply["code"] == "path_escape", (message, reply)
        assert "secret" not in reply["message"] and str(outside) not in reply["message"]
    assert (outside / "x").read_text() == "outside secret"
    assert sorted(p.name for p in outside.iterdir()) == ["b.txt", "x"]
    assert [p.name for p in root.iterdir()] == ["a"]


async def test_a_symlinked_component_removed_by_dot_dot_never_matters(
    files, root: Path, outside: Path
) -> None:
    """``a`` links out of the root; ``a/../b.txt`` is ``b.txt`` before any system call."""
    (root / "a").symlink_to(outside, target_is_directory=True)
    (root / "b.txt").write_text("inside")
    client = await files()
    assert await client.read_text("a/../b.txt") == "inside"
    reply = await client.write_text("a/../b.txt", "changed inside")
    assert reply["type"] == "file_write_result"
    assert (root / "b.txt").read_text() == "changed inside"
    assert (outside / "b.txt").read_text() == "outside secret"
    # Going *through* the link is still refused by the descriptor walk.
    for path in ("a/b.txt", "a/./b.txt", "b.txt/../a/b.txt"):
        reply = await client.request("file_read", path=path)
        assert reply["code"] == "path_escape", (path, reply)
        assert "secret" not in reply.get("content_b64", "")


async def test_a_dot_dot_that_lands_on_a_protected_path_is_refused(files, root: Path) -> None:
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    client = await files()
    reply = await client.request("file_read", path="a/../.git/config")
    assert reply["code"] == "path_escape"
    reply = await client.write_text("x/../.git/hooks/post-checkout", "#!/bin/sh\n")
    assert reply["code"] == "path_escape"
    assert not (root / ".git" / "hooks").exists()


async def test_path_length_limit_is_4096_characters(files, root: Path) -> None:
    # Components stay under the file system's 255-byte limit; only the total length varies.
    long_dir = "/".join(["d" * 200] * 20)  # 4019 characters
    (root / long_dir).mkdir(parents=True)
    name_4096 = long_dir + "/" + "f" * (4096 - len(long_dir) - 1)
    assert len(name_4096) == 4096
    client = await files()
    reply = await client.write_text(name_4096, "at the limit")
    assert reply["type"] == "file_write_result", reply
    assert await client.read_text(name_4096) == "at the limit"

    too_long = name_4096 + "g"
    assert len(too_long) == 4097
    for message in (
        {"type": "file_read", "path": too_long},
        {"type": "file_write", "path": too_long, "content_b64": b64("x")},
        # Counted as sent: normalising it down to a short path does not make it acceptable.
        {"type": "file_read", "path": "x/../" * 819 + "ab"},
    ):
        reply = await client.send(message)
        assert reply["type"] == "error" and reply["code"] == "path_escape", reply
        assert "4096 characters" in reply["message"]
    assert _names_in(root, long_dir) == [name_4096.rpartition("/")[2]], "nothing else written"


def _names_in(root: Path, rel: str) -> list[str]:
    """``os.listdir`` of a folder too deep for one absolute path (walked by descriptors)."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in rel.split("/"):
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        return sorted(os.listdir(fd))
    finally:
        os.close(fd)
