"""The shared conformance cases, run through the command line as a script would.

Each case sets up a fresh workspace, feeds its reply to ``jupyter-operator run`` on stdin,
approves (or rejects) every change, and matches the printed OPERATOR_RESULT blocks one to one,
in block order, with the case's expectations. The result text is parsed here with a parser of
the test's own, so the formatter under test does not grade itself.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.conformance_data import cases, spec_error_codes

# The cases are kept in tests/data (tests/test_conformance_data.py checks them against the
# shared originals when those are present).
CASES: list[dict[str, Any]] = cases()


def parse_results(text: str) -> list[dict[str, Any]]:
    """Split stdout into result blocks: id / ok / summary / decoded details."""
    results: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for line in text.split("\n"):
        if line == "OPERATOR_RESULT":
            assert current is None, "nested OPERATOR_RESULT"
            current = {"id": None, "details": None}
        elif line == "END_OPERATOR_RESULT":
            assert current is not None, "END_OPERATOR_RESULT without a start"
            results.append(current)
            current = None
        elif current is not None:
            key, _, value = line.partition(": ")
            if key == "ok":
                assert value in ("true", "false"), line
                current["ok"] = value == "true"
            elif key == "details_b64":
                current["details"] = base64.b64decode(value, validate=True).decode("utf-8")
            elif key in ("id", "summary"):
                current[key] = value
            else:
                raise AssertionError(f"unexpected line in a result: {line!r}")
        else:
            assert line == "", f"text outside result blocks: {line!r}"
    assert current is None, "unterminated result block"
    return results


def setup_workspace(root: Path, case: dict[str, Any]) -> None:
    for rel, text in case.get("setup_files", {}).items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode("utf-8"))
    for rel, spec in case.get("setup_repeat", {}).items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((spec.get("prefix", "") + spec["text"] * spec["count"]).encode())
    for rel, target in case.get("setup_symlinks", {}).items():
        link = root / rel
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(target)


def check(expect: dict[str, Any], got: dict[str, Any], root: Path) -> None:
    summary, details = got.get("summary", ""), got["details"] or ""
    if expect["id"] is not None:
        assert got["id"] == expect["id"]
    assert got["ok"] is expect["ok"], summary
    if expect.get("error_code"):
        assert f"Invalid OPERATOR_CMD ({expect['error_code']})" in summary
    if "summary_contains" in expect:
        assert expect["summary_contains"] in summary
    if "summary_not_contains" in expect:
        assert expect["summary_not_contains"] not in summary
    if "details_contains" in expect:
        assert expect["details_contains"] in details
    for needle in expect.get("details_contains_all", []):
        assert needle in details
    if "details_not_contains" in expect:
        assert expect["details_not_contains"] not in details
    if "details_json" in expect:
        assert json.loads(details) == expect["details_json"]
    if "details_json_subset" in expect:
        parsed = json.loads(details)
        for key, value in expect["details_json_subset"].items():
            assert parsed[key] == value, key
    for key in expect.get("details_json_subset_keys", []):
        assert key in json.loads(details)
    if expect.get("no_host_path_leak"):
        assert str(root) not in summary and str(root) not in details
    for rel, content in (expect.get("file_after") or {}).items():
        target = root / rel
        if content is None:
            assert not target.exists(), f"{rel} should not exist"
        else:
            assert target.read_bytes() == content.encode("utf-8"), rel


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_case(case: dict[str, Any], tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    setup_workspace(root, case)
    approve = "none" if case.get("approve") is False else "all"
    env = dict(os.environ, JUPYTER_OPERATOR_JOURNAL_DIR=str(tmp_path / "journal"))
    proc = subprocess.run(
        [sys.executable, "-m", "jupyter_operator", "run", "--root", str(root), "--approve",
         approve],
        input=case["input"].encode("utf-8"),
        capture_output=True,
        env=env,
        timeout=120,
    )
    # The command-line contract: result blocks on stdout, nothing else, exit 0 (a reply cut to
    # the scan window is warned about on stderr only).
    assert proc.returncode == 0, proc.stderr.decode()
    stdout = proc.stdout.decode("utf-8")
    assert "Traceback" not in stdout and "Traceback" not in proc.stderr.decode()
    results = parse_results(stdout)
    assert len(results) == len(case["expect"]), stdout
    for expect, got in zip(case["expect"], results, strict=True):
        check(expect, got, root)
    assert str(root) not in stdout, "a result shows an absolute host path"


def test_cases_cover_every_spec_error_code() -> None:
    spec_codes = spec_error_codes()
    seen = {e.get("error_code") for c in CASES for e in c["expect"]}
    assert len(spec_codes) == 38
    assert spec_codes <= seen, f"no case expects {sorted(spec_codes - seen)}"
