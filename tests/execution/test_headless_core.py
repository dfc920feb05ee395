"""The headless runner's async core in a real kernel: iopub awaited (no short polls), display
updates, a kernel's death noticed at once, and the synchronous wrapper from any thread."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path

import pytest
from jupyter_client import AsyncKernelClient
from support.cell_runs import cmd, details, insert_cell, joined, saved_cell

from jupyter_operator.engine import Operator
from jupyter_operator.protocol import parse_results


def _result(run, id: str):
    return next(r for r in parse_results(run.results_text) if r.id == id)


def test_an_updated_display_is_saved_with_its_last_data(op: Operator, ws: Path) -> None:
    source = ("from IPython.display import display\nh = display('started', display_id=True)\n"
              "print('working')\nh.update('finished')")  # fmt: skip
    cell_id = insert_cell(op, ws, source)
    run = op.run(cmd("r1", "nb.runCell", cell_id=cell_id))
    run.approve_all()
    assert _result(run, "r1").ok
    display, stream = saved_cell(ws / "nb.ipynb", cell_id)["outputs"]
    assert joined(display["data"]["text/plain"]) == "'finished'"  # not the first data
    assert joined(stream["text"]) == "working\n"


@pytest.mark.parametrize("pidfd", [True, False], ids=["pidfd", "no-pidfd"])
def test_a_kernel_that_dies_mid_run_is_noticed_at_once(
    op: Operator, ws: Path, pidfd: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process's end is awaited with the messages (its pidfd; where there is none, its
    state checked every second): not the run's timeout later."""
    if not pidfd:
        monkeypatch.delattr(os, "pidfd_open", raising=False)
    dies = "import os, time\nprint('before', flush=True)\ntime.sleep(0.5)\nos._exit(1)"
    cell_id = insert_cell(op, ws, dies)
    run = op.run(cmd("r1", "nb.runCell", cell_id=cell_id, timeout_s="20"))
    started = time.monotonic()
    run.approve_all()
    took = time.monotonic() - started
    result = _result(run, "r1")
    assert result.code == "ERR_KERNEL_DIED", result.summary
    assert took < 10, f"the death was noticed after {took:.1f} s"
    assert "[stdout]\nbefore" in details(run, "r1")  # what it sent before dying is kept


def test_iopub_is_awaited_until_a_message_comes_not_in_short_polls(
    op: Operator, ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    waits: list[float | None] = []
    real = AsyncKernelClient.get_iopub_msg

    async def recorded(self, timeout: float | None = None):
        waits.append(timeout)
        return await real(self, timeout=timeout)

    cell_id = insert_cell(op, ws, "import time\ntime.sleep(1)\nprint('slept')")
    run = op.run(cmd("r0", "nb.runCell", cell_id="c1") +
                 cmd("r1", "nb.runCell", cell_id=cell_id, timeout_s="30"))  # fmt: skip
    run.approve("r0")  # the kernel starts (its start-up handshake is not a run)
    monkeypatch.setattr(AsyncKernelClient, "get_iopub_msg", recorded)
    run.approve("r1")
    assert _result(run, "r1").ok and "[stdout]\nslept" in details(run, "r1")
    # Awaited until a message comes, the deadline held beside it (nothing wakes to poll).
    assert waits and all(wait is None for wait in waits), waits


def test_runs_from_other_threads_and_from_inside_a_running_loop_share_the_kernel(
    op: Operator, ws: Path
) -> None:
    """The engine calls from a host's worker threads, or from a thread whose own event loop
    is running (a notebook's kernel): the same kernel answers each (its state kept). A kernel
    started by a worker thread outlives it (the sandbox kills a process whose starting thread
    ends)."""
    first = op.run(cmd("r1", "nb.runCell", cell_id="c1"))
    worker = threading.Thread(target=first.approve_all)
    worker.start()
    worker.join(60)
    assert _result(first, "r1").ok

    async def inside_a_loop() -> None:
        second = op.run(cmd("r2", "nb.runCell", cell_id="c2"))
        second.approve_all()
        assert "[stdout]\n42" in details(second, "r2")

    asyncio.run(inside_a_loop())


def test_the_sync_wrapper_runs_on_one_loop_thread_and_never_waits_for_itself() -> None:
    """Every coroutine runs on the same loop thread (an async client's sockets belong to one
    loop); a call made on that thread (a finalizer) runs at once instead of waiting on
    itself; after ``close`` the next run starts a new thread."""
    from jupyter_operator.execution.headless import _Loop

    loop = _Loop()

    async def thread_name() -> str:
        return threading.current_thread().name

    async def nested() -> int:
        return loop.call(lambda: 5)

    try:
        assert loop.run(thread_name()) == "jupyter-operator-kernels"
        assert loop.call(threading.current_thread) is loop._thread
        assert loop.run(asyncio.wait_for(nested(), timeout=5)) == 5
        first = loop._thread
        loop.close()
        assert first is not None and not first.is_alive()
        assert loop.run(thread_name()) == "jupyter-operator-kernels" and loop._thread is not first
    finally:
        loop.close()
