"""The shell runner: timeouts end every process, output is capped, the environment is clean."""

from __future__ import annotations

import contextlib
import os
import select
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.sandboxing import needs_sandbox

from jupyter_operator.shell import Limits, run, sandbox_available
from jupyter_operator.shell.cgroup import pids_group

MODES = [pytest.param(True, marks=needs_sandbox, id="sandboxed"), pytest.param(False, id="direct")]


#: A background job that would write ``late.txt`` in 5 s, holding the write end of the FIFO
#: ``alive`` until it exits (``ready`` says it holds it). The test reads the FIFO to its end,
#: which comes only once every process holding it has exited, so "late.txt is absent" is
#: checked after the last process that could write it is gone, on a machine of any speed.
LATE_JOB = "exec 3>alive; echo started; : >ready; sleep 5; touch late.txt"
#: The command goes on once the job holds the FIFO.
UNTIL_READY = "until [ -e ready ]; do sleep 0.05; done"


@contextlib.contextmanager
def watched(root: Path) -> Iterator[Callable[[], None]]:
    """The FIFO ``alive`` in ``root``, open for reading; yields a wait for every writer to end
    (failing when one is still alive after 30 s)."""
    os.mkfifo(root / "alive")
    fd = os.open(root / "alive", os.O_RDONLY | os.O_NONBLOCK)  # writers open without waiting

    def wait_for_writers() -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], deadline - time.monotonic())
            if ready and os.read(fd, 4096) == b"":
                return  # end of file: no process holds the write end any more
        pytest.fail("a process of the command is still alive 30 s after it ended")

    try:
        yield wait_for_writers
    finally:
        os.close(fd)


@pytest.mark.parametrize("use_sandbox", MODES)
def test_timeout_kills_the_whole_group(root: Path, use_sandbox: bool) -> None:
    with watched(root) as wait_for_writers:
        outcome = run(f"({LATE_JOB}) & {UNTIL_READY}; sleep 1000", root=root, cwd=root,
                      limits=Limits(timeout_s=2), use_sandbox=use_sandbox)  # fmt: skip
        assert (outcome.exit_code, outcome.timed_out) == (124, True)
        assert outcome.stdout == "started\n" and outcome.sandboxed is use_sandbox
        assert outcome.duration_ms >= 2000
        wait_for_writers()
    assert not (root / "late.txt").exists()


@needs_sandbox
def test_a_process_that_leaves_the_group_dies_with_the_sandbox(root: Path) -> None:
    with watched(root) as wait_for_writers:
        command = f"setsid sh -c '{LATE_JOB}' & {UNTIL_READY}; sleep 1000"
        outcome = run(command, root=root, cwd=root, limits=Limits(timeout_s=2))
        assert outcome.timed_out and outcome.stdout == "started\n"
        wait_for_writers()
    assert not (root / "late.txt").exists()


def test_background_jobs_end_with_the_command(root: Path) -> None:
    with watched(root) as wait_for_writers:
        outcome = run(f"({LATE_JOB}) & {UNTIL_READY}", root=root, cwd=root, use_sandbox=False)
        assert (outcome.exit_code, outcome.stdout, outcome.timed_out) == (0, "started\n", False)
        wait_for_writers()
    assert not (root / "late.txt").exists()


def _process_limit_applies() -> bool:
    import os

    if os.geteuid() != 0:
        return True  # ulimit -u
    with pids_group(8) as group:
        return group is not None


@pytest.mark.skipif(
    not _process_limit_applies(),
    reason="running as root without a pids cgroup: no process limit can be set here",
)
@pytest.mark.parametrize("use_sandbox", MODES)
def test_fork_bomb_is_contained(root: Path, use_sandbox: bool) -> None:
    bomb = "bomb() { bomb | bomb & }; bomb; sleep 1; touch late.txt"
    limits = Limits(timeout_s=3, max_processes=48)
    outcome = run(bomb, root=root, cwd=root, limits=limits, use_sandbox=use_sandbox)
    # The limit was hit (forks failed) and the run ended; then every process was killed.
    assert "fork" in outcome.stderr.lower() or "resource" in outcome.stderr.lower()
    after = run("echo fine", root=root, cwd=root, use_sandbox=use_sandbox)
    assert after.stdout == "fine\n"


@pytest.mark.skipif(
    not _process_limit_applies(), reason="no pids cgroup can be made on this host"
)
def test_the_command_runs_inside_its_pids_group(root: Path) -> None:
    # the shell joins the group by moving its one thread (``tasks``), before it execs: the
    # command and what it forks are counted there
    outcome = run("cat /proc/self/cgroup; (cat /proc/self/cgroup)", root=root, cwd=root,
                  use_sandbox=False)  # fmt: skip
    pids_lines = [line for line in outcome.stdout.splitlines() if ":pids:" in line]
    assert len(pids_lines) == 2 and all("/jupyter-operator-" in line for line in pids_lines)


