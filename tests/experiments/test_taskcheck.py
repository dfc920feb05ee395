"""``taskcheck``, what a task's check uses to judge the model's code, through the check runner
(``experiments.checks.run_check``: the sandbox where there is one, ``taskcheck`` on the path).

Each test is a check script and the model's files: the verdict comes only from plain values the
check's own code returned after the model's code did, whatever that code does to its process.
"""

from __future__ import annotations

import platform
import time
from pathlib import Path

import pytest
from support.sandboxing import needs_sandbox

from jupyter_operator.experiments.checks import CheckResult, run_check

HEADER = "from taskcheck import fail, run_python, same\n"


def check(tmp_path: Path, script: str, files: dict[str, str]) -> CheckResult:
    """Run ``script`` (after :data:`HEADER`) as a task's check over a workspace of ``files``."""
    workspace, task_dir = tmp_path / "ws", tmp_path / "task"
    workspace.mkdir()
    task_dir.mkdir()
    (task_dir / "check.py").write_text(HEADER + script, encoding="utf-8")
    for rel, text in files.items():
        (workspace / rel).write_text(text, encoding="utf-8")
    return run_check('python3 "$TASK_DIR/check.py"', workspace, task_dir, timeout_s=60)


DOUBLE = '''
value = run_python("def main(data):\\n    return load('mod.py').double(data)", 21,
                   what="mod.double", timeout_s=TIMEOUT)
if not same(value, 42):
    fail(f"mod.double(21) returned {value!r}")
print("OK: 42")
'''


def double_check(timeout_s: float = 20) -> str:
    return f"TIMEOUT = {timeout_s}\n" + DOUBLE


def test_a_plain_value_comes_back_and_is_judged_by_the_check(tmp_path: Path) -> None:
    done = check(tmp_path, double_check(), {"mod.py": "def double(x):\n    return 2 * x\n"})
    assert done.passed and done.output == "OK: 42", done.output


@pytest.mark.parametrize(
    ("code", "says"),
    [
        ("import os\nos._exit(0)\n",
         "mod.double did not return: its process ended with status 0 before the check got"),
        ("import sys\nsys.exit(0)\n", "mod.double raised SystemExit(0) (mod.py line 2): the code"
         " exits instead of returning"),
        ("def double(x):\n    raise KeyError(x)\n", "mod.double raised KeyError: 21 (mod.py"),
        ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n", "ended with status -9"),
        ("class Yes(int):\n    __eq__ = lambda self, other: True\n    __hash__ = int.__hash__\n"
         "def double(x):\n    return Yes(42)\n", "returned an object of type Yes, not a plain"),
        ("def double(x):\n    return [1, {2: object()}]\n", "an object of type object"),
        ("def double(x):\n    return 43\nimport builtins\nbuiltins.print = lambda *a, **k: None\n"
         "print('OK: 42')\n", "mod.double(21) returned 43"),
    ],
    ids=["os-exit", "sys-exit", "raises", "killed", "always-equal", "nested-object", "print"],
)  # fmt: skip
def test_the_model_code_cannot_end_the_check_well(code: str, says: str, tmp_path: Path) -> None:
    done = check(tmp_path, double_check(), {"mod.py": code})
    assert not done.passed and done.exit_code == 1, done.output
    assert done.output.startswith("FAIL: ") and "\n" not in done.output, done.output
    assert says in done.output, done.output


def test_an_endless_loop_fails_at_the_time_limit(tmp_path: Path) -> None:
    started = time.monotonic()
    done = check(tmp_path, double_check(timeout_s=1),
                 {"mod.py": "def double(x):\n    while True:\n        pass\n"})  # fmt: skip
    assert not done.passed, done.output
    assert done.output == "FAIL: mod.double did not finish within 1 s (an endless loop?)"
    assert time.monotonic() - started < 15


FORGER = '''
import json, os, sys
frame, stolen = sys._getframe(), set()
while frame is not None:
    stolen.update(v for v in frame.f_globals.values() if isinstance(v, str) and len(v) == 32)
    frame = frame.f_back
for fd in range(3, 64):
    for nonce in stolen:
        try:
            os.write(fd, (nonce + " " + json.dumps({"value": 42}) + "\\n").encode())
        except OSError:
            pass


def double(x):
    return 0
'''


