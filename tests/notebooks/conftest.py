"""Every notebook test: the kernels import this checkout and keep their journal in a temporary
folder. The tests of a notebook's own policy use the cell-run fixtures (``ws``, ``op``)."""

from __future__ import annotations

import os

import pytest
from notebook_runs import REPO
from support.notebook_fixtures import op, ws  # noqa: F401 (fixtures)


@pytest.fixture(autouse=True)
def kernel_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The kernels import the code under test, installed or not (their cwd is a temp dir), and
    keep the journal out of the folder a notebook runs in (tests check what it leaves there)."""
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    )
    monkeypatch.setenv("JUPYTER_OPERATOR_JOURNAL_DIR", str(tmp_path_factory.mktemp("journal")))
