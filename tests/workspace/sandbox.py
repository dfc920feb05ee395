"""Test helpers: a workspace next to a sentinel folder it must never touch."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def tree_state(top: Path) -> dict[str, tuple[str, str]]:
    """Every entry below ``top`` (links not followed): kind, and bytes hash / link target / mode."""
    state: dict[str, tuple[str, str]] = {}
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        for name in sorted(dirnames + filenames):
            path = Path(dirpath) / name
            rel = str(path.relative_to(top))
            info = path.lstat()
            if path.is_symlink():
                state[rel] = ("link", os.readlink(path))
            elif path.is_dir():
                state[rel] = ("dir", oct(info.st_mode))
            else:
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
                state[rel] = ("file", f"{digest}:{oct(info.st_mode)}:{info.st_mtime_ns}")
    return state


class Sandbox:
    """A workspace root and a sentinel folder beside it holding secrets to protect."""

    def __init__(self, base: Path) -> None:
        self.root = base / "ws"
        self.outside = base / "outside"
        self.root.mkdir()
        self.outside.mkdir()
        (self.outside / "secret.txt").write_text("TOP SECRET\n")
        (self.outside / "dir").mkdir()
        (self.outside / "dir" / "inner.txt").write_text("INNER SECRET\n")
        (self.root / "a.txt").write_text("alpha\n")
        (self.root / "sub").mkdir()
        (self.root / "sub" / "b.txt").write_text("beta\n")
        self.before = tree_state(self.outside)

    def write(self, rel: str, data: bytes | str) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        return path

    def assert_outside_untouched(self) -> None:
        assert tree_state(self.outside) == self.before

    def rebaseline(self) -> None:
        """Take the sentinel state again (after a deliberate, test-made change such as a link)."""
        self.before = tree_state(self.outside)
