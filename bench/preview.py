"""Benchmark: previewing an fs.write that rewrites a 2 MB, 50,000-line file (1% of lines changed).

Planning a write means reading the current file (snapshot: bytes, sha256), encoding the new
content and computing the unified diff shown for approval. That is timed three ways against
``git diff --no-index`` of the same two files (the baseline), in interleaved rounds (one run of
each per round, so machine noise hits all alike); the figures are the medians of the rounds:

- ``engine plan``: ``jupyter_operator.engine.mutations.plan`` on an ``fs.write`` command, the
  exact code ``Operator.run`` uses for a mutation. (A 2 MB ``content_b64`` cannot go through
  ``Operator.run`` itself: the protocol caps one block at 50,000 characters, so the command is
  built directly.)
- ``layer only``: ``Workspace.snapshot`` + ``decode_text`` + ``unified_diff``.
- ``diff only``: ``unified_diff`` on bytes already in memory.

The ratio engine plan / git diff is the figure that matters (target: at most 1.2). Peak memory
of one engine plan above the state before it is measured with tracemalloc (Python allocations;
target: at most 16 MB).

Run: ``.venv/bin/python bench/preview.py [--rounds R]``
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
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
TARGET_RATIO = 1.2
TARGET_PEAK_MB = 16.0


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


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
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

            runs = {
                "git": git_diff,
                "engine": engine_plan,
                "layer": layer_only,
                "diff": lambda: unified_diff(old_b, new_b, "big.txt"),
            }
            timings: dict[str, list[float]] = {k: [] for k in runs}
            for _ in range(args.rounds):  # interleaved so machine noise hits all alike
                for k, fn in runs.items():
                    timings[k].append(timed(fn))
            b = {k: statistics.median(v) for k, v in timings.items()}

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
        n = args.rounds
        print(f"git diff --no-index median of {n}: {b['git'] * 1000:8.1f} ms")
        print(f"engine plan        median of {n}: {b['engine'] * 1000:8.1f} ms")
        print(f"layer only         median of {n}: {b['layer'] * 1000:8.1f} ms")
        print(f"diff only          median of {n}: {b['diff'] * 1000:8.1f} ms")
        ratio = b["engine"] / b["git"]
        print(f"ratio engine plan / git diff: {ratio:.2f}  (target <= {TARGET_RATIO})")
        print(f"ratio layer only / git diff:  {b['layer'] / b['git']:.2f}")
        print(
            f"peak memory of one engine plan above baseline (tracemalloc): "
            f"{(peak - base) / 2**20:.1f} MB  (target <= {TARGET_PEAK_MB:.0f} MB)"
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