def test_a_gigabyte_of_output_is_capped(root: Path) -> None:
    limits = Limits(model_chars=10_000, keep_bytes=100_000)
    outcome = run(
        "head -c 1000000000 /dev/zero; echo END",
        root=root,
        cwd=root,
        limits=limits,
        use_sandbox=sandbox_available(),
    )
    assert outcome.exit_code == 0 and outcome.stdout_bytes == 1_000_000_004
    assert len(outcome.stdout) < 10_100 and outcome.stdout.endswith("END\n")
    assert len(outcome.stdout_full) < 100_100 and "bytes not kept" in outcome.stdout_full
    assert outcome.truncated


def test_short_output_is_whole(root: Path) -> None:
    outcome = run("echo out; echo err >&2; exit 3", root=root, cwd=root, use_sandbox=False)
    assert (outcome.exit_code, outcome.stdout, outcome.stderr) == (3, "out\n", "err\n")
    assert not outcome.truncated


def test_output_streams_while_it_runs(root: Path) -> None:
    seen: list[tuple[str, str]] = []
    run(
        "echo a; echo b >&2",
        root=root,
        cwd=root,
        use_sandbox=False,
        on_output=lambda stream, text: seen.append((stream, text)),
    )
    assert ("stdout", "a\n") in seen and ("stderr", "b\n") in seen


@pytest.mark.parametrize("use_sandbox", MODES)
def test_environment_is_clean_and_non_interactive(
    root: Path, use_sandbox: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    secrets = {
        "OPENAI_API_KEY": "sk-1",
        "GITHUB_TOKEN": "gh-2",
        "APP_SECRET": "s-3",
        "JUPYTER_TOKEN": "j-4",
        "HF_TOKEN": "hf-5",
        "db_password": "p-6",
    }
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PLAIN_SETTING", "kept")
    monkeypatch.setenv("PAGER", "less")
    outcome = run(
        "env; read line; echo stdin=$?",
        root=root,
        cwd=root,
        env={"DEBUG": "true"},
        allow_env=("HF_TOKEN",),
        use_sandbox=use_sandbox,
    )
    env = dict(line.split("=", 1) for line in outcome.stdout.splitlines() if "=" in line)
    for name, value in secrets.items():
        if name == "HF_TOKEN":
            assert env[name] == value  # allowed by exact name
        else:
            assert name not in env and value not in outcome.stdout
    # Only the allowlist of host variables passes (a credential can have any name).
    assert "PLAIN_SETTING" not in env and env["DEBUG"] == "true"
    assert (env["CI"], env["TERM"], env["PAGER"], env["GIT_PAGER"]) == ("1", "dumb", "cat", "cat")
    assert env["EDITOR"] == "false" and env["stdin"] == "1"  # stdin is closed: read fails


def _listening() -> socket.socket:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    return server


CONNECT = (
    "python3 -c 'import socket, sys; "
    'socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3); '
    'print("connected")\' {port}'
)


@needs_sandbox
def test_network_is_refused_in_the_sandbox(root: Path) -> None:
    with _listening() as server:
        port = server.getsockname()[1]
        direct = run(CONNECT.format(port=port), root=root, cwd=root, use_sandbox=False)
        assert direct.stdout == "connected\n"  # the check can fail: the host does connect
        boxed = run(CONNECT.format(port=port), root=root, cwd=root)
        assert boxed.sandboxed and boxed.exit_code != 0 and "connected" not in boxed.stdout
        allowed = run(CONNECT.format(port=port), root=root, cwd=root, network=True)
        assert allowed.sandboxed and allowed.stdout == "connected\n"


@needs_sandbox
def test_the_workspace_is_the_only_writable_path(root: Path) -> None:
    outside = root.parent / "outside"
    # Inside the sandbox the workspace is mounted at /workspace; its host path is not there.
    command = (
        f"echo x > {outside}/new.txt; echo x > /workspace/inside.txt; echo y > {root}/host.txt;"
        f" cat {outside}/secret.txt"
    )
    outcome = run(command, root=root, cwd=root)
    assert (root / "inside.txt").read_text() == "x\n"
    assert not (outside / "new.txt").exists() and not (root / "host.txt").exists()
    assert "TOP SECRET" not in outcome.stdout  # folders outside are not even visible
    assert outcome.exit_code != 0
