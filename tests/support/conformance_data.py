"""The conformance cases and the spec text the tests read, from ``tests/data/``.

The copies live in the repository so a plain clone runs the whole suite; ``shared_dir`` finds
the project's shared material (beside the repository, or ``JUPYTER_OPERATOR_SHARED``) for the
one test that checks the copies are still current.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[1] / "data"
CASES_FILE = DATA / "conformance" / "cases.json"
SPEC_FILE = DATA / "spec" / "operator_interface_spec_v3.txt"

# Where each copy came from, relative to the shared folder.
SOURCES = {
    CASES_FILE: Path("conformance") / "cases.json",
    SPEC_FILE: Path("seeds") / "000_1ee4255dd13496d0.txt",
}


@lru_cache(maxsize=1)
def cases() -> list[dict[str, Any]]:
    """Every conformance case, in file order."""
    return json.loads(CASES_FILE.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def spec_error_codes() -> set[str]:
    """The ``ERR_*`` codes the spec lists (its ``- ERR_X`` lines)."""
    lines = SPEC_FILE.read_text(encoding="utf-8").splitlines()
    return {line.strip()[2:] for line in lines if line.strip().startswith("- ERR_")}


def shared_dir() -> tuple[Path | None, bool]:
    """The shared material and whether it was asked for explicitly (by the environment)."""
    named = os.environ.get("JUPYTER_OPERATOR_SHARED")
    if named:
        return Path(named), True
    beside = Path(__file__).resolve().parents[3] / "shared"
    return (beside if beside.is_dir() else None), False
