"""Agent test fixtures: a workspace, journal and transcripts in temporary folders (the loopback
endpoint, ``fake``, is the suite's: the root conftest)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.host_folders import keep_host_files_in


@pytest.fixture(autouse=True)
def host_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The undo journal and the transcripts of every test in a folder of its own."""
    directory = tmp_path_factory.mktemp("host")
    keep_host_files_in(directory, monkeypatch)
    return directory


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("alpha\nbeta\n")
    return root
