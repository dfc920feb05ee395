"""Cost of a journaled write (``Operator.write_file``) against a bare atomic write.

Both write the same small files into a fresh folder; the bare one is the baseline measured in
the same run. Prints seconds per write and the ratio. Run: ``python bench/bench_journal_writes.py``.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from jupyter_operator.engine import Operator
from jupyter_operator.workspace import Workspace

N = int(sys.argv[1]) if len(sys.argv) > 1 else 200


def main() -> None:
    # Rounds alternate between the two so a noisy machine slows both alike.
    bare_time = journal_time = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        for name in ("a", "b"):
            (base / name).mkdir()
        with Workspace(base / "a", journal_dir=base / "j") as ws, Operator(
            base / "b", journal_dir=base / "j"
        ) as op:
            for i in range(N):
                path, data = f"f{i % 20}.txt", f"line {i}\n".encode() * 50
                start = time.perf_counter()
                ws.write(path, data, expect=ws.snapshot(path, limit=1 << 20))
                middle = time.perf_counter()
                op.write_file(path, data)
                journal_time += time.perf_counter() - middle
                bare_time += middle - start
    print(f"bare atomic write: {bare_time / N * 1000:.2f} ms/write")
    print(f"journaled write:   {journal_time / N * 1000:.2f} ms/write")
    print(f"ratio journaled/bare: {journal_time / bare_time:.2f}")


if __name__ == "__main__":
    main()
