"""docs/install.md names the package's version, 2.3.1, everywhere; nothing else changed."""

import hashlib
from pathlib import Path

from taskcheck import fail

EXPECTED = """# Installing mytool

Install a pinned release with pip:

    pip install mytool==2.3.1

Then check that it works:

    mytool --version

It should print `mytool 2.3.1`. Python 3.9 or newer is needed.
"""
UNCHANGED = {
    "mytool/_version.py": "9de67178c9847e385564ceb17ad46292b05d1d6b794f97a12fbd9961d3ed27e1",
    "mytool/__init__.py": "d2094b9aece569acdde3b03ff4e801dc62de63d94c8e10828173ed76587cf49e",
}


for name, digest in UNCHANGED.items():
    path = Path(name)
    if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
        fail(f"{name} was changed or removed; the package's version is the source of truth")
path = Path("docs/install.md")
if not path.is_file():
    fail("docs/install.md is missing")
text = path.read_text(encoding="utf-8")
if "2.2.0" in text:
    fail("docs/install.md still mentions 2.2.0")
if text.splitlines() != EXPECTED.splitlines():
    fail("docs/install.md should differ from before only in the two version numbers (2.3.1)")
print("OK: docs/install.md shows mytool 2.3.1")
