"""The region feature-flags holds the new flags, sorted; nothing outside it changed.

The file is read, never run: the region must be the one assignment of a literal dict.
"""

import ast
from pathlib import Path

from taskcheck import fail, same

BEFORE = '''"""Feature flags of the web app, read once at start-up."""

import os

# OPERATOR_BEGIN feature-flags'''
AFTER = '''# OPERATOR_END feature-flags


def enabled(name: str) -> bool:
    """True when the flag is on; ``FLAG_<NAME>=1`` in the environment turns it on too."""
    return FEATURE_FLAGS.get(name, False) or os.environ.get(f"FLAG_{name.upper()}") == "1"'''
WANTED = {"beta_export": False, "dark_mode": True, "new_checkout": True}


path = Path("flags.py")
if not path.is_file():
    fail("flags.py is missing")
lines = path.read_text(encoding="utf-8").splitlines()
begin_lines, after_lines = BEFORE.splitlines(), AFTER.splitlines()
if lines[: len(begin_lines)] != begin_lines:
    fail("flags.py changed before the region (or the begin marker moved)")
if lines[-len(after_lines) :] != after_lines:
    fail("flags.py changed after the region (or the end marker moved)")
region = "\n".join(lines[len(begin_lines) : len(lines) - len(after_lines)])
try:
    (statement,) = ast.parse(region).body
    if not isinstance(statement, (ast.Assign, ast.AnnAssign)) or statement.value is None:
        raise ValueError
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    if [getattr(target, "id", None) for target in targets] != ["FEATURE_FLAGS"]:
        raise ValueError
    flags = ast.literal_eval(statement.value)
except (SyntaxError, ValueError, TypeError):
    fail("the region should hold one statement, FEATURE_FLAGS = {...} with literal values")
if not isinstance(flags, dict) or not same(flags, WANTED):
    fail(f"FEATURE_FLAGS is {flags!r}, expected {WANTED!r}")
if list(flags) != sorted(flags):
    fail(f"the flags are not in alphabetical order: {list(flags)}")
print("OK: the region feature-flags holds the new flags")
