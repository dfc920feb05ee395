"""What a test keeps out of the person's own setup: the undo journal and the agent transcripts
in temporary folders, and no model, endpoint or key taken from their environment."""

from __future__ import annotations

from pathlib import Path

import pytest

# The environment that would point an agent at a real model (and pay for it).
MODEL_SETTINGS = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "JUPYTER_OPERATOR_MODEL")


def keep_host_files_in(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The journal in ``folder/journal``, transcripts in ``folder/runs``, no model configured."""
    monkeypatch.setenv("JUPYTER_OPERATOR_JOURNAL_DIR", str(folder / "journal"))
    monkeypatch.setenv("JUPYTER_OPERATOR_TRANSCRIPT_DIR", str(folder / "runs"))
    for name in MODEL_SETTINGS:
        monkeypatch.delenv(name, raising=False)
