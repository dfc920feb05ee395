"""Benchmark: previewing an fs.write that rewrites a 2 MB, 50,000-line file (1% of lines changed).

Planning a write means reading the current file (snapshot: bytes, sha256), encoding the new
content and computing the unified diff shown for approval. That is timed three ways, best of
several alternating runs in this process, against ``git diff --no-index`` of the same two files
(the baseline, also best of several):

- ``engine plan``: ``jupyter_operator.engine.mutations.plan`` on an ``fs.write`` command, the
  exact code ``Operator.run`` uses for a mutation. (A 2 MB ``content_b64`` cannot go through
  ``Operator.run`` itself: the protocol caps one block at 50,000 characters, so the command is
  built directly.)
- ``layer only``: ``Workspace.snapshot`` + ``decode_text`` + ``unified_diff``.
- ``diff only``: ``unified_diff`` on bytes already in memory.

The ratio engine plan / git diff is the figure that matters (target: at most 3.0). Peak memory
of one engine plan above the state before it is measured with tracemalloc (Python allocations).

Run: ``.venv/bin/python bench/preview.py [--runs R]``
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_operator.protocol import Command, Write
from jupyter_operator.workspace import Workspace, decode_text, diff_stats, unified_diff

LINES = 50_000
LINE_BYTES = 40  # 50,000 lines of 40 bytes: 2.0 MB
CHANGED = 0.01


def make_texts(seed: int = 3) -> tuple[str, str]:
    rnd = random.Random(seed)
    alphabet = "abcdefghijklmnopqrstuvwxyz     "

    def line(i: int) -> str:
        body = "".join(rnd.choice(alphabet) for _ in range(LINE_BYTES - 8))
        return f"{i:06d} {body}\n"

    old = [line(i) for i in range(LINES)]
    new = list(old)
    for i in rnd.sample(range(LINES), int(LINES * CHANGED)):
        new[i] = line(i).replace(" ", "_", 3)
    return "".join(old), "".join(new)


def best(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    git = shutil.which("git")
    if git is None:
        sys.exit("git is required for the baseline")
    from jupyter_operator.engine.mutations import plan

    old_text, new_text = make_texts()
    tmp = Path(tempfile.mkdtemp(prefix="preview-bench-"))
    try:
        root = tmp / "ws"
        root.mkdir()
        (root / "big.txt").write_text(old_text)
        (tmp / "new.txt").write_text(new_text)
        old_b, new_b = old_text.encode(), new_text.encode()
        cmd = Command(
            id="w1", action="fs.write", path="big.txt", line=1, fields={},
            params=Write(path="big.txt", content=new_text),
        )  # fmt: skip

        def git_diff() -> None:
            subprocess.run(
                [git, "diff", "--no-index", "--no-color", "ws/big.txt", "new.txt"],
                cwd=tmp, stdout=subprocess.PIPE, check=False,
            )  # fmt: skip

        with Workspace(root) as ws:

            def engine_plan():
                return plan(ws, cmd)

            def layer_only() -> str:
                snap = ws.snapshot("big.txt", limit=1 << 24)
                decode_text(snap.data or b"")
                return unified_diff(snap.data, new_b, "big.txt")

            proposal = engine_plan()
            added, removed = diff_stats(proposal.diff)
            assert added == removed == int(LINES * CHANGED), (added, removed)
            assert layer_only() == proposal.diff

            timings = {"git": [], "engine": [], "layer": [], "diff": []}
            for _ in range(args.runs):  # alternate so machine noise hits all alike
                timings["git"].append(best(git_diff, 1))
                timings["engine"].append(best(engine_plan, 1))
                timings["layer"].append(best(layer_only, 1))
                timings["diff"].append(best(lambda: unified_diff(old_b, new_b, "big.txt"), 1))
            b = {k: min(v) for k, v in timings.items()}

            tracemalloc.start()
            base, _ = tracemalloc.get_traced_memory()
            tracemalloc.reset_peak()
            kept = engine_plan()
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            del kept
        print(
            f"file: {len(old_b) / 1e6:.2f} MB, {LINES} lines, {added} lines changed "
            f"(+{added} -{removed})"
        )
        print(f"git diff --no-index best of {args.runs}: {b['git'] * 1000:8.1f} ms")
        print(f"engine plan        best of {args.runs}: {b['engine'] * 1000:8.1f} ms")
        print(f"layer only         best of {args.runs}: {b['layer'] * 1000:8.1f} ms")
        print(f"diff only          best of {args.runs}: {b['diff'] * 1000:8.1f} ms")
        print(f"ratio engine plan / git diff: {b['engine'] / b['git']:.2f}  (target <= 3.0)")
        print(f"ratio layer only / git diff:  {b['layer'] / b['git']:.2f}")
        print(
            f"peak memory of one engine plan above baseline (tracemalloc): "
            f"{(peak - base) / 2**20:.1f} MB  (target < 64 MB)"
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
