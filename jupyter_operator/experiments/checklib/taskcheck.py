"""What a task's check (``check.py``) needs to judge the model's code without trusting it.

The check runner puts this folder on a check's ``PYTHONPATH``, so a check writes
``from taskcheck import fail, run_python, same``. Standard library only: a check runs under
whichever ``python3`` the sandbox has.

The principle: a check never imports or executes the model's code in its own process. Code
the model wrote can end its process with status 0 (``os._exit(0)``, ``sys.exit(0)`` at
import), replace ``print``, patch a test framework, or return objects whose ``__eq__`` is always
true; none of that may decide the verdict. So :func:`run_python` runs the code in a child
process (``python3 -I``: the workspace's ``sitecustomize.py``, ``PYTHON*`` variables and the
user's site folder are ignored) and takes back only plain data: the child's driver sends its
result, after the model's code has returned, as one JSON line tagged with a random nonce on a
pipe of its own (the model's code writes to stdout, which nobody reads), and the check compares
the parsed values itself. An exit before the driver's reply, an exception, an endless loop, a
value that is not plain data or a forged reply is a ``FAIL:`` line that says which it was. The
child gets no capability (even as root, in a sandbox's user namespace) and the check is
undumpable, so the model's code cannot reach the check's process or its output through ``/proc``.

Checks should pass inputs the model cannot know in advance (random per run, given as ``data``)
where they can: a forged reply must then compute the right answers, which is doing the task.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import secrets
import selectors
import signal
import subprocess
import sys
import time
import traceback
from typing import Any, NoReturn

#: How much of the child's stderr a failure message quotes, and how big a reply may be.
STDERR_CHARS = 300
MAX_REPLY_BYTES = 1 << 20
#: How long a result may take by default (the check as a whole has its own, longer, limit).
TIMEOUT_S = 20.0

# The child's code before the check's: it takes what it needs before the model's code runs
# (the nonce, the reply pipe, the functions that build the reply) and offers the check's code
# load(), run_script() and run_cells() to reach the model's code.
_PRELUDE = r'''
import contextlib as _contextlib
import importlib.util as _importlib_util
import io as _io
import json as _json
import os as _os
import runpy as _runpy
import sys as _sys
import traceback as _traceback

_write, _dumps, _exit, _type = _os.write, _json.dumps, _os._exit, type
_REPLY_FD = int(_sys.argv[1])
_request = _json.loads(_sys.stdin.readline())
_NONCE, data = _request["nonce"], _request["data"]
del _request
_sys.argv = [""]
_sys.stdin = _io.StringIO()
_sys.path.insert(0, _os.getcwd())  # the workspace's modules import each other


_PLAIN, _LISTS, _DICT = (type(None), bool, int, float, str), (list, tuple), dict


def _not_plain(value, depth=0):
    """The type name of the first value in ``value`` that is not plain data, else None: only
    exact types count (an int subclass may compare equal to anything)."""
    kind = _type(value)
    if kind in _PLAIN:
        return None
    if depth > 50 or kind not in (*_LISTS, _DICT):
        return kind.__name__
    items = [*value.keys(), *value.values()] if kind is _DICT else value
    for item in items:
        found = _not_plain(item, depth + 1)
        if found is not None:
            return found
    return None


def _reply(message):
    found = _not_plain(message)
    line = _dumps({"unserialisable": found} if found else message, allow_nan=False)
    _write(_REPLY_FD, (_NONCE + " " + line + "\n").encode())


def _describe(exc):
    where = _traceback.extract_tb(exc.__traceback__)
    place = f" ({_os.path.basename(where[-1].filename)} line {where[-1].lineno})" if where else ""
    if isinstance(exc, SystemExit):
        return f"SystemExit({exc.code!r}){place}: the code exits instead of returning"
    return f"{_type(exc).__name__}: {exc}{place}"


def load(path, name=None):
    """The module in the workspace file ``path``, imported (its top level runs here)."""
    name = name or _os.path.splitext(_os.path.basename(path))[0]
    spec = _importlib_util.spec_from_file_location(name, path)
    module = _importlib_util.module_from_spec(spec)
    _sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def run_script(path, argv=()):
    """What ``python3 path *argv`` prints on stdout, run here as ``__main__``."""
    out = _io.StringIO()
    _sys.argv = [path, *argv]
    try:
        with _contextlib.redirect_stdout(out):
            _runpy.run_path(path, run_name="__main__")
    except SystemExit as exc:
        if exc.code not in (0, None):
            raise RuntimeError(f"{path} exited with status {exc.code!r}") from None
    return out.getvalue()


def run_cells(sources):
    """Run notebook code cells in order in one namespace: (the namespace, what they printed)."""
    namespace, out = {"__name__": "__main__"}, _io.StringIO()
    with _contextlib.redirect_stdout(out):
        for number, source in enumerate(sources, 1):
            exec(compile(source, f"<code cell {number}>", "exec"), namespace)
    return namespace, out.getvalue()

'''
# After the check's code: call its main(data) and reply. _exit: no atexit hook of the model's
# runs after the reply, and threads it left cannot keep the child alive.
_EPILOGUE = r'''
try:
    _value = main(data)
except BaseException as _exc:  # SystemExit too: the code was to return
    _reply({"raised": _describe(_exc)})
else:
    _reply({"value": _value})
_exit(0)
'''


def fail(reason: str) -> NoReturn:
    """Print one ``FAIL:`` line (the reason, on one line) and end the check with status 1."""
    text = " ".join(line.strip() for line in str(reason).splitlines() if line.strip())
    print(f"FAIL: {text[:800]}", flush=True)
    sys.exit(1)


def _stopped(kind: type[BaseException], exc: BaseException, trace: Any) -> None:
    """``sys.excepthook``: an error the check did not expect (a file of the workspace that is
    not UTF-8, a folder where a file should be) is a FAIL line that names it, not a traceback."""
    frames = traceback.extract_tb(trace)
    own = [frame for frame in frames if frame.filename == sys.argv[0]] or frames
    place = f" ({os.path.basename(own[-1].filename)} line {own[-1].lineno})" if own else ""
    print(f"FAIL: the check stopped on {kind.__name__}: {exc}{place}"[:800], flush=True)


sys.excepthook = _stopped


def same(got: Any, expected: Any) -> bool:
    """True when two plain values are equal with the same types (``1``, ``1.0`` and ``True``
    differ)."""
    return json.dumps(got, sort_keys=True) == json.dumps(expected, sort_keys=True)


@functools.lru_cache(maxsize=1)
def _libc() -> Any:
    """The C library (loaded in the check, before a fork), or None where there is none."""
    try:
        import ctypes

        return ctypes.CDLL(None)
    except Exception:
        return None


def _prctl(*args: int) -> None:
    """Linux's prctl(2), best effort: elsewhere (or refused) nothing happens."""
    with contextlib.suppress(Exception):
        _libc().prctl(*args, *[0] * (5 - len(args)))


