"""Kernels the session owns: one per notebook, through ``jupyter_client``, sandboxed if possible.

Used where no front end shows the notebook (the Python API, ``jupyter-operator run|agent``,
scripts). A kernel starts on the first run of its notebook, in the notebook's folder, with the
kernel named in the notebook's metadata, and stops with the session.

Where bubblewrap works the kernel runs inside the same sandbox as shell commands: only the
workspace is writable (its protected paths read-only, its secrets hidden), there is no
network, and the environment is the shell's allowlist (no API key). With no network namespace
to share, the kernel's channels are ``ipc`` sockets in a private folder bound into the sandbox
at its own path.
"""

from __future__ import annotations

import asyncio
import logging
import os
import queue
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from jupyter_client import AsyncKernelClient
from jupyter_client.connect import write_connection_file

from .. import shell
from ..shell import kernel_process
from ..shell.cgroup import PidsGroup
from ..shell.env import child_env
from ..workspace import Workspace
from ..workspace.dirs import working_dir
from ..workspace.host_python import installation
from .cell_runner import Capabilities, Done
from .outcome import KernelInfo, Outcome, RunRequest
from .streams import OutputCollector, process_message

log = logging.getLogger(__name__)

START_TIMEOUT_S = 60.0
INTERRUPT_GRACE_S = 5.0  # after an interrupt, how long the kernel has to become idle
ALIVE_CHECK_S = 1.0  # where the kernel's exit cannot be awaited: how often it is checked
DEATH_GRACE_S = 0.1  # after the kernel's exit, how long what it sent before has to arrive

T = TypeVar("T")
#: How reading a run's messages ended.
Ending = Literal["ok", "timeout", "kernel_died"]


@dataclass
class _Kernel:
    name: str
    proc: subprocess.Popen[bytes]
    client: AsyncKernelClient
    folder: str  # the private folder of its connection file and sockets
    identity: str
    group: PidsGroup | None = None  # its pids cgroup (the process limit), where there is one
    execution_count: int = 0
    busy: bool = False
    history: list[str] = field(default_factory=list)
    #: What its sandbox covers (read-only and hidden paths), fixed when it started.
    covered: frozenset[str] = frozenset()


