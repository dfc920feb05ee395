"""A task's check: its shell command, run in the run's copy once the agent has stopped.

The check runs in the shell's sandbox where bubblewrap works (only the run's copy is writable,
no network, the environment allowlist), with ``$TASK_DIR`` the task's other files (its
scripts), read-only and outside the workspace. Exit 0 means the task passed.

A check may ``import taskcheck`` (:data:`CHECKLIB`, on its ``PYTHONPATH``): it runs the model's
code in a child process and gives the check back plain values to judge, so that code which exits
early, patches the test framework or forges output cannot pass a check (``checklib/taskcheck.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..shell import Limits, python_homes, run

#: Output of a check kept in the results (its head and tail).
OUTPUT_CHARS = 2_000
#: The folder on every check's ``PYTHONPATH`` (``taskcheck``, standard library only).
CHECKLIB = Path(__file__).resolve().parent / "checklib"


@dataclass(frozen=True)
class CheckResult:
    """How a check ended: passed (exit 0), its exit code, a short output, sandboxed or not."""

    passed: bool
    exit_code: int
    output: str
    timed_out: bool
    sandboxed: bool


def run_check(command: str, workspace: Path, task_dir: Path, *,
              timeout_s: float = 120.0) -> CheckResult:  # fmt: skip
    """Run ``command`` with ``workspace`` as its working folder, ``$TASK_DIR`` set and
    :data:`CHECKLIB` on ``PYTHONPATH`` (in place of the host's)."""
    outcome = run(
        command, root=workspace, cwd=workspace,
        env={"TASK_DIR": str(task_dir), "PYTHONPATH": str(CHECKLIB)},
        limits=Limits(timeout_s=timeout_s, model_chars=OUTPUT_CHARS),
        read_only={*python_homes(), task_dir, CHECKLIB},
    )  # fmt: skip
    output = "\n".join(part for part in (outcome.stdout.strip(), outcome.stderr.strip()) if part)
    return CheckResult(outcome.exit_code == 0, outcome.exit_code, output, outcome.timed_out,
                       outcome.sandboxed)  # fmt: skip
