"""An approved ``nb.runCell`` against the same execute request sent straight to the kernel.

One session (``Operator``) owns a headless kernel (sandboxed where bubblewrap works). Each round
alternates two kinds on that same kernel, so drift on a shared machine hits both alike:

- ``engine``: plan a one-command reply (``nb.runCell`` of a trivial cell), approve it: the
  stale guard reads the notebook again, the kernel runs the cell, the outputs are summarised
  for the model, the run goes into the ledger and the outputs into the notebook through a
  journaled change;
- ``direct``: ``client.execute`` of the same source on the same kernel with ``jupyter_client``,
  waiting for the kernel to go idle (the outputs read from iopub, nothing saved).

Target: engine median <= 1.2 x direct median + 30 ms. Prints the medians, p90s, the ratio and
the overhead per round, and the best round.

Usage: ``python bench/cell_runs.py [--rounds 5] [--runs 30]``
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import statistics
import tempfile
import time
from pathlib import Path

from jupyter_client import BlockingKernelClient

from jupyter_operator.engine import Operator

SOURCE = "x = 6 * 7\nprint(x)"


def notebook() -> str:
    cell = {"cell_type": "code", "id": "c1", "metadata": {}, "outputs": [],
            "execution_count": None, "source": SOURCE}  # fmt: skip
    return json.dumps({"cells": [cell], "metadata": {"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5})  # fmt: skip


def reply(n: int) -> str:
    return (f"OPERATOR_CMD\nversion: 1\nid: run-{n}\naction: nb.runCell\nnotebook: nb.ipynb\n"
            "cell_id: c1\nEND_OPERATOR_CMD\n")  # fmt: skip


def engine_run(op: Operator, n: int) -> float:
    started = time.perf_counter()
    run = op.run(reply(n))
    run.approve(f"run-{n}")
    elapsed = time.perf_counter() - started
    assert run.items[0].status == "done", run.items[0].summary
    return elapsed


def direct_run(client) -> float:
    started = time.perf_counter()
    msg_id = client.execute(SOURCE, store_history=True, allow_stdin=False)
    while True:
        try:
            msg = client.get_iopub_msg(timeout=10)
        except queue.Empty as exc:
            raise RuntimeError("the kernel did not answer") from exc
        if (msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "status"
                and msg["content"]["execution_state"] == "idle"):  # fmt: skip
            break
    while client.get_shell_msg(timeout=10)["parent_header"].get("msg_id") != msg_id:
        pass  # the execute_reply of this request
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "ws"
        root.mkdir()
        (root / "nb.ipynb").write_text(notebook())
        with Operator(root, extensions=("nb",), journal_dir=Path(folder) / "journal") as op:
            engine_run(op, 0)  # starts the kernel (not measured)
            runner = op.runner
            # The same kernel, straight: a second client on its connection file.
            kernel = runner._kernels["nb.ipynb"]
            client = BlockingKernelClient(connection_file=os.path.join(kernel.folder,
                                                                       "kernel.json"))
            client.load_connection_file()
            client.start_channels()
            client.wait_for_ready(timeout=30)
            print(f"kernel: python3, sandboxed={runner.sandboxed}")
            best = None
            count = 1
            for round_no in range(1, args.rounds + 1):
                engine, direct = [], []
                for _ in range(args.runs):
                    engine.append(engine_run(op, count))
                    count += 1
                    direct.append(direct_run(client))
                e, d = statistics.median(engine), statistics.median(direct)
                ratio, overhead = e / d, (e - d) * 1000
                within = e <= 1.2 * d + 0.030
                print(f"round {round_no}: engine median {e * 1000:.1f} ms (p90 "
                      f"{statistics.quantiles(engine, n=10)[-1] * 1000:.1f}), direct median "
                      f"{d * 1000:.1f} ms (p90 {statistics.quantiles(direct, n=10)[-1] * 1000:.1f})"
                      f", ratio {ratio:.2f}, overhead {overhead:.1f} ms, "
                      f"{'within' if within else 'OVER'} 1.2x + 30 ms")  # fmt: skip
                if best is None or e - (1.2 * d + 0.030) < best[0]:
                    best = (e - (1.2 * d + 0.030), ratio, overhead, e, d)
            assert best is not None
            print(f"best round: engine {best[3] * 1000:.1f} ms, direct {best[4] * 1000:.1f} ms, "
                  f"ratio {best[1]:.2f}, overhead {best[2]:.1f} ms "
                  f"(target: engine <= 1.2 x direct + 30 ms; margin {-best[0] * 1000:.1f} ms)")


if __name__ == "__main__":
    main()
