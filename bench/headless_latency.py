"""A headless cell run's latency against a bare ``jupyter_client`` execute of the same cell.

One session's headless kernel (sandboxed where bubblewrap works) runs a trivial cell. Each
round alternates three kinds on that same kernel, so drift on a shared machine hits all alike:

- ``runner``: ``HeadlessKernels.run`` of the cell (the runner alone: send the request, read
  iopub until idle, gather the outputs into one ``Outcome``);
- ``engine``: a one-command reply (``nb.runCell``) planned and approved: the stale guard, the
  run, the result for the model, the ledger and the outputs saved into the notebook;
- ``bare``: a second ``BlockingKernelClient`` connected to the same kernel sends the same
  source and reads iopub until idle and the execute reply (the baseline).

Prints each kind's median and p90 per round, the ratios to ``bare``, and the medians over all
rounds. Runs against whichever ``jupyter_operator`` is imported (``PYTHONPATH`` picks one), so
two versions of the runner can be compared on the same machine.

Usage: ``python bench/headless_latency.py [--rounds 5] [--runs 40]``
"""

from __future__ import annotations

import argparse
import hashlib
import os
import queue
import statistics
import tempfile
import time
from pathlib import Path

# The notebook, the reply and the approved engine run are bench/cell_runs.py's own.
from cell_runs import SOURCE, engine_run, notebook
from jupyter_client import BlockingKernelClient

import jupyter_operator
from jupyter_operator.engine import Operator
from jupyter_operator.execution import RunRequest


def runner_run(runner, request: RunRequest) -> float:
    started = time.perf_counter()
    outcome = runner.run(request)
    elapsed = time.perf_counter() - started
    assert outcome.status == "ok" and outcome.outputs, outcome
    return elapsed


def bare_run(client: BlockingKernelClient) -> float:
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


def ms(values: list[float]) -> str:
    return (f"median {statistics.median(values) * 1000:6.2f} ms, "
            f"p90 {statistics.quantiles(values, n=10)[-1] * 1000:6.2f}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    print(f"jupyter_operator from {Path(jupyter_operator.__file__).parent}")
    request = RunRequest(notebook="nb.ipynb", cell_id="c1", index=0, source=SOURCE,
                         source_sha256=hashlib.sha256(SOURCE.encode()).hexdigest(),
                         kernel_identity=None, timeout_s=60)  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "ws"
        root.mkdir()
        (root / "nb.ipynb").write_text(notebook())
        with Operator(root, extensions=("nb",), journal_dir=Path(folder) / "journal") as op:
            engine_run(op, 0)  # starts the kernel (not measured)
            runner = op.runner
            kernel = runner._kernels["nb.ipynb"]
            bare = BlockingKernelClient(connection_file=os.path.join(kernel.folder,
                                                                     "kernel.json"))
            bare.load_connection_file()
            bare.start_channels()
            bare.wait_for_ready(timeout=30)
            print(f"kernel: python3, sandboxed={runner.sandboxed}, {args.rounds} rounds of "
                  f"{args.runs} runs of each kind")
            every: dict[str, list[float]] = {"runner": [], "engine": [], "bare": []}
            count = 1
            for round_no in range(1, args.rounds + 1):
                found: dict[str, list[float]] = {"runner": [], "engine": [], "bare": []}
                for _ in range(args.runs):
                    found["runner"].append(runner_run(runner, request))
                    found["bare"].append(bare_run(bare))
                    found["engine"].append(engine_run(op, count))
                    count += 1
                base = statistics.median(found["bare"])
                print(f"round {round_no}: " + "; ".join(
                    f"{kind} {ms(values)} ({statistics.median(values) / base:.2f}x bare)"
                    for kind, values in found.items()))  # fmt: skip
                for kind, values in found.items():
                    every[kind] += values
            bare.stop_channels()
            base = statistics.median(every["bare"])
            print("all rounds: " + "; ".join(
                f"{kind} median {statistics.median(values) * 1000:.2f} ms "
                f"({statistics.median(values) / base:.2f}x bare)"
                for kind, values in every.items()))  # fmt: skip


if __name__ == "__main__":
    main()
