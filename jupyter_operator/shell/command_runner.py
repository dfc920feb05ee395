"""Run one shell command: time-limited, output-capped, non-interactive, sandboxed when possible.

The command string runs under ``/bin/sh -c`` in its own session (process group). On timeout
the whole group is killed (inside the sandbox, killing ``bwrap`` ends its PID namespace) and the
exit code is 124. Output is read as it comes: each stream keeps a bounded head and tail, so a
command printing a gigabyte costs a few megabytes of memory.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from . import sandbox
from .cgroup import pids_group
from .env import child_env

#: The shell wrapper: a per-user process limit (a fork bomb stops there) and no core dumps.
#: ``$0`` is the limit, ``$1`` the command exactly as approved.
WRAPPER = 'ulimit -u "$0" 2>/dev/null; ulimit -c 0 2>/dev/null; eval "$1"'
#: Joins the pids cgroup (``$0`` its ``tasks``, ``PidsGroup.join``) before anything else starts.
JOIN = 'echo 0 > "$0" && exec "$@"'

TIMEOUT_EXIT = 124
PIPE_SIZE = 1 << 20
KILL_GRACE_S = 2.0  # how long pipes are drained after a kill before they are abandoned

OutputCallback = Callable[[str, str], None]  # (stream "stdout" | "stderr", text)


@dataclass(frozen=True)
class Limits:
    """Bounds of one command.

    ``model_chars`` is how much of each stream the model gets (head and tail);
    ``keep_bytes`` how much of each stream is kept for the person's display (head and tail).
    """

    timeout_s: float = 30.0
    model_chars: int = 16_000
    keep_bytes: int = 2_000_000
    max_processes: int = 256


@dataclass(frozen=True)
class Outcome:
    """What a command did. ``stdout``/``stderr`` are the model's capped text; ``*_full`` the
    person's (bounded too, with a notice where bytes were dropped)."""

    exit_code: int
    timed_out: bool
    duration_ms: int
    stdout: str
    stderr: str
    stdout_full: str
    stderr_full: str
    stdout_bytes: int
    stderr_bytes: int
    sandboxed: bool

    @property
    def truncated(self) -> bool:
        """True when the model's text leaves part of the output out."""
        return self.stdout != self.stdout_full or self.stderr != self.stderr_full


class _Capture:
    """A stream's first and last bytes and its total size."""

    def __init__(self, keep: int) -> None:
        self.head_cap, self.tail_cap = keep // 2, keep - keep // 2
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, data: bytes) -> bytes:
        """Record ``data``; return the part that went to the head (for live display)."""
        self.total += len(data)
        room = self.head_cap - len(self.head)
        shown = data[:room] if room > 0 else b""
        self.head += shown
        rest = data[len(shown) :]
        if rest:
            self.tail += rest[-self.tail_cap :]
            if len(self.tail) > 2 * self.tail_cap:  # trim rarely: amortised, not per chunk
                del self.tail[: len(self.tail) - self.tail_cap]
        return shown

    def text(self) -> str:
        if len(self.tail) > self.tail_cap:
            del self.tail[: len(self.tail) - self.tail_cap]
        dropped = self.total - len(self.head) - len(self.tail)
        head = self.head.decode("utf-8", "replace")
        if dropped <= 0:
            return head + self.tail.decode("utf-8", "replace")
        notice = f"\n[... {dropped:,} bytes not kept ...]\n"
        return head + notice + self.tail.decode("utf-8", "replace")