class HeadlessKernels:
    """The ``CellRunner`` of a session with no front end (see the module docstring)."""

    def __init__(self, workspace: Workspace, *, use_sandbox: bool = True) -> None:
        self.workspace = workspace
        self.sandboxed = use_sandbox and shell.sandbox_available()
        # The session's own kernels: its rules may approve runs; nobody else shows the
        # notebook, so the engine checks the cell before a run and saves the outputs.
        self.capabilities = Capabilities(runs_cells=True, live_kernel=False,
                                         sandboxed=self.sandboxed, allows_auto=True,
                                         saves_outputs=True, checks_staleness=True)  # fmt: skip
        self._kernels: dict[str, _Kernel] = {}
        self._lock = threading.RLock()
        # A host that never closes its session still stops its kernels when it exits.
        self._loop = _Loop()
        self._finalizer = weakref.finalize(self, _stop_all, self._kernels, self._loop)

    # -- what a card shows --------------------------------------------------------------------
    def reach(self) -> str:
        if self.sandboxed:
            return ("a kernel of this session, sandboxed: only the workspace is writable, "
                    "no network, no API keys")  # fmt: skip
        return ("a kernel of this session, NOT sandboxed (bubblewrap is not available): the "
                "code runs with your permissions; API keys are not passed on")  # fmt: skip

    def kernel(self, notebook: str, kernel_name: str) -> KernelInfo:
        """The state of ``notebook``'s kernel (``not_started`` before its first run)."""
        with self._lock:
            found = self._kernels.get(notebook)
            if found is not None and found.proc.poll() is not None:
                state = "dead"
            elif found is not None:
                state = "busy" if found.busy else "idle"
            else:
                state = "not_started"
            return KernelInfo(
                name=found.name if found else kernel_name,
                state=state,  # type: ignore[arg-type]
                execution_count=found.execution_count if found else 0,
                identity=found.identity if found else None,
                where="headless",
                sandboxed=self.sandboxed,
                reach=self.reach(),
            )

    # -- running --------------------------------------------------------------------------------
    def start(self, request: RunRequest, done: Done) -> None:
        """Run ``request`` now and call ``done`` with its outcome before returning."""
        done(self.run(request))

    def run(self, request: RunRequest) -> Outcome:
        """Run one request (a cell, a restart, or a rebuild) and return what happened.

        The synchronous face of :meth:`run_async` for the engine's synchronous callers (as
        nbclient's ``run_sync`` wrappers are): the guards and the kernel's start run here, the
        messages are read on the loop of this session's kernels (:class:`_Loop`)."""
        with self._lock:
            kernel = self._kernels.get(request.notebook)
            refused = self._refused(request, kernel)
            if refused is not None:
                return refused
            try:
                if request.restart or kernel is None or kernel.proc.poll() is not None:
                    kernel = self._restart(request.notebook, request.kernel_name, kernel)
            except KernelStartError as exc:
                return Outcome("unavailable", message=str(exc))
            return self._loop.run(self.run_async(kernel, request))

    def _refused(self, request: RunRequest, kernel: _Kernel | None) -> Outcome | None:
        """A ``stale`` outcome when the kernel is not the one previewed (restarted, died, or
        its sandbox no longer covers the workspace), else None."""
        current = kernel.identity if kernel else None
        if request.kernel_identity is not None and current != request.kernel_identity:
            return Outcome("stale", message="the kernel restarted since the preview; nothing "
                           "ran. Read the cells again (nb.readCells) and run them again.")
        if (request.kernel_identity is not None and not request.restart
                and kernel is not None and kernel.proc.poll() is not None):  # fmt: skip
            # Starting a new one would run the cell on an empty state nobody approved.
            return Outcome("stale", message="the kernel died since the preview (its variables "
                           "and imports are lost); nothing ran. Restart it (nb.restartKernel "
                           "or nb.rebuildState), then run the cell again.")  # fmt: skip
        if not request.restart and kernel is not None and kernel.proc.poll() is None:
            uncovered = self._uncovered(kernel)
            if uncovered:
                return Outcome("stale", message=f"{uncovered} appeared in the workspace "
                               "after the kernel started, and its sandbox does not cover "
                               "it (a protected path, or a notebook with its own policy); "
                               "nothing ran. Restart the kernel (nb.restartKernel or "
                               "nb.rebuildState), then run the cell again.")  # fmt: skip
        return None

    async def run_async(self, kernel: _Kernel, request: RunRequest) -> Outcome:
        """The async core: run the request's cell on ``kernel`` (or each cell of a rebuild,
        stopping at the first that does not end ``ok``)."""
        if request.cells:
            steps: list[Outcome] = []
            for _cell_id, source, _sha in request.cells:
                steps.append(await self.execute_cell(kernel, source, request.timeout_s))
                if steps[-1].status != "ok":
                    break
            return Outcome(
                "ok" if all(s.status == "ok" for s in steps) else steps[-1].status,
                kernel.execution_count, sum(s.duration_ms for s in steps),
                kernel_identity=kernel.identity, steps=steps,
            )  # fmt: skip
        if not request.source and request.restart:
            return Outcome("ok", kernel.execution_count, 0, kernel_identity=kernel.identity,
                           message="restarted")  # fmt: skip
        return await self.execute_cell(kernel, request.source, request.timeout_s)

    def _uncovered(self, kernel: _Kernel) -> str | None:
        """A path the sandbox would cover now but did not when ``kernel`` started (a ``.git``
        made since, a notebook given ``off``), or None. A kernel's binds are set up once, at
        its start: only a new kernel covers what appeared since."""
        if not self.sandboxed:
            return None
        found = self.workspace.sandbox_masks()
        now = [*found.read_only, *(rel for rel, _is_folder in found.hidden)]
        for rel in sorted(now):
            parts = rel.split("/")
            if not any("/".join(parts[:depth]) in kernel.covered
                       for depth in range(1, len(parts) + 1)):  # fmt: skip
                return rel
        return None

    async def execute_cell(self, kernel: _Kernel, source: str, timeout_s: float) -> Outcome:
        """Run ``source`` and read its messages until the kernel is idle (as nbclient's
        ``async_execute_cell``): one ``Outcome``. A run past ``timeout_s`` is interrupted; a
        kernel that ignores the interrupt for ``INTERRUPT_GRACE_S`` is killed."""
        client = kernel.client
        started = time.monotonic()
        cell = OutputCollector()
        msg_id = client.execute(source, store_history=True, allow_stdin=False)
        # One task reads the request's messages (nbclient's ``_async_poll_output_msg``); the
        # deadline and the process's end are awaited beside it.
        reader = asyncio.ensure_future(_read_until_idle(client, msg_id, cell))
        exited = _exited(kernel.proc)
        kernel.busy = True
        try:
            ending = await _first_of(reader, exited, started + timeout_s, client, msg_id, cell)
            status: str = ending
            if ending == "timeout":
                self._interrupt(kernel)
                grace = time.monotonic() + INTERRUPT_GRACE_S
                if await _first_of(reader, exited, grace, client, msg_id, cell) == "timeout":
                    kernel.proc.kill()  # an interrupt it ignores: the kernel cannot go on
            elif ending == "ok" and cell.error:
                status = "error"
        finally:
            reader.cancel()
            exited.cancel()
            kernel.busy = False
        if cell.execution_count:
            kernel.execution_count = cell.execution_count
        kernel.history.append(source)
        duration = int((time.monotonic() - started) * 1000)
        return Outcome(status, cell.execution_count, duration,  # type: ignore[arg-type]
                       cell.outputs(), kernel.identity)  # fmt: skip

    def _interrupt(self, kernel: _Kernel) -> None:
        """Ask the kernel to interrupt itself (its control channel: the sandbox's PID namespace
        keeps the kernel out of reach of a signal from here)."""
        client = kernel.client
        msg = client.session.msg("interrupt_request", {})
        client.control_channel.send(msg)

    # -- starting and stopping -------------------------------------------------------------------
    def _restart(self, notebook: str, name: str, old: _Kernel | None) -> _Kernel:
        if old is not None:
            self._loop.call(_stop, old)
        kernel = self._launch(notebook, old.name if old else name)
        self._kernels[notebook] = kernel
        return kernel

    def _launch(self, notebook: str, name: str) -> _Kernel:
        argv = kernel_argv(name)
        parent = notebook.rsplit("/", 1)[0] if "/" in notebook else ""
        cwd = working_dir(self.workspace, parent)
        folder = kernel_process.private_folder()
        connection_file = os.path.join(folder, "kernel.json")
        write_connection_file(connection_file, transport="ipc", ip=os.path.join(folder, "k"))
        argv = [part.replace("{connection_file}", connection_file) for part in argv]
        env = child_env()
        kernel_home = installation_of(argv[0])
        if kernel_home is not None:  # a kernel of another environment: kept like the host's
            for part in installation(kernel_home):
                self.workspace.keep_host_python(part)
        masks: tuple = ((), ())
        if self.sandboxed:
            env["HOME"] = "/tmp"
            found = self.workspace.sandbox_masks()  # protected paths hidden, host Python read-only
            masks = (found.read_only, found.hidden)
        covered = frozenset([*masks[0], *(rel for rel, _is_folder in masks[1])])
        # Started from the loop's thread, which lives as long as the session's kernels: the
        # sandbox ends its process with the thread that started it (``--die-with-parent``),
        # and a caller's worker thread may end right after its run.
        proc, group = self._loop.call(kernel_process.start, argv, env=env,
                                      root=self.workspace.root, cwd=cwd,
                                      sandboxed=self.sandboxed, folder=folder,
                                      read_only=shell.python_homes(), masks=masks)  # fmt: skip
        # The client is made on the loop it will be read on (its sockets belong to it).
        client = self._loop.call(AsyncKernelClient, connection_file=connection_file)
        kernel = _Kernel(name, proc, client, folder, "", group=group, covered=covered)
        try:
            self._loop.run(self._connect(kernel))
        except KernelStartError:
            self._loop.call(client.stop_channels)
            proc.kill()
            kernel_process.stop_group(group)
            kernel_process.remove_private_folder(folder)
            raise
        return kernel

    async def _connect(self, kernel: _Kernel) -> None:
        """Open the channels and wait for the kernel to answer and iopub to receive; raises
        KernelStartError when it does not within ``START_TIMEOUT_S``."""
        client = kernel.client
        client.load_connection_file()
        client.start_channels()
        try:
            reply = await client.kernel_info(reply=True, timeout=START_TIMEOUT_S)
        except Exception:
            raise KernelStartError(f"the kernel {kernel.name!r} did not start; nothing ran.") \
                from None
        kernel.identity = reply["header"]["session"]
        if not await _iopub_ready(client, time.monotonic() + START_TIMEOUT_S):
            raise KernelStartError(f"the kernel {kernel.name!r} did not answer; nothing ran.")

    def cells_written(self, notebook: str, before: bytes | None, after: bytes | None) -> None:
        return None  # its kernels read nothing from the file: each run brings its source

    def close(self) -> None:
        """Stop every kernel of this session."""
        with self._lock:
            _stop_all(self._kernels, self._loop)


