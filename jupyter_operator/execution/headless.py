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

import logging
import os
import queue
import subprocess
import sys
import threading
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path

from jupyter_client import BlockingKernelClient
from jupyter_client.connect import write_connection_file

from .. import shell
from ..shell import kernel_process
from ..shell.cgroup import PidsGroup
from ..shell.env import child_env
from ..workspace import Workspace
from ..workspace.dirs import working_dir
from ..workspace.host_python import installation
from .outcome import KernelInfo, Outcome, RunRequest
from .runner import Capabilities, Done
from .streams import OutputCollector

log = logging.getLogger(__name__)

START_TIMEOUT_S = 60.0
INTERRUPT_GRACE_S = 5.0  # after an interrupt, how long the kernel has to become idle


@dataclass
class _Kernel:
    name: str
    proc: subprocess.Popen[bytes]
    client: BlockingKernelClient
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
        self._finalizer = weakref.finalize(self, _stop_all, self._kernels)

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
        """Run one request (a cell, a restart, or a rebuild) and return what happened."""
        with self._lock:
            kernel = self._kernels.get(request.notebook)
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
            try:
                if request.restart or kernel is None or kernel.proc.poll() is not None:
                    kernel = self._restart(request.notebook, request.kernel_name, kernel)
            except KernelStartError as exc:
                return Outcome("unavailable", message=str(exc))
            if request.cells:
                steps: list[Outcome] = []
                for _cell_id, source, _sha in request.cells:
                    steps.append(self._execute(kernel, source, request.timeout_s))
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
            return self._execute(kernel, request.source, request.timeout_s)

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

    def _execute(self, kernel: _Kernel, source: str, timeout_s: float) -> Outcome:
        client = kernel.client
        started = time.monotonic()
        kernel.busy = True
        try:
            msg_id = client.execute(source, store_history=True, allow_stdin=False)
            collector = OutputCollector()
            status = self._collect(kernel, msg_id, collector, started + timeout_s)
            if status == "timeout":
                self._interrupt(kernel)
                if self._collect(kernel, msg_id, collector,
                                 time.monotonic() + INTERRUPT_GRACE_S) == "timeout":  # fmt: skip
                    kernel.proc.kill()  # an interrupt it ignores: the kernel cannot go on
            elif status == "ok" and collector.error:
                status = "error"
        finally:
            kernel.busy = False
        if collector.execution_count:
            kernel.execution_count = collector.execution_count
        kernel.history.append(source)
        duration = int((time.monotonic() - started) * 1000)
        return Outcome(status, collector.execution_count, duration,  # type: ignore[arg-type]
                       collector.outputs(), kernel.identity)  # fmt: skip

    def _collect(self, kernel: _Kernel, msg_id: str, collector: OutputCollector,
                 deadline: float) -> str:  # fmt: skip
        """Read iopub until the request is idle: ``ok``, ``timeout`` or ``kernel_died``."""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return "timeout"
            try:
                msg = kernel.client.get_iopub_msg(timeout=min(left, 0.2))
            except queue.Empty:
                if kernel.proc.poll() is not None:
                    return "kernel_died"
                continue
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "status" and content.get("execution_state") == "idle":
                return "ok"
            collector.add(kind, content)

    def _interrupt(self, kernel: _Kernel) -> None:
        """Ask the kernel to interrupt itself (its control channel: the sandbox's PID namespace
        keeps the kernel out of reach of a signal from here)."""
        client = kernel.client
        msg = client.session.msg("interrupt_request", {})
        client.control_channel.send(msg)

    # -- starting and stopping -------------------------------------------------------------------
    def _restart(self, notebook: str, name: str, old: _Kernel | None) -> _Kernel:
        if old is not None:
            _stop(old)
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
        proc, group = kernel_process.start(argv, env=env, root=self.workspace.root, cwd=cwd,
                                           sandboxed=self.sandboxed, folder=folder,
                                           read_only=shell.python_homes(),
                                           masks=masks)  # fmt: skip
        client = BlockingKernelClient(connection_file=connection_file)
        client.load_connection_file()
        client.start_channels()
        try:
            reply = client.kernel_info(reply=True, timeout=START_TIMEOUT_S)  # type: ignore[call-arg]
        except Exception:
            client.stop_channels()
            proc.kill()
            kernel_process.stop_group(group)
            kernel_process.remove_private_folder(folder)
            raise KernelStartError(f"the kernel {name!r} did not start; nothing ran.") from None
        identity = reply["header"]["session"]
        if not _iopub_ready(client, time.monotonic() + START_TIMEOUT_S):
            client.stop_channels()
            proc.kill()
            kernel_process.stop_group(group)
            kernel_process.remove_private_folder(folder)
            raise KernelStartError(f"the kernel {name!r} did not answer; nothing ran.")
        return _Kernel(name, proc, client, folder, identity, group=group, covered=covered)

    def cells_written(self, notebook: str, before: bytes | None, after: bytes | None) -> None:
        return None  # its kernels read nothing from the file: each run brings its source

    def close(self) -> None:
        """Stop every kernel of this session."""
        with self._lock:
            _stop_all(self._kernels)


def _stop_all(kernels: dict[str, _Kernel]) -> None:
    found = list(kernels.values())
    kernels.clear()
    for kernel in found:
        try:
            _stop(kernel)
        except Exception:  # closing must go on for the others
            log.exception("stopping a kernel failed")


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


def _iopub_ready(client: BlockingKernelClient, deadline: float) -> bool:
    """Wait until the iopub channel receives (a subscription joins late: messages sent before
    would be lost, as nbclient also guards against), then drain what is queued."""
    while time.monotonic() < deadline:
        client.kernel_info()
        try:
            client.get_iopub_msg(timeout=0.25)
        except queue.Empty:
            continue
        while True:  # the rest of the start-up chatter, so a run reads only its own messages
            try:
                client.get_iopub_msg(timeout=0.1)
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