def _no_ptrace() -> None:
    """Make this process undumpable: a process of the same user without CAP_SYS_PTRACE (the
    model's code) can neither attach to it nor reach its memory or descriptors in ``/proc``."""
    _prctl(4, 0)  # PR_SET_DUMPABLE 0


def _drop_capabilities() -> None:
    """In the child before it runs Python: move it into a user namespace of its own, then empty
    its capability bounding set, so that even as root (the sandbox's user namespace, a
    container) it gets no capability after exec, and cannot pass :func:`_no_ptrace` by
    CAP_SYS_PTRACE.

    The namespace keeps the child away from every process outside it: a process of the same
    user that is not undumpable (the sandbox's own init, the shell that ran the check) could
    otherwise have its memory rewritten through ``/proc/PID/mem`` and end with status 0, which
    passes the check whatever it said. Where no namespace can be made, the child still runs
    (a host without user namespaces has no such init either)."""
    _unshare_user()
    for capability in range(64):
        _prctl(24, capability)  # PR_CAPBSET_DROP


def _unshare_user() -> None:
    """unshare(CLONE_NEWUSER), best effort (see :func:`_drop_capabilities`)."""
    with contextlib.suppress(Exception):
        _libc().unshare(0x10000000)  # CLONE_NEWUSER


def run_python(code: str, data: Any = None, *, what: str, timeout_s: float = TIMEOUT_S) -> Any:
    """Run ``code`` in a child Python in the working folder (the workspace) and return the
    plain value its ``main(data)`` returned; on anything else, :func:`fail` with ``what``
    (what was run, e.g. ``"textstats.word_count"``) and the reason.

    ``code`` defines ``main(data)`` and may call ``load(path)``, ``run_script(path, argv)`` and
    ``run_cells(sources)``. ``data`` (plain data) reaches it through stdin, never argv or the
    environment.
    """
    _no_ptrace()
    nonce = secrets.token_hex(16)
    reply_read, reply_write = os.pipe()
    env = {k: v for k, v in os.environ.items() if k not in ("TASK_DIR", "PYTHONPATH")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    try:
        child = subprocess.Popen(
            [sys.executable, "-I", "-c", _PRELUDE + code + "\n" + _EPILOGUE, str(reply_write)],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            pass_fds=(reply_write,), env=env, start_new_session=True,
            preexec_fn=_drop_capabilities,
        )  # fmt: skip
    finally:
        os.close(reply_write)
    assert child.stdin is not None and child.stderr is not None
    with contextlib.suppress(OSError):  # a child that died at once: judged below
        child.stdin.write(json.dumps({"nonce": nonce, "data": data}).encode() + b"\n")
        child.stdin.close()
    reply, stderr, timed_out = _collect(child, reply_read, time.monotonic() + timeout_s)
    try:
        code_ = child.wait(timeout=1.0)
    except subprocess.TimeoutExpired:
        code_ = None
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(child.pid, signal.SIGKILL)  # whatever the model's code left running
    if code_ is None:
        code_ = child.wait()
    tail = stderr.decode("utf-8", "replace").strip()[-STDERR_CHARS:]
    said = f" (its stderr ends: {tail})" if tail else ""
    lines = [line for line in reply.decode("utf-8", "replace").splitlines()
             if line.startswith(nonce + " ")]  # fmt: skip
    if len(lines) > 1:
        fail(f"{what}: more than one result reached the check (the code forged one)")
    if not lines:
        if timed_out:
            fail(f"{what} did not finish within {timeout_s:g} s (an endless loop?)")
        fail(f"{what} did not return: its process ended with status {code_} before the check "
             f"got a result (os._exit(), a kill or a crash){said}")  # fmt: skip
    try:
        message = json.loads(lines[0][len(nonce) + 1 :])
    except ValueError:
        fail(f"{what}: the result that reached the check is not JSON (the code forged it)")
    if not isinstance(message, dict) or len(message) != 1:
        fail(f"{what}: the result that reached the check has the wrong form")
    if "raised" in message:
        fail(f"{what} raised {message['raised']}")
    if "unserialisable" in message:
        fail(f"{what} returned an object of type {message['unserialisable']}, not a plain value")
    return message["value"]


def _collect(child: subprocess.Popen[bytes], reply_fd: int,
             deadline: float) -> tuple[bytes, bytes, bool]:  # fmt: skip
    """Read the reply pipe (up to :data:`MAX_REPLY_BYTES`) and the tail of stderr until both
    close, or the child has ended and nothing more is waiting, or ``deadline``; True as the
    third value when the deadline came first."""
    assert child.stderr is not None
    reply, stderr = bytearray(), bytearray()
    selector = selectors.DefaultSelector()
    selector.register(reply_fd, selectors.EVENT_READ, "reply")
    selector.register(child.stderr, selectors.EVENT_READ, "stderr")
    timed_out = False
    try:
        while selector.get_map():
            ended = child.poll() is not None
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            # Once the child ended, only what is already in the pipes counts: a process it left
            # behind holding them open does not keep the check waiting.
            ready = selector.select(timeout=0 if ended else min(left, 0.5))
            if ended and not ready:
                break
            for key, _ in ready:
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    selector.unregister(key.fileobj)
                elif key.data == "reply":
                    reply += chunk
                    if len(reply) > MAX_REPLY_BYTES:
                        return bytes(reply[:MAX_REPLY_BYTES]), bytes(stderr), False
                else:
                    stderr = (stderr + chunk)[-4 * STDERR_CHARS :]
    finally:
        selector.close()
        os.close(reply_fd)
        child.stderr.close()
    return bytes(reply), bytes(stderr), timed_out
