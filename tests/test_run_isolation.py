"""A test run never uses the person's own journal folder (tests/conftest.py)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from jupyter_core.paths import jupyter_data_dir

from jupyter_operator.agent.transcript import default_directory as transcript_directory
from jupyter_operator.workspace.journal_paths import ENV_DIRECTORY, default_directory


def test_the_default_journal_is_this_runs_own_folder() -> None:
    journal = default_directory()
    assert journal == Path(os.environ[ENV_DIRECTORY])
    assert journal.parent.name.startswith("jupyter-operator-tests-")
    assert journal.parent.parent == Path(tempfile.gettempdir())
    assert not journal.is_relative_to(jupyter_data_dir())
    assert transcript_directory().is_relative_to(journal)
