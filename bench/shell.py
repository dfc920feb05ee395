"""What the shell runner costs, as ratios against baselines measured in the same run.

1. A command printing 200 MB through the runner (capture, caps, cgroup, sandbox when present)
   against the same command with its output thrown away by the OS (``stdout=DEVNULL``).
2. ``true`` through the runner (start-up: sandbox, cgroup, wrapper shells) against ``true``
   started directly.

Timings are the best of several runs (the machine is shared and noisy).

    .venv/bin/python bench/shell.py [--repeat N]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_operator.shell import run, sandbox_available

OUTPUT = "head -c 200000000 /dev/zero"


def best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        raw = best(
            lambda: subprocess.run(["sh", "-c", OUTPUT], stdout=subprocess.DEVNULL, check=True),
            args.repeat,
        )
        ours = best(lambda: run(OUTPUT, root=root, cwd=root), args.repeat)
        start_raw = best(lambda: subprocess.run(["true"], check=True), args.repeat)
        start_ours = best(lambda: run("true", root=root, cwd=root), args.repeat)
    where = "sandboxed" if sandbox_available() else "not sandboxed"
    print(
        f"200 MB of output ({where}): runner {ours:.2f} s, discarded by the OS {raw:.2f} s, "
        f"ratio {ours / raw:.1f}"
    )
    print(
        f"start-up: runner {start_ours * 1000:.0f} ms, direct {start_raw * 1000:.1f} ms, "
        f"ratio {start_ours / start_raw:.0f}"
    )


if __name__ == "__main__":
    main()