def cap_for_model(text: str, limit: int) -> str:
    """``text`` when short enough, else its head and tail around a notice of what was left out."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return (
        text[:half] + f"\n[... {len(text) - 2 * half:,} characters not shown ...]\n" + text[-half:]
    )


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def run(
    command: str,
    *,
    root: Path,
    cwd: Path,
    env: Mapping[str, str] = {},
    allow_env: Iterable[str] = (),
    limits: Limits = Limits(),
    use_sandbox: bool = True,
    network: bool = False,
    read_only: Iterable[Path] = (),
    masks: sandbox.Masks = ((), ()),
    on_output: OutputCallback | None = None,
) -> Outcome:
    """Run ``command`` (exactly as approved) with ``cwd`` (already resolved inside ``root``).

    ``env`` holds the extra variables; ``allow_env`` names secret-looking host variables to pass
    on. With ``use_sandbox`` and bubblewrap available the command runs in the sandbox
    (``Outcome.sandboxed``), with ``masks`` over the workspace (``sandbox.wrap``); otherwise it
    runs directly, still time-limited and capped.
    ``on_output(stream, text)`` receives output as it arrives (the kept head only), and an
    empty text about every 0.25 s while the command is silent (to flush a display).
    """
    argv = ["/bin/sh", "-c", WRAPPER, str(limits.max_processes), command]
    child = child_env(env, allow=allow_env)
    sandboxed = use_sandbox and sandbox.available()
    if sandboxed:
        child["HOME"] = "/tmp"
        argv = sandbox.wrap(argv, root=root, cwd=cwd, network=network, read_only=read_only,
                            masks=masks)
    with pids_group(limits.max_processes) as group:
        if group is not None:
            argv = ["/bin/sh", "-c", JOIN, str(group.join), *argv]
        start = time.monotonic()
        proc = subprocess.Popen(  # the command the person approved
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=child,
            cwd=None if sandboxed else cwd,
            start_new_session=True,
            close_fds=True,
        )
        captures = {"stdout": _Capture(limits.keep_bytes), "stderr": _Capture(limits.keep_bytes)}
        timed_out = _pump(proc, captures, start + limits.timeout_s, on_output)
        try:
            code = proc.wait(timeout=KILL_GRACE_S)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            code = proc.wait()
        _kill_group(proc)  # anything the command left behind in its group
    duration_ms = int((time.monotonic() - start) * 1000)
    if timed_out:
        code = TIMEOUT_EXIT
    elif code < 0:
        code = 128 - code  # killed by a signal, as a shell reports it
    out, err = captures["stdout"].text(), captures["stderr"].text()
    return Outcome(
        code,
        timed_out,
        duration_ms,
        cap_for_model(out, limits.model_chars),
        cap_for_model(err, limits.model_chars),
        out,
        err,
        captures["stdout"].total,
        captures["stderr"].total,
        sandboxed,
    )


def _pump(
    proc: subprocess.Popen[bytes],
    captures: dict[str, _Capture],
    deadline: float,
    on_output: OutputCallback | None,
) -> bool:
    """Read both pipes until they close; kill the group at ``deadline``. True when it timed out."""
    sel = selectors.DefaultSelector()
    assert proc.stdout is not None and proc.stderr is not None
    for pipe in (proc.stdout, proc.stderr):
        with contextlib.suppress(OSError):  # bigger pipes: fewer reads for chatty commands
            fcntl.fcntl(pipe.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_SIZE)
    sel.register(proc.stdout, selectors.EVENT_READ, "stdout")
    sel.register(proc.stderr, selectors.EVENT_READ, "stderr")
    timed_out = False
    exited_at: float | None = None
    try:
        while sel.get_map():
            now = time.monotonic()
            if exited_at is None and proc.poll() is not None:
                # The command is over: end what it left running and drain what is buffered.
                exited_at = now
                _kill_group(proc)
                deadline = min(deadline, now + KILL_GRACE_S) if not timed_out else deadline
            if now >= deadline:
                if timed_out or exited_at is not None:
                    break  # a process outside the group still holds a pipe: stop reading
                timed_out = True
                _kill_group(proc)
                deadline = now + KILL_GRACE_S
            ready = sel.select(timeout=min(0.25, max(0.0, deadline - now)))
            if not ready and on_output is not None:
                on_output("stdout", "")  # nothing new: a chance to show what is buffered
            for key, _ in ready:
                data = os.read(key.fileobj.fileno(), PIPE_SIZE)  # type: ignore[union-attr]
                if not data:
                    sel.unregister(key.fileobj)
                    continue
                shown = captures[key.data].add(data)
                if shown and on_output is not None:
                    on_output(key.data, shown.decode("utf-8", "replace"))
    finally:
        sel.close()
        proc.stdout.close()
        proc.stderr.close()
    return timed_out