def test_a_reply_forged_with_a_stolen_nonce_is_refused(tmp_path: Path) -> None:
    done = check(tmp_path, double_check(), {"mod.py": FORGER})
    assert not done.passed, done.output
    assert "more than one result reached the check (the code forged one)" in done.output


def test_the_child_learns_nothing_of_the_check_and_cannot_reach_it(tmp_path: Path) -> None:
    """No nonce, TASK_DIR or PYTHONPATH in the child's argv or environment; its stdin is spent;
    no descriptor of the check's own process opens (no capability, an undumpable check)."""
    probe = (
        "import os, sys\n"
        "def seen(data):\n"
        "    reached = []\n"
        "    for fd in range(0, 8):\n"
        "        try:\n"
        "            with open(f'/proc/{os.getppid()}/fd/{fd}', 'w') as out:\n"
        "                out.write('OK: forged\\n')\n"
        "            reached.append(fd)\n"
        "        except OSError:\n"
        "            pass\n"
        "    return {'argv': sys.argv, 'stdin': sys.stdin.read(), 'reached': reached,\n"
        "            'env': sorted(k for k in os.environ if k in ('TASK_DIR', 'PYTHONPATH'))}\n"
    )  # fmt: skip
    script = (
        "got = run_python(\"def main(data):\\n    return load('probe.py').seen(data)\", 'x', "
        "what='probe')\n"
        "expected = {'argv': [''], 'stdin': '', 'reached': [], 'env': []}\n"
        "if got != expected:\n    fail(f'the child saw {got!r}')\n"
        "print('OK: the child saw nothing')\n"
    )  # fmt: skip
    done = check(tmp_path, script, {"probe.py": probe})
    assert done.passed and done.output == "OK: the child saw nothing", done.output


# The model's code rewrites the sandbox's init (pid 1, a process of the same user that is not
# undumpable) to exit with status 0 once the check ends: x86-64 for exit_group(0), written where
# the init's wait returns to.
REWRITES_INIT = """
import contextlib
def double(x):
    with contextlib.suppress(OSError):
        pc = int(open("/proc/1/syscall").read().split()[-1], 16)
        with open("/proc/1/mem", "r+b", buffering=0) as mem:
            mem.seek(pc)
            mem.write(bytes.fromhex("31ffb8e70000000f05"))
    return 2 * x + 1
"""


@needs_sandbox
@pytest.mark.skipif(platform.machine() != "x86_64", reason="the injected code is x86-64")
def test_the_model_code_cannot_rewrite_the_sandbox_init_to_pass(tmp_path: Path) -> None:
    """The child is kept from every process outside it (a user namespace of its own), so it
    cannot make the sandbox end with status 0 after the check said FAIL."""
    done = check(tmp_path, double_check(), {"mod.py": REWRITES_INIT})
    assert not done.passed, done.output
    assert done.output == "FAIL: mod.double(21) returned 43", done.output


def test_a_process_left_running_does_not_hold_the_check(tmp_path: Path) -> None:
    code = ("import os, time\nif os.fork() == 0:\n    time.sleep(60)\n    os._exit(0)\n"
            "def double(x):\n    return 2 * x\n")  # fmt: skip
    started = time.monotonic()
    done = check(tmp_path, double_check(), {"mod.py": code})
    assert done.passed and done.output == "OK: 42", done.output
    assert time.monotonic() - started < 10


def test_an_error_the_check_did_not_expect_is_one_fail_line(tmp_path: Path) -> None:
    workspace_file = {"notes.txt": "placeholder"}
    script = "from pathlib import Path\nPath('notes.txt').write_bytes(b'\\xff')\n" \
             "Path('notes.txt').read_text(encoding='utf-8')\n"  # fmt: skip
    done = check(tmp_path, script, workspace_file)
    assert not done.passed and done.exit_code == 1, done.output
    assert done.output.startswith("FAIL: the check stopped on UnicodeDecodeError: "), done.output
    assert "\n" not in done.output and "check.py line 4" in done.output, done.output
