"""Agent test fixtures: a workspace, journal and transcripts in temporary folders, the endpoint."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.fake_openai import FakeOpenAI


@pytest.fixture(autouse=True)
def host_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The undo journal and the transcripts of every test in a folder of its own."""
    directory = tmp_path_factory.mktemp("host")
    monkeypatch.setenv("JUPYTER_OPERATOR_JOURNAL_DIR", str(directory / "journal"))
    monkeypatch.setenv("JUPYTER_OPERATOR_TRANSCRIPT_DIR", str(directory / "runs"))
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "JUPYTER_OPERATOR_MODEL"):
        monkeypatch.delenv(name, raising=False)
    return directory


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("alpha\nbeta\n")
    return root


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server
