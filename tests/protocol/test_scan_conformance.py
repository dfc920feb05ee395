"""The shared conformance cases' scan- and validation-level expectations, fed to ``scan`` directly.

Every ``scan_*`` / ``val_*`` case (and the scan side of the others) must give exactly one item
per expected result, in order: a ``Command`` where the case expects ``ok: true`` (or an
execution-time failure), a ``ScanError`` with the expected code where the code is a scan
code, and the expected id on both. End-to-end execution is tested through the command line.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.conformance_data import cases

from jupyter_operator.protocol import Command, ScanError, codes, scan

from .helpers import RUNTIME_CODES

# Kept in tests/data, so this module always has its cases (never an empty parametrisation).
CASES = cases()
SCAN_CASES = [c for c in CASES if c["name"].startswith(("scan_", "val_"))]

# A case expecting a code that only execution can produce must scan to a Command.


def _check(case: dict[str, Any]) -> None:
    items = scan(case["input"]).items
    expect = case["expect"]
    assert len(items) == len(expect), [(type(i).__name__, i.id) for i in items]
    for item, exp in zip(items, expect, strict=True):
        if exp["id"] is not None:
            assert item.id == exp["id"]
        else:
            assert item.id is None
        code = exp.get("error_code")
        if exp["ok"] or code in RUNTIME_CODES:
            # ok: true, or a failure only execution can find (missing file, marker not found)
            assert isinstance(item, Command), item
        elif code is None:
            # A failure whose code the case leaves open (e.g. a bad edit range): either side.
            assert isinstance(item, Command) or item.code in codes.ALL_CODES
        else:
            assert isinstance(item, ScanError), item
            assert item.code == code


def test_scan_cases_are_present() -> None:
    assert len(SCAN_CASES) >= 50


@pytest.mark.parametrize("case", SCAN_CASES, ids=[c["name"] for c in SCAN_CASES])
def test_scan_and_validation_cases(case: dict[str, Any]) -> None:
    _check(case)


OTHER_CASES = [c for c in CASES if c not in SCAN_CASES]


@pytest.mark.parametrize("case", OTHER_CASES, ids=[c["name"] for c in OTHER_CASES])
def test_execution_cases_scan_to_commands(case: dict[str, Any]) -> None:
    _check(case)
