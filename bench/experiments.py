"""The experiment harness: throughput with 1 and 2 local workers, the harness's overhead, and
the Dask path against the process pool, all on the same grid in one run.

The grid is 100 replayed runs of a 5-turn task (read, edit, write, read back, done) in a
fresh copy each, with a deterministic check. Throughput is runs per second of wall time for
the whole grid. Overhead is what the harness adds to a run beyond the agent's own run (the
engine and the scripted model): copying the task's files, the check (in the shell's sandbox),
and writing the row, as a share of the agent's time, summed over the runs. Two checks are
timed: the task's Python check script, and a shell check (``grep``) of the same condition.

Usage: ``python bench/experiments.py [RUNS]``
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from replies import b64, block, edits

from jupyter_operator.experiments import Experiment, ModelSpec, load_task

EDITS = edits({"op": "replaceFirst", "find": "status: draft", "text": "status: final"})
REPLIES = [
    "Reading the notes first.\n" + block("r1", "fs.read", path="notes.txt"),
    block("e1", "fs.applyEdits", path="notes.txt", edits_b64=EDITS),
    block("w1", "fs.write", path="summary.md", content_b64=b64("# Summary\n\nfinal\n")),
    block("r2", "fs.read", path="summary.md"),
    "Done: notes.txt says final and summary.md is written.",
]
CHECK_PY = """import pathlib, sys
ok = "status: final" in pathlib.Path("notes.txt").read_text() and \\
    pathlib.Path("summary.md").is_file()
sys.exit(0 if ok else 1)
"""


def make_task(folder: Path, check: str) -> Path:
    (folder / "files" / "docs").mkdir(parents=True)
    (folder / "files" / "notes.txt").write_text("title: plan\nstatus: draft\n" + "line\n" * 200)
    for n in range(8):
        (folder / "files" / "docs" / f"part-{n}.md").write_text(f"# Part {n}\n" + "text\n" * 50)
    (folder / "check.py").write_text(CHECK_PY)
    (folder / "task.toml").write_text(f"prompt = 'Mark the notes final and summarise.'\n"
                                      f"check = '''{check}'''\nmax_turns = 6\n")  # fmt: skip
    return folder


def grid(task_folder: Path, runs: int, out: Path, **how: object) -> tuple[float, list[dict]]:
    """The grid's wall time and rows (each row with the parent's bookkeeping share)."""
    task = load_task(task_folder)
    experiment = Experiment([task], [ModelSpec.scripted("replay", REPLIES)], repeats=runs,
                            out=out)  # fmt: skip
    started = time.perf_counter()
    results = experiment.run(progress=False, **how)
    wall = time.perf_counter() - started
    assert len(results) == runs and all(r["passed"] and r["turns"] == 5 for r in results.rows)
    books = experiment.tally.bookkeeping_seconds / runs
    return wall, [{**row, "bookkeeping_seconds": books} for row in results.rows]


def overhead(rows: list[dict]) -> tuple[float, float, float, float]:
    agent = sum(r["agent_seconds"] for r in rows)
    setup = sum(r["setup_seconds"] for r in rows)
    check = sum(r["check_seconds"] for r in rows)
    books = sum(r.get("bookkeeping_seconds", 0.0) for r in rows)
    return (setup + check + books) / agent, setup / agent, check / agent, books / agent


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        python_task = make_task(base / "task-py", 'python3 "$TASK_DIR/check.py"')
        shell_task = make_task(base / "task-sh", "grep -qx 'status: final' notes.txt && "
                                                 "test -f summary.md")  # fmt: skip
        grid(python_task, 4, base / "warm", workers=0)  # imports and caches, not timed
        one, rows_one = grid(python_task, runs, base / "one", workers=1)
        two, rows_two = grid(python_task, runs, base / "two", workers=2)
        _inline, rows_inline = grid(python_task, runs, base / "inline", workers=0)
        _sh, rows_sh = grid(shell_task, runs, base / "sh", workers=0)
        from distributed import Client, LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            grid(python_task, 4, base / "dask-warm", dask=client)
            dask, _rows = grid(python_task, runs, base / "dask", dask=client)
    agent_ms = statistics.median(r["agent_seconds"] for r in rows_inline) * 1000
    print(f"{runs} replayed runs of a 5-turn task (median agent time {agent_ms:.1f} ms a run)")
    print(f"1 worker:  {runs / one:6.1f} runs/s ({one:.2f} s)")
    print(f"2 workers: {runs / two:6.1f} runs/s ({two:.2f} s)")
    print(f"throughput ratio 2 workers / 1 worker: {one / two:.2f} (target >= 1.6)")
    print(f"Dask LocalCluster, 2 workers: {runs / dask:6.1f} runs/s ({dask:.2f} s); "
          f"Dask / process pool (2 workers): {two / dask:.2f}")
    for label, rows in (("python check", rows_inline), ("shell check", rows_sh),
                        ("python check, 2 workers", rows_two)):
        total, setup, check, books = overhead(rows)
        print(f"harness overhead, {label}: {total:.1%} of the agent's time (copy {setup:.1%}, "
              f"check {check:.1%}, bookkeeping {books:.1%}) (target <= 15%)")
    del rows_one


if __name__ == "__main__":
    main()
