"""A headless kernel runs in the sandbox: the workspace only, no network, no API key."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from support.cell_runs import cmd, details, insert_cell
from support.sandboxing import needs_sandbox

from jupyter_operator.engine import Operator

pytestmark = needs_sandbox


def _run_source(op: Operator, ws: Path, source: str) -> str:
    cell_id = insert_cell(op, ws, source)
    run = op.run(cmd("r1", "nb.runCell", cell_id=cell_id))
    assert "NOT sandboxed" not in run.items[0].execution.kernel.reach
    assert run.items[0].execution.kernel.sandboxed
    run.approve_all()
    return details(run, "r1")


def test_it_cannot_write_outside_the_workspace(op: Operator, ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    source = (
        f"for target in [{str(outside)!r}, '/etc/jo-test', '../escape.txt']:\n"
        "    try:\n"
        "        open(target, 'w').write('x')\n"
        "        print('wrote', target)\n"
        "    except OSError as exc:\n"
        "        print('refused', target, type(exc).__name__)\n"
        "open('inside.txt', 'w').write('ok')\n"
    )
    text = _run_source(op, ws, source)
    assert not outside.exists() and not Path("/etc/jo-test").exists()
    assert "refused /etc/jo-test" in text
    assert not (ws.parent / "escape.txt").exists()
    assert (ws / "inside.txt").read_text() == "ok"


def test_it_cannot_read_the_key(op: Operator, ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value-for-the-test")
    monkeypatch.setenv("JUPYTER_TOKEN", "token-for-the-test")
    text = _run_source(
        op,
        ws,
        "import os\nprint(sorted(k for k in os.environ if 'KEY' in k or "
        "'TOKEN' in k))\nprint(os.environ.get('OPENAI_API_KEY'))",
    )
    assert "sk-secret-value" not in text and "token-for-the-test" not in text
    assert "[stdout]\n[]\nNone" in text


def test_it_cannot_reach_the_network(op: Operator, ws: Path) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    try:
        source = (
            "import socket\n"
            "try:\n"
            f"    socket.create_connection(('127.0.0.1', {port}), timeout=3)\n"
            "    print('connected')\n"
            "except OSError as exc:\n"
            "    print('no network', type(exc).__name__)\n"
        )
        text = _run_source(op, ws, source)
    finally:
        server.close()
    assert "no network" in text and "connected" not in text.replace("no network", "")


#: A cell that starts up to 300 ``sleep`` processes and reports how many it got, then ends
#: them all (the kernel's own threads count towards the limit as well).
MANY_SLEEPS = """\
import subprocess
started, refused = [], None
try:
    for _ in range(300):
        started.append(subprocess.Popen(['sleep', '60']))
except OSError as exc:
    refused = type(exc).__name__
finally:
    for proc in started:
        proc.kill()
        proc.wait()
print('started', len(started), 'refused', refused)
"""


def test_a_cell_cannot_start_more_processes_than_a_shell_command(op: Operator, ws: Path) -> None:
    """A headless kernel has the process limit of a shell command (256 at once)."""
    from jupyter_operator.shell import Limits
    from jupyter_operator.shell.cgroup import make_group

    probe = make_group(8)
    if probe is not None:
        probe.remove()
    elif os.geteuid() == 0:  # ulimit -u does not hold root back
        pytest.skip("running as root without a pids cgroup: no process limit can be set here")
    text = _run_source(op, ws, MANY_SLEEPS)
    counts = text.split("[stdout]\n", 1)[1].split()
    assert counts[0] == "started" and counts[2] == "refused", text
    assert int(counts[1]) < Limits.max_processes and counts[3] == "BlockingIOError", text


def _home_operator(ws: Path, tmp_path: Path) -> Operator:
    return Operator(ws, extensions=("nb",), journal_dir=tmp_path / "journal")


def test_a_cell_cannot_plant_a_pth_in_the_hosts_venv(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host's Python runs from ``ws/.venv``: a cell cannot add a ``.pth`` to it."""
    import sys

    site = ws / ".venv" / f"lib/python{sys.version_info[0]}.{sys.version_info[1]}/site-packages"
    site.mkdir(parents=True)
    monkeypatch.setattr(sys, "prefix", str(ws / ".venv"))
    rel = site.relative_to(ws).as_posix()
    with _home_operator(ws, tmp_path) as op:
        text = _run_source(op, ws, f"open('{rel}/x.pth', 'w').write('import os')")
    assert "Read-only file system" in text, text
    assert not (site / "x.pth").exists()


def test_a_cell_in_a_home_folder_workspace_cannot_read_dot_jupyter(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The home folder as the workspace: ``~/.jupyter`` (the server's config, a token in it)
    is hidden from a cell, as ``fs.read`` refuses it."""
    (ws / ".jupyter").mkdir()
    (ws / ".jupyter" / "jupyter_server_config.json").write_text('{"token": "secret-token"}')
    monkeypatch.setenv("HOME", str(ws))
    with _home_operator(ws, tmp_path) as op:
        text = _run_source(op, ws, (
            "import os\n"
            "print(sorted(os.listdir('.jupyter')))\n"
            "print(open('.jupyter/jupyter_server_config.json').read())\n"
        ))  # fmt: skip
    assert "secret-token" not in text
    assert "[stdout]\n[]" in text and "FileNotFoundError" in text, text
