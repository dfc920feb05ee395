"""The region feature-flags holds the new flags, sorted; nothing outside it changed."""

import sys
from pathlib import Path
from typing import NoReturn

BEFORE = '''"""Feature flags of the web app, read once at start-up."""

import os

# OPERATOR_BEGIN feature-flags'''
AFTER = '''# OPERATOR_END feature-flags


def enabled(name: str) -> bool:
    """True when the flag is on; ``FLAG_<NAME>=1`` in the environment turns it on too."""
    return FEATURE_FLAGS.get(name, False) or os.environ.get(f"FLAG_{name.upper()}") == "1"'''
WANTED = {"beta_export": False, "dark_mode": True, "new_checkout": True}


def fail(reason: str) -> NoReturn:
    print(f"FAIL: {reason}")
    sys.exit(1)


path = Path("flags.py")
if not path.is_file():
    fail("flags.py is missing")
lines = path.read_text(encoding="utf-8").splitlines()
begin_lines, after_lines = BEFORE.splitlines(), AFTER.splitlines()
if lines[: len(begin_lines)] != begin_lines:
    fail("flags.py changed before the region (or the begin marker moved)")
if lines[-len(after_lines) :] != after_lines:
    fail("flags.py changed after the region (or the end marker moved)")
namespace: dict = {}
try:
    exec("\n".join(lines), namespace)
except Exception as exc:
    fail(f"flags.py raised {type(exc).__name__}: {exc}")
flags = namespace.get("FEATURE_FLAGS")
if flags != WANTED:
    fail(f"FEATURE_FLAGS is {flags!r}, expected {WANTED!r}")
if list(flags) != sorted(flags):
    fail(f"the flags are not in alphabetical order: {list(flags)}")
print("OK: the region feature-flags holds the new flags")
