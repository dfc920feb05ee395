"""``scripts/lab.sh`` opens copies of the shipped notebooks (``scripts/playground.sh``), so that
trying the demos and pressing Ctrl+S never changes the repository's own notebooks (a saved demo
used to fail the suite's no-stored-outputs check)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHIPPED = sorted((REPO / "notebooks").glob("*.ipynb"))


@pytest.mark.skipif(shutil.which("bash") is None, reason="the scripts are bash scripts")
def test_the_playground_holds_copies_and_keeps_your_work(tmp_path: Path) -> None:
    before = {p.name: p.read_bytes() for p in SHIPPED}
    target = tmp_path / "playground"
    run = subprocess.run(["bash", str(REPO / "scripts" / "playground.sh"), str(target)],
                         capture_output=True, text=True, check=True)  # fmt: skip
    assert run.stdout.strip() == str(target)
    assert sorted(p.name for p in target.glob("*.ipynb")) == sorted(before)
    for name, data in before.items():
        assert (target / name).read_bytes() == data
    # A saved (changed) copy is kept on the next start; the repository's notebook never changes.
    (target / "01-quickstart.ipynb").write_text("{}")
    subprocess.run(["bash", str(REPO / "scripts" / "playground.sh"), str(target)], check=True,
                   capture_output=True)  # fmt: skip
    assert (target / "01-quickstart.ipynb").read_text() == "{}"
    assert {p.name: p.read_bytes() for p in SHIPPED} == before


def test_lab_opens_the_playground_not_the_repository() -> None:
    script = (REPO / "scripts" / "lab.sh").read_text()
    assert "scripts/playground.sh" in script and "notebooks/01-quickstart" not in script
    assert "playground/" in (REPO / ".gitignore").read_text().splitlines()