class _Loop:
    """An event loop on a thread of its own, where a session's kernel clients live.

    The engine calls from any thread (a host's worker, a kernel's main thread whose own loop
    is running), and an async client's sockets belong to one loop: :meth:`run` hands a
    coroutine to this loop and waits for it, like nbclient's ``run_sync`` but always on the
    same loop. The thread starts with the first run and ends with :meth:`close`.
    """

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._guard = threading.Lock()

    def _running(self) -> asyncio.AbstractEventLoop:
        with self._guard:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, daemon=True,
                                          name="jupyter-operator-kernels")  # fmt: skip
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the loop and return its result (or raise its exception)."""
        return asyncio.run_coroutine_threadsafe(coro, self._running()).result()

    def call(self, function: Any, *args: Any, **kwargs: Any) -> Any:
        """Call a synchronous ``function`` on the loop's thread (what touches a client's
        sockets) and return its result."""
        if threading.current_thread() is self._thread:  # already there (a finalizer): no wait
            return function(*args, **kwargs)

        async def called() -> Any:
            return function(*args, **kwargs)

        return self.run(called())

    def close(self) -> None:
        """Stop the loop and its thread (a later :meth:`run` starts them again)."""
        with self._guard:
            loop, thread, self._loop, self._thread = self._loop, self._thread, None, None
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        if thread is threading.current_thread():
            return  # stops once the running callback returns
        thread.join(timeout=5)
        if not thread.is_alive():
            loop.close()


def _exited(proc: subprocess.Popen[bytes]) -> asyncio.Future[None]:
    """A future done once ``proc`` has ended: its pidfd becomes readable (no polling); where
    there is no pidfd, its state is checked every ``ALIVE_CHECK_S`` (as nbclient's
    ``_async_poll_kernel_alive`` does)."""
    loop = asyncio.get_running_loop()
    pidfd = kernel_process.exit_fd(proc)
    if pidfd is None:
        return asyncio.ensure_future(_poll_exit(proc))
    ended: asyncio.Future[None] = loop.create_future()

    def readable() -> None:
        if not ended.done():
            ended.set_result(None)

    def release(_future: asyncio.Future[None]) -> None:
        loop.remove_reader(pidfd)
        os.close(pidfd)

    loop.add_reader(pidfd, readable)
    ended.add_done_callback(release)
    return ended


async def _read_until_idle(client: AsyncKernelClient, msg_id: str,
                           cell: OutputCollector) -> None:  # fmt: skip
    """Await the iopub messages of the request ``msg_id``, each through ``process_message``,
    until the kernel is idle (the caller holds the deadline)."""
    while True:
        msg = await client.get_iopub_msg(timeout=None)
        if msg.get("parent_header", {}).get("msg_id") == msg_id and process_message(msg, cell):
            return


async def _first_of(reader: asyncio.Future[None], exited: asyncio.Future[None], deadline: float,
                    client: AsyncKernelClient, msg_id: str,
                    cell: OutputCollector) -> Ending:  # fmt: skip
    """How the run ends first: its idle (``ok``), ``deadline`` (``timeout``; the reader goes
    on), or the kernel's process (``kernel_died``, once the messages it sent before are read;
    ``ok`` when its idle was among them)."""
    left = max(deadline - time.monotonic(), 0)
    await asyncio.wait({reader, exited}, timeout=left, return_when=asyncio.FIRST_COMPLETED)
    if reader.done():
        reader.result()  # what broke the reading, if anything
        return "ok"
    if exited.done():
        reader.cancel()
        return "ok" if await _drain(client, msg_id, cell) else "kernel_died"
    return "timeout"


async def _poll_exit(proc: subprocess.Popen[bytes]) -> None:
    while proc.poll() is None:
        await asyncio.sleep(ALIVE_CHECK_S)


async def _drain(client: AsyncKernelClient, msg_id: str, cell: OutputCollector) -> bool:
    """Read what a kernel that just ended had sent for ``msg_id`` (until nothing more comes
    within ``DEATH_GRACE_S``); True when the run had ended (its idle came)."""
    while True:
        try:
            msg = await client.get_iopub_msg(timeout=DEATH_GRACE_S)
        except queue.Empty:
            return False
        if msg.get("parent_header", {}).get("msg_id") == msg_id and process_message(msg, cell):
            return True


def _stop_all(kernels: dict[str, _Kernel], loop: _Loop) -> None:
    found = list(kernels.values())
    kernels.clear()
    for kernel in found:
        try:
            loop.call(_stop, kernel)
        except Exception:  # closing must go on for the others
            log.exception("stopping a kernel failed")
    loop.close()


def _stop(kernel: _Kernel) -> None:
    try:
        kernel.client.stop_channels()
    finally:
        if kernel.proc.poll() is None:
            kernel.proc.terminate()
            try:
                kernel.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                kernel.proc.kill()
                kernel.proc.wait()
        kernel_process.stop_group(kernel.group)  # what the kernel's cells left running
        kernel_process.remove_private_folder(kernel.folder)


async def _iopub_ready(client: AsyncKernelClient, deadline: float) -> bool:
    """Wait until the iopub channel receives (a subscription joins late: messages sent before
    would be lost, as nbclient also guards against), then drain what is queued."""
    while time.monotonic() < deadline:
        client.kernel_info()
        try:
            await client.get_iopub_msg(timeout=0.25)
        except queue.Empty:
            continue
        while True:  # the rest of the start-up chatter, so a run reads only its own messages
            try:
                await client.get_iopub_msg(timeout=0.1)
            except queue.Empty:
                return True
    return False


class KernelStartError(RuntimeError):
    """The kernel could not be started (unknown kernel name, or it did not answer)."""


def installation_of(program: str) -> Path | None:
    """The installation a kernel's interpreter belongs to (``<prefix>/bin/python`` gives
    ``<prefix>``), or None for a program not given by its absolute path."""
    if not os.path.isabs(program):
        return None
    return Path(program).parent.parent


def kernel_argv(name: str) -> list[str]:
    """The command line of the kernel ``name`` (its kernelspec), with ``{connection_file}``.

    ``python3`` (or no name) without an installed spec is this Python's ipykernel.
    """
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        argv = list(KernelSpecManager().get_kernel_spec(name or "python3").argv)
    except NoSuchKernel:
        if name in ("", "python3", "python"):
            return [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
        raise KernelStartError(f"no kernel named {name!r} is installed here; nothing ran.") \
            from None
    # As jupyter_client does: a spec's bare "python" is the Python running this session.
    major, minor = sys.version_info[:2]
    if argv and argv[0] in ("python", f"python{major}", f"python{major}.{minor}"):
        argv[0] = sys.executable
    return argv
