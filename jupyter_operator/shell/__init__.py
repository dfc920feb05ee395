"""The shell runner: one command at a time, for any dialect that runs commands.

Public API (small on purpose):

- ``run(command, *, root, cwd, env={}, allow_env=(), limits=Limits(), use_sandbox=True,
  network=False, read_only=(), on_output=None) -> Outcome``: run an approved command string
  under ``/bin/sh -c`` with ``cwd`` (a directory already resolved inside ``root`` through the
  workspace jail). Never decides whether a command may run: the engine does that first.
- ``Limits(timeout_s, model_chars, keep_bytes, max_processes)``; ``Outcome(exit_code, timed_out,
  duration_ms, stdout, stderr, stdout_full, stderr_full, stdout_bytes, stderr_bytes, sandboxed)``.
- ``sandbox_available()``: code runs sandboxed here (bubblewrap is installed and the sandbox
  starts); ``sandbox_unavailable_reason()`` says why not.
- ``child_env(extra, allow=...)``, ``is_secret(name)``: the environment rules.

This package may import ``protocol`` only; it never reads or writes workspace files itself.
"""

from __future__ import annotations

from .command_runner import TIMEOUT_EXIT, Limits, Outcome, cap_for_model, run
from .env import NON_INTERACTIVE, PASSED_ON, SECRET_PATTERNS, child_env, is_secret
from .sandbox import available as sandbox_available
from .sandbox import python_homes
from .sandbox import unavailable_reason as sandbox_unavailable_reason

__all__ = [
    "NON_INTERACTIVE",
    "PASSED_ON",
    "SECRET_PATTERNS",
    "TIMEOUT_EXIT",
    "Limits",
    "Outcome",
    "cap_for_model",
    "child_env",
    "is_secret",
    "python_homes",
    "run",
    "sandbox_available",
    "sandbox_unavailable_reason",
]
