"""textstats.py exists in the workspace root and its two functions count words and lines."""

import importlib.util
import sys
from pathlib import Path
from typing import NoReturn

sys.dont_write_bytecode = True


def fail(reason: str) -> NoReturn:
    print(f"FAIL: {reason}")
    sys.exit(1)


path = Path("textstats.py")
if not path.is_file():
    fail("textstats.py is missing from the workspace root")
spec = importlib.util.spec_from_file_location("textstats", path)
module = importlib.util.module_from_spec(spec)
try:
    spec.loader.exec_module(module)
except Exception as exc:
    fail(f"importing textstats.py raised {type(exc).__name__}: {exc}")
for name in ("word_count", "line_count"):
    if not callable(getattr(module, name, None)):
        fail(f"textstats.py has no function {name}")

CASES = [
    ("word_count", "", 0),
    ("word_count", "one", 1),
    ("word_count", "  two   words\n", 2),
    ("word_count", "tabs\tand\nnew lines count too", 6),
    ("line_count", "", 0),
    ("line_count", "one", 1),
    ("line_count", "a\nb\n", 2),
    ("line_count", "a\nb", 2),
    ("line_count", "a\n\nc\n", 3),
]
for name, text, expected in CASES:
    try:
        got = getattr(module, name)(text)
    except Exception as exc:
        fail(f"{name}({text!r}) raised {type(exc).__name__}: {exc}")
    if got != expected:
        fail(f"{name}({text!r}) returned {got!r}, expected {expected!r}")
print("OK: textstats.word_count and textstats.line_count work")
