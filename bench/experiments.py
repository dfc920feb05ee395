"""The experiment harness's speed, each figure a ratio within one run of this bench.

The grid is RUNS replayed runs of a 5-turn task (read, edit, write, read back, done) in a
fresh copy each, with a deterministic check. Parts (``--part``, repeatable; all by default):

- ``workers``: throughput (runs per second of the grid's wall time) with 1 and 2 local
  workers, and Dask's ``LocalCluster`` against the process pool.
- ``inspect``: the same task, replies and check command as an Inspect AI eval (a scripted
  ``ModelAPI``, its ``local`` sandbox, ``max_samples`` = our workers), against our process pool
  with the same number of workers, each ROUNDS times, alternating. Needs the Python of a
  separate virtualenv with ``inspect-ai`` (``--inspect PYTHON`` or ``$INSPECT_PYTHON``); skipped
  with a message without one. Both sides are timed twice: the whole command (``inspect eval``'s
  ``eval()`` in a fresh interpreter, ``jupyter-operator eval`` on the command line), and the
  grid alone, after the imports.
- ``bookkeeping``: what the harness adds to a run beyond the agent loop and the check (the copy
  of the task's files, reading the transcript, the row, the parent saving it), as a share of the
  agent's time: per run ``wall - agent - check`` plus the parent's time per row, over ``agent``;
  and the grid's wall time over its runs (which counts the removal of the runs' folders, done
  on a thread of each worker off the runs' path).
- ``check``: the sandboxed check's fixed cost (``run_check`` of ``true``) against ``bwrap`` with
  the same mounts running ``true``, interleaved.

Each figure is reported per round, with its median and range over the rounds and the machine's
load (``uptime``) before and after.

Usage: ``python bench/experiments.py [RUNS] [--rounds N] [--workers N] [--inspect PYTHON]
[--part workers|inspect|bookkeeping|check]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.replies import b64, block, edits

from jupyter_operator.experiments import Experiment, ModelSpec, load_task
from jupyter_operator.experiments.checks import CHECKLIB, run_check
from jupyter_operator.shell import python_homes, sandbox
from jupyter_operator.shell.cgroup import pids_group
from jupyter_operator.shell.command_runner import JOIN

HERE = Path(__file__).resolve().parent
SHELL_CHECK = "grep -qx 'status: final' notes.txt && test -f summary.md"
PROMPT = "Mark the notes final and summarise."
PARTS = ("workers", "inspect", "bookkeeping", "check")

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


def spread(values: list[float], fmt: str = "{:.2f}") -> str:
    """``median (min-max, n rounds)``."""
    low, high = min(values), max(values)
    return f"{fmt.format(statistics.median(values))} ({fmt.format(low)}-{fmt.format(high)}, " \
           f"{len(values)} rounds)"  # fmt: skip


def load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def part_workers(base: Path, runs: int, python_task: Path, shell_task: Path) -> None:
    one, _rows_one = grid(python_task, runs, base / "one", workers=1)
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
              f"check {check:.1%}, bookkeeping {books:.1%})")


def timed(argv: list[str], **how: object) -> tuple[float, str]:
    """Wall time and stdout of a command that must succeed."""
    clock = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, **how)  # type: ignore[call-overload]
    wall = time.perf_counter() - clock
    if done.returncode != 0:
        raise SystemExit(f"{argv[:3]} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return wall, done.stdout


def part_inspect(base: Path, runs: int, rounds: int, workers: int, task: Path,
                 python: str | None) -> None:  # fmt: skip
    if not python or not Path(python).exists():
        print("Inspect AI: skipped (no --inspect PYTHON nor $INSPECT_PYTHON: the Python of a "
              "separate virtualenv with inspect-ai installed)")
        return
    files = {str(p.relative_to(task / "files")): p.read_text()
             for p in sorted((task / "files").rglob("*")) if p.is_file()}  # fmt: skip
    replies = base / "replay.json"
    replies.write_text(json.dumps(REPLIES))
    ours_cli, ours_grid, theirs_cli, theirs_grid = [], [], [], []
    for n in range(-1, rounds):  # round -1 warms both sides' caches, not counted
        spec = base / f"inspect-{n}.json"
        spec.write_text(json.dumps({"runs": runs, "workers": workers, "check": SHELL_CHECK,
                                    "prompt": PROMPT, "files": files,
                                    "log_dir": str(base / f"inspect-logs-{n}")}))  # fmt: skip
        wall, out = timed([python, str(HERE / "inspect_file_task.py"), str(spec)])
        said = json.loads(out.strip().splitlines()[-1])
        assert said["passed"] == runs and said["turns"] == [5], said
        cli, _out = timed([sys.executable, "-m", "jupyter_operator", "eval", str(task),
                           "--replay", str(replies), "--repeats", str(runs), "--workers",
                           str(workers), "--out", str(base / f"ours-cli-{n}")])  # fmt: skip
        ours, _rows = grid(task, runs, base / f"ours-{n}", workers=workers)
        if n < 0:
            continue
        theirs_cli.append(runs / wall)
        theirs_grid.append(runs / said["wall"])
        ours_cli.append(runs / cli)
        ours_grid.append(runs / ours)
        print(f"  round {n}: whole command ours {runs / cli:.1f} runs/s, Inspect "
              f"{runs / wall:.1f} runs/s (import {said['import']:.2f} s); grid alone ours "
              f"{runs / ours:.1f}, Inspect {runs / said['wall']:.1f} runs/s")
    print(f"Inspect AI, {runs} runs, {workers} workers (max_samples), local sandbox, same check:")
    print(f"  whole command: ours {spread(ours_cli, '{:.1f}')} runs/s, Inspect "
          f"{spread(theirs_cli, '{:.1f}')} runs/s, ratio ours/Inspect "
          f"{spread([a / b for a, b in zip(ours_cli, theirs_cli, strict=True)])} "
          "(target >= 1.0)")
    print(f"  grid alone:    ours {spread(ours_grid, '{:.1f}')} runs/s, Inspect "
          f"{spread(theirs_grid, '{:.1f}')} runs/s, ratio ours/Inspect "
          f"{spread([a / b for a, b in zip(ours_grid, theirs_grid, strict=True)])} "
          "(target >= 1.0)")


def bookkeeping_share(rows: list[dict]) -> tuple[float, float, float]:
    """(share, copy share, the rest's share) of the agent's time, summed over ``rows``."""
    agent = sum(r["agent_seconds"] for r in rows)
    extra = sum(r["wall_seconds"] - r["agent_seconds"] - r["check_seconds"]
                + r["bookkeeping_seconds"] for r in rows)  # fmt: skip
    setup = sum(r["setup_seconds"] for r in rows)
    return extra / agent, setup / agent, (extra - setup) / agent


def part_bookkeeping(base: Path, runs: int, rounds: int, workers: int, task: Path) -> None:
    shares, copies, rests, agents, paces = [], [], [], [], []
    for n in range(rounds):
        wall, rows = grid(task, runs, base / f"books-{n}", workers=workers)
        share, copy, rest = bookkeeping_share(rows)
        shares.append(share * 100)
        copies.append(copy * 100)
        rests.append(rest * 100)
        agents.append(statistics.median(r["agent_seconds"] for r in rows) * 1000)
        paces.append(wall / runs * 1000)
    print(f"bookkeeping + copy, {runs} runs a round, {workers} workers: "
          f"{spread(shares, '{:.1f}')} % of the agent's time (copy {spread(copies, '{:.1f}')} %, "
          f"the rest {spread(rests, '{:.1f}')} %; median agent time a run "
          f"{spread(agents, '{:.1f}')} ms) (target <= 15%)")
    # what a run's own figures leave out (the removal of its folder, on a thread of the
    # worker) still shows here: the grid's wall time over its runs
    print(f"  the grid's wall time a run: {spread(paces, '{:.1f}')} ms")


def part_check(base: Path, rounds: int, calls: int = 30, pause_s: float = 0.05) -> None:
    """``run_check('true')`` against ``bwrap`` with the same mounts running ``true``, and that
    ``bwrap`` joined to a fresh pids cgroup first (as the runner does), interleaved; both back
    to back and each after a pause (as a check follows an agent run)."""
    if not sandbox.available():
        print(f"check fixed cost: skipped ({sandbox.unavailable_reason()})")
        return
    workspace, task_dir = base / "check-ws", base / "check-task"
    workspace.mkdir()
    task_dir.mkdir()
    argv = sandbox.wrap(["true"], root=workspace, cwd=workspace,
                        read_only={*python_homes(), task_dir, CHECKLIB})  # fmt: skip

    def ours() -> None:
        assert run_check("true", workspace, task_dir).passed

    def bare() -> None:
        subprocess.run(argv, check=True, stdin=subprocess.DEVNULL, capture_output=True)

    def joined() -> None:
        with pids_group(256) as group:
            join = ["/bin/sh", "-c", JOIN, str(group.join)] if group is not None else []
            subprocess.run([*join, *argv], check=True, stdin=subprocess.DEVNULL,
                           capture_output=True)  # fmt: skip

    variants = {"run_check('true')": ours, "bwrap true (same mounts)": bare,
                "bwrap true in a pids cgroup": joined}  # fmt: skip
    for label, pause in (("back to back", 0.0), (f"each after a {pause_s * 1000:.0f} ms pause",
                                                 pause_s)):  # fmt: skip
        medians: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(rounds):
            times: dict[str, list[float]] = {name: [] for name in variants}
            for _ in range(calls):
                for name, call in variants.items():
                    time.sleep(pause)
                    clock = time.perf_counter()
                    call()
                    times[name].append(time.perf_counter() - clock)
            for name in variants:
                medians[name].append(statistics.median(times[name]) * 1000)
        ours_ms, bare_ms = medians["run_check('true')"], medians["bwrap true (same mounts)"]
        print(f"check fixed cost, {label} ({calls} calls of each a round, interleaved): "
              + ", ".join(f"{name} {spread(ms, '{:.1f}')} ms" for name, ms in medians.items()))
        print(f"  ratio run_check / bwrap true: "
              f"{spread([a / b for a, b in zip(ours_ms, bare_ms, strict=True)])} (target <= 1.5)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="?", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--inspect", default=os.environ.get("INSPECT_PYTHON"), metavar="PYTHON",
                        help="the Python of a virtualenv with inspect-ai ($INSPECT_PYTHON)")
    parser.add_argument("--part", action="append", choices=PARTS, default=[])
    args = parser.parse_args()
    parts = args.part or list(PARTS)
    print(f"load before: {load()}")
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        python_task = make_task(base / "task-py", 'python3 "$TASK_DIR/check.py"')
        shell_task = make_task(base / "task-sh", SHELL_CHECK)
        grid(python_task, 4, base / "warm", workers=0)  # imports and caches, not timed
        if "workers" in parts:
            part_workers(base, args.runs, python_task, shell_task)
        if "inspect" in parts:
            part_inspect(base, args.runs, args.rounds, args.workers, shell_task, args.inspect)
        if "bookkeeping" in parts:
            part_bookkeeping(base, args.runs, args.rounds, args.workers, shell_task)
        if "check" in parts:
            part_check(base, args.rounds)
    print(f"load after: {load()}")


if __name__ == "__main__":
    main()
