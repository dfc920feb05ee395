"""Benchmark: ``Workspace.search_tree`` over 5,000 files / ~100 MB, against ``grep -rnF``.

A tree of 5,000 text files (about 100 MB in all, in nested folders) is generated in a temporary
directory. Both searches run over the same tree for the same fixed string, with our limits lifted
(every match, every file), warm page cache, in interleaved rounds (one run of each per round, so
machine noise hits both alike); the figures are the medians of the rounds. The figure that
matters is the ratio (target: at most 1.2). Peak memory of one search above the interpreter's
state before it is measured with tracemalloc (Python allocations, including the file buffers),
in a separate untimed run.

Run: ``.venv/bin/python bench/search.py [--files N] [--mb M] [--rounds R]``
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_operator.workspace import Workspace

QUERY = "needle_in_haystack"
WORDS = [
    "def",
    "class",
    "return",
    "import",
    "self",
    "value",
    "result",
    "path",
    "file",
    "line",
    "match",
    "search",
    "tree",
    "index",
    "data",
    "node",
    "list",
    "dict",
    "item",
    "key",
    "error",
    "check",
    "test",
    "run",
    "write",
    "read",
    "open",
    "close",
    "buffer",
    "count",
    "limit",
]


def make_tree(root: Path, files: int, total_mb: float, seed: int = 7) -> tuple[int, int]:
    """Write ``files`` text files of random words, ~``total_mb`` MB; return (bytes, needles)."""
    rnd = random.Random(seed)
    per_file = int(total_mb * 1024 * 1024 / files)
    pool = [
        " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(4, 14))) + "\n" for _ in range(4000)
    ]
    total = needles = 0
    for i in range(files):
        folder = root / f"pkg{i % 50:02d}" / f"mod{i % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        lines: list[str] = []
        size = 0
        target = int(per_file * rnd.uniform(0.5, 1.5))
        while size < target:
            line = rnd.choice(pool)
            if rnd.random() < 0.002:
                line = f"    x = {QUERY}({i})\n"
                needles += 1
            lines.append(line)
            size += len(line)
        data = "".join(lines).encode()
        (folder / f"file{i:05d}.py").write_bytes(data)
        total += len(data)
    return total, needles


def time_ours(ws: Workspace) -> tuple[float, int]:
    start = time.perf_counter()
    found = ws.search_tree(".", QUERY, max_matches=10**9, max_files=10**9, max_file_size=10**9)
    elapsed = time.perf_counter() - start
    assert not found.truncated_matches and not found.truncated_files
    return elapsed, len(found.matches)


def time_grep(root: Path) -> tuple[float, int]:
    start = time.perf_counter()
    proc = subprocess.run(
        ["grep", "-rnF", QUERY, "."], cwd=root, stdout=subprocess.PIPE, check=False
    )
    elapsed = time.perf_counter() - start
    return elapsed, proc.stdout.count(b"\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--mb", type=float, default=100.0)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    if shutil.which("grep") is None:
        sys.exit("grep is required for the baseline")

    tmp = Path(tempfile.mkdtemp(prefix="search-bench-"))
    try:
        root = tmp / "ws"
        root.mkdir()
        total, needles = make_tree(root, args.files, args.mb)
        print(f"tree: {args.files} files, {total / 1e6:.1f} MB, {needles} lines with the query")
        with Workspace(root) as ws:
            ours_n = time_ours(ws)[1]  # warm the page cache for both
            grep_n = time_grep(root)[1]
            assert ours_n == grep_n == needles, (ours_n, grep_n, needles)
            ours: list[float] = []
            greps: list[float] = []
            for _ in range(args.rounds):
                greps.append(time_grep(root)[0])
                ours.append(time_ours(ws)[0])
            med_ours, med_grep = statistics.median(ours), statistics.median(greps)

            tracemalloc.start()
            base, _ = tracemalloc.get_traced_memory()
            tracemalloc.reset_peak()
            time_ours(ws)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
        ratio = med_ours / med_grep
        n = args.rounds
        print(f"search_tree  median of {n}: {med_ours * 1000:8.1f} ms  ({ours_n} matches)")
        print(f"grep -rnF    median of {n}: {med_grep * 1000:8.1f} ms  ({grep_n} matches)")
        print(f"ratio search_tree / grep: {ratio:.2f}  (target <= 1.2)")
        print(
            f"peak memory of one search above baseline (tracemalloc): "
            f"{(peak - base) / 2**20:.1f} MB  (target < 64 MB)"
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
