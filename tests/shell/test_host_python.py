"""The host's Python environment inside the workspace is never changed from there: a ``.pth``
planted in its site-packages would run, unsandboxed, at the host's next Python start. File
actions refuse it (``ERR_PROTECTED_PATH``); the sandbox binds it read-only."""

from __future__ import annotations

import json
import site
import sys
from pathlib import Path

import pytest
from support.replies import b64, block
from support.sandboxing import needs_sandbox

from jupyter_operator.engine import Operator, run_json
from jupyter_operator.protocol import parse_results

SITE = f"lib/python{sys.version_info[0]}.{sys.version_info[1]}/site-packages"


def _venv(folder: Path) -> Path:
    (folder / SITE).mkdir(parents=True)
    (folder / "bin").mkdir()
    (folder / "pyvenv.cfg").write_text("home = /usr/bin\n")
    return folder


@pytest.fixture
def host_venv(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The host's Python runs from ``root/.venv`` (a virtual environment inside the workspace)."""
    venv = _venv(root / ".venv")
    monkeypatch.setattr(sys, "prefix", str(venv))
    return venv


def _operator(root: Path, tmp_path: Path) -> Operator:
    return Operator(root, journal_dir=tmp_path / "journal")


def _shell(op: Operator, command: str) -> dict:
    run = run_json(op, json.dumps({"type": "shell", "command": command}))
    run.approve(run.items[0].id)  # the person approves the command itself
    return run.events[-1]


def _write(op: Operator, path: str) -> tuple[str | None, str]:
    """Propose writing ``path``: the refusal's code and summary (None: a preview waits)."""
    _write.count = getattr(_write, "count", 0) + 1  # type: ignore[attr-defined]
    id = f"w{_write.count}"  # type: ignore[attr-defined]
    run = op.run(block(id, "fs.write", path=path, content_b64=b64("import os\n")))
    (item,) = run.items
    if item.status == "pending":
        return None, item.summary
    (result,) = parse_results(run.results_text)
    return result.code, result.summary


@needs_sandbox
def test_a_sandboxed_command_cannot_plant_a_pth_in_the_hosts_venv(
    host_venv: Path, root: Path, tmp_path: Path
) -> None:
    with _operator(root, tmp_path) as op:
        event = _shell(op, f"echo 'import os' > .venv/{SITE}/x.pth; "
                           "echo 'home = /tmp' > .venv/pyvenv.cfg; echo ok > notes.txt")
    assert "Read-only file system" in event["stderr"], event
    assert not (host_venv / SITE / "x.pth").exists()
    assert (host_venv / "pyvenv.cfg").read_text() == "home = /usr/bin\n"
    assert (root / "notes.txt").read_text() == "ok\n"  # the rest of the workspace stays writable


@needs_sandbox
def test_a_venv_behind_a_link_is_read_only_at_its_real_place(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = _venv(root / "envs" / "py")
    (root / ".venv").symlink_to("envs/py")
    monkeypatch.setattr(sys, "prefix", str(root / ".venv"))
    with _operator(root, tmp_path) as op:
        event = _shell(op, f"echo 'import os' > envs/py/{SITE}/x.pth")
        assert _write(op, f"envs/py/{SITE}/y.pth")[0] == "ERR_PROTECTED_PATH"
    assert "Read-only file system" in event["stderr"], event
    assert not (real / SITE / "x.pth").exists() and not (real / SITE / "y.pth").exists()


def test_a_file_action_cannot_plant_a_pth_in_the_hosts_venv(
    host_venv: Path, root: Path, tmp_path: Path
) -> None:
    with _operator(root, tmp_path) as op:
        code, summary = _write(op, f".venv/{SITE}/x.pth")
        assert code == "ERR_PROTECTED_PATH" and "Python environment the host runs" in summary
        assert _write(op, ".VENV/bin/python3")[0] == "ERR_PROTECTED_PATH"  # any spelling
        run = op.run(block("d1", "fs.delete", path=".venv"))  # nor removed with its folder
        assert parse_results(run.results_text)[0].code == "ERR_PROTECTED_PATH"
        assert _write(op, "notes.txt")[0] is None  # a preview, waiting for approval
        read = op.run(block("r1", "fs.read", path=".venv/pyvenv.cfg"))
        assert parse_results(read.results_text)[0].ok  # reading it is fine
        created = run_json(op, json.dumps({"type": "createFile", "path": f".venv/{SITE}/z.pth",
                                           "content": "import os\n"}))  # the JSON dialect
        assert created.events[-1]["code"] == "ERR_PROTECTED_PATH", created.events
    assert not (host_venv / SITE / "x.pth").exists()


def test_a_venv_at_the_workspace_root_keeps_its_parts(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``python -m venv .`` in the project: the workspace is the installation; its parts are
    kept, the project's own files are not."""
    _venv(root)
    monkeypatch.setattr(sys, "prefix", str(root))
    with _operator(root, tmp_path) as op:
        assert _write(op, f"{SITE}/x.pth")[0] == "ERR_PROTECTED_PATH"
        assert _write(op, "pyvenv.cfg")[0] == "ERR_PROTECTED_PATH"
        assert _write(op, "sitecustomize.py")[0] == "ERR_PROTECTED_PATH"
        assert _write(op, "src/app.py")[0] is None


@needs_sandbox
def test_the_users_site_packages_in_a_home_workspace_stays_unmade(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The home folder as the workspace: ``~/.local/lib/pythonX/site-packages`` does not exist
    yet, and neither a file action nor a command can make it with a ``.pth`` in it."""
    user_site = root / ".local" / SITE
    (root / ".local").mkdir()
    monkeypatch.setattr(site, "getusersitepackages", lambda: str(user_site))
    with _operator(root, tmp_path) as op:
        assert _write(op, f".local/{SITE}/x.pth")[0] == "ERR_PROTECTED_PATH"
        event = _shell(op, f"mkdir -p .local/{SITE} && echo 'import os' > .local/{SITE}/x.pth")
    assert event["success"] is False and "Read-only file system" in event["stderr"], event
    assert not user_site.exists()


def test_a_workspace_folder_on_sys_path_is_kept(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A project folder on ``sys.path`` (an editable install): a ``sitecustomize.py`` there
    would run at every start of the host's Python."""
    (root / "src").mkdir()
    monkeypatch.setattr(sys, "path", [*sys.path, str(root / "src")])
    with _operator(root, tmp_path) as op:
        assert _write(op, "src/sitecustomize.py")[0] == "ERR_PROTECTED_PATH"
        assert _write(op, "src/usercustomize/__init__.py")[0] == "ERR_PROTECTED_PATH"
        # The project's own code stays the person's to change (with their approval).
        assert _write(op, "src/app.py")[0] is None


@needs_sandbox
def test_a_command_cannot_move_the_venvs_folder_away_and_make_a_new_one(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The folder above a read-only venv cannot be renamed inside the sandbox: else a new,
    writable ``proj/.venv`` with a ``.pth`` would take the host's venv's place."""
    venv = _venv(root / "proj" / ".venv")
    monkeypatch.setattr(sys, "prefix", str(venv))
    with _operator(root, tmp_path) as op:
        event = _shell(op, f"mv proj moved; mkdir -p proj/.venv/{SITE}; "
                           f"echo 'import os' > proj/.venv/{SITE}/x.pth")
    assert "busy" in event["stderr"] and not (root / "moved").exists(), event
    assert not (venv / SITE / "x.pth").exists()


def test_a_kernels_own_environment_in_the_workspace_is_kept(root: Path, tmp_path: Path) -> None:
    """A headless kernel of another environment (its kernelspec's interpreter) keeps that
    environment as it keeps the host's."""
    from jupyter_operator.execution.headless import installation_of
    from jupyter_operator.workspace.host_python import installation

    env = _venv(root / "envs" / "k")
    with _operator(root, tmp_path) as op:
        assert _write(op, f"envs/k/{SITE}/x.pth")[0] is None  # not kept before the kernel starts
        home = installation_of(str(env / "bin" / "python"))
        assert home == env and installation_of("python3") is None
        for part in installation(home):
            op.workspace.keep_host_python(part)
        assert _write(op, f"envs/k/{SITE}/y.pth")[0] == "ERR_PROTECTED_PATH"


def test_a_host_link_turned_towards_the_workspace_is_seen_by_the_next_session(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kept locations are remembered per process, but a session opened after the host's
    venv link (outside the workspace) was turned to a folder inside it keeps that folder."""
    elsewhere = _venv(tmp_path / "elsewhere")
    link = tmp_path / "host-venv"
    link.symlink_to(elsewhere)
    _venv(root / "env")
    monkeypatch.setattr(sys, "prefix", str(link))
    with _operator(root, tmp_path) as op:
        assert _write(op, f"env/{SITE}/x.pth")[0] is None  # not the host's yet
    link.unlink()
    link.symlink_to(root / "env")
    with _operator(root, tmp_path) as op:
        assert _write(op, f"env/{SITE}/x.pth")[0] == "ERR_PROTECTED_PATH"


def test_an_absent_location_behind_a_turned_link_is_seen_by_the_next_session(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An installation that does not exist yet: its real place is its nearest existing
    folder's, so turning the link above it towards the workspace keeps the new place."""
    (tmp_path / "elsewhere").mkdir()
    link = tmp_path / "base"
    link.symlink_to(tmp_path / "elsewhere")
    monkeypatch.setattr(sys, "prefix", str(link / "venv"))
    with _operator(root, tmp_path) as op:
        assert _write(op, "venv/pyvenv.cfg")[0] is None
    link.unlink()
    link.symlink_to(root)
    with _operator(root, tmp_path) as op:
        assert _write(op, "venv/pyvenv.cfg")[0] == "ERR_PROTECTED_PATH"
