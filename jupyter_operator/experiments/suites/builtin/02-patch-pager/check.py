"""page_count rounds up; the fix is small and page() is unchanged."""

import difflib
import importlib.util
import sys
from pathlib import Path
from typing import NoReturn

sys.dont_write_bytecode = True

ORIGINAL = '''"""Split a list of items into pages."""


def page_count(total_items: int, per_page: int) -> int:
    """How many pages ``total_items`` items fill, ``per_page`` to a page."""
    if per_page <= 0:
        raise ValueError("per_page must be positive")
    return total_items // per_page


def page(items: list, number: int, per_page: int) -> list:
    """The items on page ``number`` (1-based)."""
    start = (number - 1) * per_page
    return items[start : start + per_page]
'''
PAGE = ORIGINAL[ORIGINAL.index("def page(") :]


def fail(reason: str) -> NoReturn:
    print(f"FAIL: {reason}")
    sys.exit(1)


path = Path("pager.py")
if not path.is_file():
    fail("pager.py is missing")
text = path.read_text(encoding="utf-8")
if "def page(" not in text or text[text.index("def page(") :].rstrip() != PAGE.rstrip():
    fail("the function page() changed or no longer ends the file")
old = [line for line in ORIGINAL.splitlines() if line.strip()]
new = [line for line in text.splitlines() if line.strip()]
changed = [line for line in difflib.ndiff(old, new) if line[:1] in "+-"]
if len(changed) > 5:
    fail(f"the change is not minimal: {len(changed)} lines added or removed")
spec = importlib.util.spec_from_file_location("pager", path)
module = importlib.util.module_from_spec(spec)
try:
    spec.loader.exec_module(module)
except Exception as exc:
    fail(f"importing pager.py raised {type(exc).__name__}: {exc}")
for args, expected in [((11, 5), 3), ((10, 5), 2), ((0, 5), 0), ((1, 5), 1), ((6, 1), 6)]:
    got = module.page_count(*args)
    if got != expected:
        fail(f"page_count{args} returned {got!r}, expected {expected}")
try:
    module.page_count(3, 0)
except ValueError:
    pass
else:
    fail("page_count(3, 0) no longer raises ValueError")
print("OK: page_count rounds up and the rest of pager.py is unchanged")
