"""The key that signs results rows lives in Jupyter's data folder: the tests use one of their
own (a temporary data folder), never the person's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _own_data_folder(tmp_path_factory: pytest.TempPathFactory,
                     monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:  # fmt: skip
    folder = tmp_path_factory.getbasetemp() / "jupyter-data"
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(folder))
    yield folder
