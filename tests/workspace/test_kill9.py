"""Crash safety (S01): a writer killed with SIGKILL at random moments leaves the old or the new
bytes, never a mix; leftovers can only be hidden, recognisable temp files."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from jupyter_operator.workspace.paths import TEMP_PREFIX

KILLS = 50
SIZE = 2 * 1024 * 1024
OLD = b"o" * (SIZE - 1) + b"\n"
NEW = b"n" * (SIZE // 2 - 1) + b"\n"  # a different size too, so a torn write cannot hide

WRITER = """
import sys
from jupyter_operator.workspace import Workspace
root, old, new = sys.argv[1], sys.argv[2], sys.argv[3]
datas = [open(old, "rb").read(), open(new, "rb").read()]
ws = Workspace(root)
i = 0
while True:
    snap = ws.snapshot("data.bin", limit=1 << 24)
    ws.write("data.bin", datas[i % 2], expect=snap)
    if i == 0:
        print("ready", flush=True)
    i += 1
"""


def test_sigkill_during_writes_never_tears_the_file(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "data.bin").write_bytes(OLD)
    old_file, new_file = tmp_path / "old", tmp_path / "new"
    old_file.write_bytes(OLD)
    new_file.write_bytes(NEW)
    rng = random.Random(1234)
    seen = {OLD: 0, NEW: 0}
    leftovers = 0
    for _ in range(KILLS):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(root), str(old_file), str(new_file)],
            stdout=subprocess.PIPE,
        )
        assert proc.stdout is not None
        assert proc.stdout.readline() == b"ready\n"
        time.sleep(rng.uniform(0, 0.03))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        data = (root / "data.bin").read_bytes()
        assert data in (OLD, NEW), f"torn file: {len(data)} bytes"
        seen[data] += 1
        others = [p.name for p in root.iterdir() if p.name != "data.bin"]
        assert all(name.startswith(TEMP_PREFIX) and name.endswith(".tmp") for name in others)
        leftovers += len(others)
        for name in others:  # the documented clean-up: remove hidden .~operator-*.tmp files
            (root / name).unlink()
    # Both outcomes happened, so the kills really landed at different points of the cycle.
    assert seen[OLD] > 0 and seen[NEW] > 0
    print(f"kills={KILLS} old={seen[OLD]} new={seen[NEW]} hidden temp leftovers={leftovers}")
