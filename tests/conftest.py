"""Settings every test run shares.

A run keeps its undo journals, saved sessions and agent transcripts in a folder of its own,
removed at the end. Without this, a server a test starts with no journal configured (the
browser tests' JupyterLab, for one) would use the person's real journal folder: a test would
leave entries there, and read back the ones an earlier run left for a workspace at the same
temporary path (a History view with two rows where one is expected). Tests that need another
folder still set ``JUPYTER_OPERATOR_JOURNAL_DIR`` themselves.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from jupyter_operator.agent.transcript import ENV_DIRECTORY as TRANSCRIPT_DIRECTORY
from jupyter_operator.workspace.journal_paths import ENV_DIRECTORY

_RUN_DATA = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "needs_sandbox: runs in the bubblewrap sandbox (skips without it; fails in CI)"
    )
    folder = tempfile.mkdtemp(prefix="jupyter-operator-tests-")
    config.stash[_RUN_DATA] = folder
    # Servers and kernels the tests start inherit it; transcripts default to <journal>/runs.
    os.environ[ENV_DIRECTORY] = os.path.join(folder, "journal")
    os.environ.pop(TRANSCRIPT_DIRECTORY, None)


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = config.stash.get(_RUN_DATA, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("needs_sandbox") is not None:
        from support.sandboxing import require_sandbox

        require_sandbox()
