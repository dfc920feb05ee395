"""The copies in tests/data are the shared conformance material, unchanged."""

from __future__ import annotations

import pytest
from support.conformance_data import CASES_FILE, SOURCES, cases, shared_dir, spec_error_codes


@pytest.mark.parametrize("copy", sorted(SOURCES), ids=lambda p: p.name)
def test_copy_matches_the_shared_original(copy) -> None:  # type: ignore[no-untyped-def]
    shared, explicit = shared_dir()
    if shared is None:
        pytest.skip("no shared material beside this clone: the copy in tests/data is used as is")
    original = shared / SOURCES[copy]
    # A shared folder that is there (or named) but lacks the file is an error, never a skip.
    assert original.is_file(), f"{SOURCES[copy]} missing from {shared} (named: {explicit})"
    assert copy.read_bytes() == original.read_bytes(), f"refresh {copy.name} from {SOURCES[copy]}"


def test_the_copies_are_complete() -> None:
    names = [case["name"] for case in cases()]
    assert len(names) == 128 and len(set(names)) == 128, CASES_FILE
    assert len(spec_error_codes()) == 38
