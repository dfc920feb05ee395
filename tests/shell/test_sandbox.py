"""The bubblewrap invocation, and running without bubblewrap."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_operator.shell import run, sandbox
from jupyter_operator.shell.sandbox import wrap

needs_sandbox = pytest.mark.skipif(
    not sandbox.available(), reason="bubblewrap is missing or cannot create namespaces here"
)


@needs_sandbox
def test_wrap_isolates_by_default(tmp_path: Path) -> None:
    args = wrap(["true"], root=tmp_path, cwd=tmp_path)
    assert "--unshare-all" in args and "--share-net" not in args
    assert "--die-with-parent" in args and args[-2:] == ["--", "true"]
    bind = args.index("--bind")
    assert args[bind + 1 : bind + 3] == [str(tmp_path), sandbox.MOUNT]
    assert "--share-net" in wrap(["true"], root=tmp_path, cwd=tmp_path, network=True)


@needs_sandbox
def test_commands_never_see_the_host_path_of_the_workspace(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "note.txt").write_text("hi")
    outcome = run("pwd; cat note.txt; touch made", root=tmp_path, cwd=tmp_path / "sub")
    assert outcome.stdout == f"{sandbox.MOUNT}/sub\nhi"
    assert str(tmp_path) not in outcome.stdout + outcome.stderr
    assert (tmp_path / "sub" / "made").exists()  # the workspace is still the one written


def test_without_bubblewrap_commands_still_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox, "bwrap", lambda: None)
    outcome = run("echo plain", root=tmp_path, cwd=tmp_path)
    assert outcome.stdout == "plain\n" and outcome.sandboxed is False
