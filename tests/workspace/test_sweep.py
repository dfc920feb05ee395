"""Temp files of killed writes are removed when a workspace starts: only ours, only stale ones."""

from __future__ import annotations

import os
import time
from pathlib import Path

from jupyter_operator.engine import Operator
from jupyter_operator.engine import operator as session_module
from jupyter_operator.workspace import Workspace

from .sandbox import Sandbox

OURS = ".~operator-0123456789abcdef.tmp"


def _age(path: Path, seconds: float = 7200) -> None:
    old = time.time() - seconds
    os.utime(path, (old, old), follow_symlinks=False)


def test_stale_temp_files_are_removed(sandbox: Sandbox) -> None:
    root = sandbox.root
    (root / "deep" / "er").mkdir(parents=True)
    stale = [root / OURS, root / "deep" / "er" / OURS.replace("0123", "aaaa")]
    for path in stale:
        path.write_bytes(b"half a write")
        _age(path)
    fresh = root / OURS.replace("0123", "ffff")  # a write still running in another process
    fresh.write_bytes(b"in flight")
    lookalikes = [root / ".~operator-notours.tmp", root / ".~operator-0123456789abcdef.tmp.bak",
                  root / "deep" / "keep.tmp"]  # fmt: skip
    for path in lookalikes:
        path.write_bytes(b"someone else's")
        _age(path)
    # A link named like ours is never followed (nor removed): it is not a regular file.
    (root / "deep" / OURS).symlink_to(sandbox.outside / "secret.txt")
    _age(root / "deep" / OURS)
    # Linked folders and protected folders are not entered.
    (root / "linked").symlink_to(sandbox.outside)
    (sandbox.outside / OURS).write_bytes(b"outside")
    _age(sandbox.outside / OURS)
    (root / ".git").mkdir()
    (root / ".git" / OURS).write_bytes(b"git's")
    _age(root / ".git" / OURS)
    with Workspace(root) as ws:
        assert ws.sweep_temps() == 2
    assert not any(path.exists() for path in stale)
    assert fresh.exists() and all(path.exists() for path in lookalikes)
    assert (root / "deep" / OURS).is_symlink()
    assert (sandbox.outside / OURS).exists() and (root / ".git" / OURS).exists()
    assert (sandbox.outside / "secret.txt").read_text() == "TOP SECRET\n"


def test_an_operator_sweeps_its_root_once_per_process(sandbox: Sandbox, tmp_path: Path,
                                                      monkeypatch) -> None:  # fmt: skip
    monkeypatch.setattr(session_module, "_SWEPT", set())
    left = sandbox.root / OURS
    left.write_bytes(b"killed")
    _age(left)
    with Operator(sandbox.root, journal_dir=tmp_path / "j"):
        pass
    assert not left.exists()
    left.write_bytes(b"killed again")
    _age(left)
    with Operator(sandbox.root, journal_dir=tmp_path / "j"):
        pass
    assert left.exists()  # the next start of this process's sessions does not walk again
