"""page_count rounds up; the fix is small and page() is unchanged.

page_count runs in a child process (taskcheck.run_python), on fixed and random arguments.
"""

import difflib
import random
from pathlib import Path

from taskcheck import fail, run_python, same

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


CALL = '''
def main(cases):
    page_count = load("pager.py").page_count
    results = [page_count(*args) for args in cases]
    try:
        page_count(3, 0)
    except ValueError:
        results.append("ValueError")
    return results
'''


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
rng = random.SystemRandom()
cases = [[11, 5], [10, 5], [0, 5], [1, 5], [6, 1]]
cases += [[rng.randrange(0, 1000), rng.randrange(1, 50)] for _ in range(5)]
got = run_python(CALL, cases, what="pager.page_count")
if not isinstance(got, list) or len(got) not in (len(cases), len(cases) + 1):
    fail(f"pager.page_count gave {got!r} instead of one result per call")
for args, value in zip(cases, got, strict=False):  # a last "ValueError"
    expected = -(-args[0] // args[1])
    if not same(value, expected):
        fail(f"page_count{tuple(args)} returned {value!r}, expected {expected}")
if got[len(cases):] != ["ValueError"]:
    fail("page_count(3, 0) no longer raises ValueError")
print("OK: page_count rounds up and the rest of pager.py is unchanged")
